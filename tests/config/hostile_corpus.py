"""Hostile config files, one family each: what `toolhost validate` must refuse with a located
line (or load), fast, in bounded memory, never with a traceback."""

from __future__ import annotations

import os
from pathlib import Path

HEAD = "toolhost: 1\n"
PARAM = "        params:\n          p:\n            type: string\n"
TOOL = "servers:\n  s:\n    tools:\n      t:\n        command: [echo]\n"


def _laughs(levels: int, width: int) -> str:
    text = HEAD + "a: &a [" + ",".join(['"lol"'] * width) + "]\n"
    for i in range(1, levels):
        prev, name = chr(96 + i), chr(97 + i)
        text += f"{name}: &{name} [" + ",".join([f"*{prev}"] * width) + "]\n"
    return text


def _merge_bomb(levels: int) -> str:
    text = HEAD + "m0: &m0 {x: 1, y: 2}\n"
    for i in range(levels):
        text += f"m{i + 1}: &m{i + 1}\n  <<: [" + ",".join([f"*m{i}"] * 10) + f"]\n  k{i}: 1\n"
    return text


def texts() -> dict[str, bytes]:
    """name -> file content."""
    deep = 10_000
    out: dict[str, str | bytes] = {
        "laughs.yaml": _laughs(9, 9),
        "laughs-wide.yaml": _laughs(4, 200),
        "merge-bomb.yaml": _merge_bomb(30),
        "alias-count.yaml": HEAD + "a: &a 1\nb: [" + ",".join(["*a"] * 20_000) + "]\n",
        "alias-cycle.yaml": HEAD + "a: &a [*a]\n",
        "alias-undefined.yaml": HEAD + "a: *nope\n",
        "merge-loop.yaml": HEAD + "a: &a\n  <<: *a\n  x: 1\n",
        "merge-scalar.yaml": HEAD + "a: &a 1\nb:\n  <<: *a\n",
        "anchor-across-docs.yaml": HEAD + "a: &a 1\n---\nb: *a\n",
        "multi-doc.yaml": HEAD + "---\n" + HEAD + "---\n",
        "deep-flow-seq.yaml": HEAD + "x: " + "[" * deep + "]" * deep + "\n",
        "deep-flow-map.yaml": HEAD + "x: " + "{a: " * deep + "1" + "}" * deep + "\n",
        "deep-block.yaml": HEAD + "".join(" " * i + f"k{i}:\n" for i in range(2000)),
        "deep-block-seq.yaml": HEAD + "x:\n" + "".join(" " * i + "-\n" for i in range(2000)),
        "deep-unclosed.yaml": HEAD + "x: " + "[" * deep,
        "deep-params.yaml": HEAD + TOOL + "        params:\n          p:\n            "
        + "type: object\n            properties:\n              " + "".join(
            "  " * i + f"p{i}:\n" + "  " * i + "  type: object\n" + "  " * i
            + "  properties:\n" for i in range(1000)),
        "deep-alias-chain.yaml": HEAD + "".join(
            f"a{i}: &a{i} " + ("[" * 90) + (f"*a{i - 1}" if i else "1") + ("]" * 90) + "\n"
            for i in range(40)),
        "bigint.yaml": HEAD + "x: " + "9" * 5001 + "\n",
        "bigint-timeout.yaml": HEAD + TOOL + "        timeout: " + "9" * 100_000 + "\n",
        "bigint-hex.yaml": HEAD + "x: 0x" + "f" * 20_000 + "\n",
        "inf-timeout.yaml": HEAD + TOOL + "        timeout: .inf\n",
        "nan-timeout.yaml": HEAD + TOOL + "        timeout: .nan\n",
        "neg-inf.yaml": HEAD + "x: -.inf\n",
        "huge-float.yaml": HEAD + "x: 1e999999\n",
        "huge-string.yaml": HEAD + TOOL + "        description: " + "x" * 5_000_000 + "\n",
        "huge-key.yaml": HEAD + "k" * 2_000_000 + ": 1\n",
        "huge-tool-name.yaml": HEAD + "servers:\n  s:\n    tools:\n      " + "t" * 1_000_000
        + ":\n        command: [echo]\n",
        "wrong-types.yaml": HEAD + "servers: [1, 2]\n",
        "wrong-types-deep.yaml": HEAD + "servers:\n  s:\n    tools:\n      t:\n        command: "
        "{a: 1}\n        timeout: [1]\n        params: 5\n        description: {x: y}\n",
        "bool-version.yaml": "toolhost: true\n",
        "list-root.yaml": "- 1\n- 2\n",
        "scalar-root.yaml": "hello\n",
        "empty.yaml": "",
        "only-comment.yaml": "# nothing\n",
        "dup-keys.yaml": HEAD + "a: 1\na: 2\n",
        "python-tag.yaml": HEAD + "x: !!python/object/apply:os.system ['echo pwned']\n",
        "python-name.yaml": HEAD + "x: !!python/name:os.system\n",
        "custom-tag.yaml": HEAD + "x: !foo bar\n",
        "binary-tag.yaml": HEAD + "x: !!binary aGVsbG8=\n",
        "set-tag.yaml": HEAD + "x: !!set {a, b}\n",
        "complex-key.yaml": HEAD + "? [a, b]\n: 1\n",
        "tabs.yaml": HEAD + "servers:\n\ts: 1\n",
        "bom.yaml": b"\xef\xbb\xbf" + HEAD.encode(),
        "bom-utf16.yaml": b"\xff\xfe" + HEAD.encode("utf-16-le"),
        "invalid-utf8.yaml": HEAD.encode() + b"x: \xc3\x28\n",
        "nul.yaml": HEAD.encode() + b"x: a\x00b\n",
        "binary.yaml": bytes(range(256)) * 64,
        "random.yaml": os.urandom(65536),
        "control-chars.yaml": HEAD + "x: \x1b[31mred\x07\n",
        "long-line.yaml": HEAD + "x: [" + ",".join(["1"] * 20_000) + "]\n",
        "many-keys.yaml": HEAD + "x:\n" + "".join(f"  k{i}: {i}\n" for i in range(20_000)),
        "unclosed-quote.yaml": HEAD + 'x: "' + "a" * 100_000,
        "bad-indent.yaml": HEAD + "servers:\n  s:\n tools: 1\n",
        "template-key.yaml": HEAD + "{{ x }}: 1\n",
        "version-huge.yaml": "toolhost: " + "1" * 4001 + "\n",
        "extends-string.yaml": HEAD + "extends: /etc/passwd\n",
        "extends-nested.yaml": HEAD + "extends: [[[[1]]]]\n",
        "extends-devzero.yaml": HEAD + "extends: [/dev/zero]\n",
        "extends-dir.yaml": HEAD + "extends: [/tmp]\n",
        "extends-self.yaml": HEAD + "extends: [extends-self.yaml]\n",
        "extends-fifo.yaml": HEAD + "extends: [fifo.yaml]\n",
        "extends-huge.yaml": HEAD + "extends: ['" + "a" * 100_000 + "']\n",
        "extends-env.yaml": HEAD + "extends: ['${" + "X" * 10_000 + "}']\n",
        "redos-param.yaml": HEAD + TOOL + PARAM + "            pattern: '^(a+)+$'\n"
        "            default: '" + "a" * 40 + "!'\n",
        "lookahead-param.yaml": HEAD + TOOL + PARAM + "            pattern: '^(?=a)'\n",
        "backref-param.yaml": HEAD + TOOL + PARAM + "            pattern: '^(a)\\1$'\n",
        "bad-regex.yaml": HEAD + TOOL + PARAM + "            pattern: '(['\n",
        "bigint-hex-timeout.yaml": HEAD + TOOL + "        timeout: 0x" + "f" * 5000 + "\n",
        "template-bomb.yaml": HEAD + "servers:\n  s:\n    tools:\n      t:\n        command: "
        "[echo, \"{{ 'a' * 1000000000 }}\"]\n",
        "schema-remote-ref.yaml": HEAD + TOOL + "        input_schema: {type: object, "
        "properties: {x: {$ref: 'http://127.0.0.1:9/x.json'}}}\n",
        "many-problems.yaml": HEAD + "".join(f"bad{i}: 1\n" for i in range(20_000)),
        # TOML
        "bigint-bin-timeout.toml": "toolhost = 1\n[servers.s.tools.t]\ncommand = ['echo']\n"
        "timeout = 0b" + "1" * 20_000 + "\n",
        "headers.toml": "toolhost = 1\n" + "[[x]]\n" * 200_000,
        "deep-array.toml": "toolhost = 1\nx = " + "[" * deep + "]" * deep + "\n",
        "deep-inline.toml": "toolhost = 1\nx = " + "{a=" * deep + "1" + "}" * deep + "\n",
        "deep-dotted.toml": "toolhost = 1\n" + ".".join(["a"] * 5000) + " = 1\n",
        "deep-header.toml": "toolhost = 1\n[" + ".".join(["a"] * 5000) + "]\n",
        "deep-unclosed.toml": "toolhost = 1\nx = " + "[" * deep,
        "bigint.toml": "toolhost = 1\nx = " + "9" * 5001 + "\n",
        "nan.toml": "toolhost = 1\nx = nan\n",
        "inf-timeout.toml": "toolhost = 1\n[servers.s.tools.t]\ncommand = ['echo']\n"
        "timeout = inf\n",
        "dup.toml": "toolhost = 1\na = 1\na = 2\n",
        "table-redefined.toml": "toolhost = 1\n[a]\nx = 1\n[a]\ny = 2\n",
        "nul.toml": b"toolhost = 1\nx = 'a\x00b'\n",
        "invalid-utf8.toml": b"toolhost = 1\nx = '\xff'\n",
        "binary.toml": bytes(range(256)) * 64,
        "bom.toml": b"\xef\xbb\xbftoolhost = 1\n",
        "huge-string.toml": "toolhost = 1\nx = '" + "x" * 1_000_000 + "'\n",
        "string-in-brackets.toml": "toolhost = 1\nx = '" + "[" * deep + "'\n",
        "datetime.toml": "toolhost = 1\nx = 1979-05-27T07:32:00Z\n",
        "wrong-types.toml": "toolhost = 1\nservers = 5\n",
        "unknown-suffix.json": '{"toolhost": 1}',
    }
    return {name: (value if isinstance(value, bytes) else value.encode()) for name, value
            in out.items()}


def write(directory: Path) -> list[Path]:
    """The corpus as files in ``directory``, plus the special files: a FIFO, a directory, a
    symlink loop, a file over the size limit."""
    paths = []
    for name, data in texts().items():
        path = directory / name
        path.write_bytes(data)
        paths.append(path)
    os.mkfifo(directory / "fifo.yaml")
    (directory / "dir.yaml").mkdir()
    (directory / "loop-a.yaml").symlink_to(directory / "loop-b.yaml")
    (directory / "loop-b.yaml").symlink_to(directory / "loop-a.yaml")
    with open(directory / "too-big.yaml", "wb") as handle:  # sparse: no disk used
        handle.truncate(17 * 1024 * 1024)
    paths += [directory / n for n in ("fifo.yaml", "dir.yaml", "loop-a.yaml", "too-big.yaml",
                                      "missing.yaml")]
    return paths

"""A value of every wrong type at every key of the grammar, in YAML and TOML, through
`toolhost validate` in process: exit 1 (or 0 where the value is one the key takes), no
traceback, and one located line (file:line:col: key.path: ...) per wrong key, none about a
key nobody got wrong (a rule naming the tool a wrong key dropped was a second line).

The key paths come from the shipped JSON Schema (toolhost/config/schema.json, with each
backend kind's options) walked along a few small valid configs: a key the grammar gains is
swept without a change here, and ``test_every_block_of_the_schema_is_swept`` fails when a
block of the schema (a new ``$defs`` entry, a backend kind) has no base config here.

Each config plants the same wrong value at every key path of one depth at once (no path is
then inside another), so the whole sweep is a few hundred in-process loads.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.registry import builtin_kinds
from toolhost.cli import main
from toolhost.config.schema import config_schema
from toolhost.redaction import process as redaction

SCHEMA = config_schema(builtin_kinds())
DEFS: dict[str, Any] = SCHEMA["$defs"]
Key = str | int

# small valid configs that between them hold every block of the grammar
BASES: dict[str, dict[str, Any]] = {
    "command": {"toolhost": 1, "servers": {"s": {
        "description": "d", "version": "1.0.0", "timeout": "5s", "env": {"A": "b"},
        "cwd": ".", "headers": {"H": "v"}, "secrets": ["kk"],
        "auth": {"type": "bearer", "token": "tok-abcdef-123"},
        "tools": {"t": {
            "command": {"argv": ["echo", "{{ p }}"]}, "params": {"p": {"type": "string"}},
            "annotations": {"readOnlyHint": True}, "task_support": {"mode": "optional"},
            "output": "text"}}}},
        "permissions": {"default": "ask", "audit_log": "audit.jsonl",
                        "allow": [{"tool": "mcp__s__t", "when": {"p": "x"}}],
                        "deny": ["Bash"]},
        "run": {"model": "m", "env": {"A": "b"}, "cli_args": ["--verbose"]},
        "plugins": ["toolhost-files"], "settings": {"toolhost-files": {}},
        "extends": ["base.yaml", {"repo": "repo", "rev": "v1", "path": "base.yaml"}]},
    "http": {"toolhost": 1, "servers": {"h": {"base_url": "http://127.0.0.1:9", "tools": {
        "t": {"http": {"url": "/x", "query": {"a": "b"}, "headers": {"a": "b"}},
              "input_schema": {"type": "object"}, "output_schema": {"type": "object"}}}}}},
    "python": {"toolhost": 1, "servers": {"p": {"tools": {
        "t": {"python": {"function": "json:dumps", "allow_untyped": True}}}}}},
    "external": {"toolhost": 1, "servers": {"e": {"external": {
        "type": "stdio", "command": "echo", "args": ["x"], "env": {"A": "b"}}}}},
    "mcp": {"toolhost": 1, "servers": {"m": {"mcp": {"command": ["echo"], "env": {"A": "b"}},
                                             "include": ["a"]}}},
    "openapi": {"toolhost": 1, "servers": {"o": {"openapi": {"spec": "spec.yaml"}}}},
    "content": {"toolhost": 1, "servers": {"r": {
        "resources": {"doc": {"file": "doc.md", "mime_type": "text/markdown"},
                      "tk": {"uri": "tickets://{id}", "params": {"id": {"type": "string"}},
                             "command": ["echo"], "complete": {"id": ["a"]}}},
        "prompts": {"pr": {"template": "hi {{ a }}", "arguments": {"a": {"required": True}}},
                    "m": {"messages": [{"role": "user", "content": "x"}]}}}}},
}

def _merged() -> dict[str, Any]:
    """One config of every base: a load costs about as much for one server as for seven."""
    out: dict[str, Any] = {}
    for base in BASES.values():
        for key, value in base.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = {**out[key], **value}
            else:
                out.setdefault(key, value)
    return out


BASE = _merged()
SPEC = ("openapi: 3.0.0\ninfo: {title: x, version: '1'}\nservers: [{url: 'http://127.0.0.1:9'}]\n"
        "paths:\n  /x:\n    get:\n      operationId: getx\n"
        "      responses: {'200': {description: ok}}\n")

# one value of each wrong type, as written in each syntax (a secret-valued key takes them
# too, so none is a digit or word that shows up in the lines themselves)
_BOMB = "[&a [x,x,x,x], &b [*a,*a,*a,*a], &c [*b,*b,*b,*b], &d [*c,*c,*c,*c]]"
WRONG: dict[str, dict[str, str]] = {
    "yaml": {
        "null": "null", "bool": "true", "int": "987654321", "float": "2.5e-7",
        "nan": ".nan", "huge-str": "'" + "q" * 1200 + "'",
        "list": "[987654321, qq]", "merge": "{<<: {zzq: 1}}", "merge-scalar": "{<<: 987654321}",
        "python-tag": "!!python/object/apply:os.system ['true']", "custom-tag": "!foo bar",
        "octal": "0755", "bomb": _BOMB, "deep": "[{a: " * 50 + "1" + "}]" * 50,
    },
    "toml": {
        "bool": "true", "float": "2.5e-7", "huge-int": "0x" + "f" * 5000, "inf": "-inf",
        "huge-str": "'" + "q" * 1200 + "'", "list": "[987654321, 'qq']", "dict": "{zzq = 1}",
        "datetime": "1979-05-27T07:32:00Z", "dates": "[1979-05-27]",
        "deep": "[{a = " * 50 + "1" + "}]" * 50,
    },
}
SENT = "__WRONG__"
_OWN = {"object": dict, "array": list}


def _resolve(node: Any, data: Any) -> dict[str, Any]:
    """``node`` with its ``$ref`` followed and, of an ``anyOf``/``oneOf``, the branch for
    ``data``'s kind (a mapping or a list)."""
    for _ in range(20):
        if not isinstance(node, dict):
            return {}
        if "$ref" in node:
            node = DEFS[node["$ref"].rsplit("/", 1)[1]]
            continue
        branches = node.get("anyOf") or node.get("oneOf")
        if branches is None:
            return node
        node = next((b for b in branches if _fits(_resolve(b, data), data)), {})
    return {}


def _fits(node: dict[str, Any], data: Any) -> bool:
    kind = node.get("type") or ("object" if "properties" in node else None)
    kinds = kind if isinstance(kind, list) else [kind]
    return any(isinstance(data, _OWN.get(k, ())) for k in kinds)  # type: ignore[arg-type]


def _child(node: dict[str, Any], key: Key) -> Any:
    if isinstance(key, int):
        return node.get("items", {})
    props = node.get("properties", {})
    extra = node.get("additionalProperties")
    return props.get(key, extra if isinstance(extra, dict) else {})


def key_paths(base: dict[str, Any]) -> Iterator[tuple[tuple[Key, ...], dict[str, Any]]]:
    """Every key path of ``base``, and every key its schema allows where ``base`` has a
    mapping (with the node that holds it), parents before children."""
    def walk(data: Any, node: Any, path: tuple[Key, ...]) -> Iterator[Any]:
        node = _resolve(node, data)
        yield path, node
        if isinstance(data, dict):
            keys = [*data, *(k for k in node.get("properties", {}) if k not in data)]
            for key in keys:
                if key in data:
                    yield from walk(data[key], _child(node, key), (*path, key))
                else:
                    yield (*path, key), node
        elif isinstance(data, list):
            for index, value in enumerate(data):
                yield from walk(value, _child(node, index), (*path, index))
    for path, node in walk(base, SCHEMA, ()):
        if path and path != ("toolhost",) and not _rival(base, path):
            yield path, node  # (the version has tests of its own)


# keys of which a block has one: a key of these the base leaves out is not planted where
# it holds another (`params` and `input_schema` both is a problem of its own); another base
# holds it
RIVALS = [{"mcp", "openapi", "external", "tools", "include", "exclude"},
          {"params", "input_schema"}, {"template", "messages", "python"},
          {"file", "directory", "uri", *builtin_kinds()}, {"json", "form"}, {"command", "url"}]


def _rival(base: dict[str, Any], path: tuple[Key, ...]) -> bool:
    holder: Any = base
    for key in path[:-1]:
        holder = holder[key]
    key = path[-1]
    if not isinstance(holder, dict) or key in holder:
        return False
    # a rival is there, or (none is) an absent rival comes first and is planted instead
    return any(key in group and (group & set(holder) or key != min(group))
               for group in RIVALS)


def _yaml(data: Any, indent: int = 0) -> str:
    pad, out = "  " * indent, []
    items = data.items() if isinstance(data, dict) else ((None, v) for v in data)
    for key, value in items:
        head = f"{pad}{json.dumps(key)}:" if key is not None else f"{pad}-"
        if isinstance(value, (dict, list)) and value:
            out += [head, _yaml(value, indent + 1)]
        else:
            out.append(f"{head} {value if value == SENT else json.dumps(value)}")
    return "\n".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml_value, value)) + "]"
    return value if value == SENT else json.dumps(value)


def _toml(data: dict[str, Any], prefix: str = "") -> str:
    out = []
    for key, value in data.items():
        dotted = prefix + json.dumps(key)
        if isinstance(value, dict) and value:
            out.append(_toml(value, dotted + "."))
        else:
            out.append(f"{dotted} = {_toml_value(value)}")
    return "\n".join(out)


def _planted(base: dict[str, Any], paths: list[tuple[Key, ...]]) -> dict[str, Any]:
    data = json.loads(json.dumps(base))
    for path in paths:
        holder = data
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = SENT
    return data


def _format(path: tuple[Key, ...]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")


_ERROR = re.compile(r"(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<path>[^ ]+): (?P<rest>.*)")
CLEAN = redaction._state  # what the process hid before this module: each load starts there


def _validate(path: Path) -> tuple[int, list[str]]:
    redaction._state = CLEAN  # a planted `token: 987654321` must not hide the next load's 9s
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["validate", "--no-layers", str(path)])
    return code, err.getvalue().splitlines()




@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wrong")
    (folder / "doc.md").write_text("hi\n")
    (folder / "base.yaml").write_text("servers: {}\n")
    (folder / "spec.yaml").write_text(SPEC)
    repo = folder / "repo"  # the git extends entry's repository, local: no network
    repo.mkdir()
    (repo / "base.yaml").write_text("servers: {}\n")
    for argv in (["init", "-q"], ["add", "base.yaml"], ["commit", "-qm", "base"],
                 ["tag", "v1"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=repo,
                       check=True, capture_output=True)
    return folder


@pytest.mark.parametrize("syntax", ["yaml", "toml"])
def test_every_key_with_every_wrong_type_is_one_located_line(
        syntax: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_YAML_ALIAS_NODES", "200")  # a small bomb goes off
    monkeypatch.setenv("TOOLHOST_CACHE", str(folder / "cache"))  # the git entry's checkout
    base = BASE
    file = folder / f"all.{syntax}"
    file.write_text((_yaml(base) if syntax == "yaml" else _toml(base)) + "\n")
    code, lines = _validate(file)
    assert code == 0, lines
    by_depth: dict[int, list[tuple[Key, ...]]] = {}
    for path, _ in key_paths(base):
        by_depth.setdefault(len(path), []).append(path)
    failures: list[str] = []
    for wrong, text in WRONG[syntax].items():
        for depth, paths in sorted(by_depth.items()):
            planted = _planted(base, paths)
            body = _yaml(planted) if syntax == "yaml" else _toml(planted)
            file.write_text(body.replace(SENT, text) + "\n")
            code, lines = _validate(file)
            failures += _judged(file, wrong, depth, paths, code, lines)
    assert not failures, "\n".join(failures[:40])


def _judged(file: Path, wrong: str, depth: int, paths: list[tuple[Key, ...]], code: int,
            lines: list[str]) -> list[str]:
    said = f"{wrong} at depth {depth}"
    if code not in (0, 1) or any("Traceback" in line or "internal error" in line
                                 for line in lines):
        return [f"{said}: exit {code}: {lines[-3:]}"]
    found: list[str] = []
    named = [_format(p) for p in paths]
    per: dict[str, int] = dict.fromkeys(named, 0)
    for line in lines:
        if len(line) > 1100:
            found.append(f"{said}: a line of {len(line):,} characters: {line[:200]}")
        if line.startswith("    ") or ": warning: " in line or ": note: " in line \
                or line.endswith(" ok") or ": ok (" in line:
            continue
        match = _ERROR.fullmatch(line)
        if match is None or match["file"] != str(file):
            found.append(f"{said}: not located: {line[:300]}")
            continue
        at = match["path"]  # a wrong key's line, one inside it, or its block's about it
        owner = [n for n in named if at == n or at.startswith((n + ".", n + "["))
                 or n.startswith((at + ".", at + "["))]
        if not owner:
            found.append(f"{said}: a line about no wrong key: {line[:300]}")
        for n in owner:
            per[n] += 1
    found += [f"{said}: {n}: {count} lines" for n, count in per.items() if count > 1
              and wrong not in ("dict", "merge", "list")]  # a line per unknown key or item
    return found


def test_every_block_of_the_schema_is_swept() -> None:
    # a block the grammar gains (a $defs entry, a backend kind) needs a base config here,
    # else its keys would silently go unswept
    seen: set[int] = set()
    for base in BASES.values():
        for _, node in key_paths(base):
            seen.add(id(node))
    blocks = {name: _resolve(node, {}) for name, node in DEFS.items()
              if _resolve(node, {}).get("properties")}
    blocks |= {f"backend {kind}": _resolve(SCHEMA["$defs"]["tool"]["properties"][kind], {})
               for kind in builtin_kinds()}
    missing = [name for name, node in blocks.items() if id(node) not in seen]
    assert not missing, missing

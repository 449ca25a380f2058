"""What a config says (a description, a title) and what its file is called are shown by
`validate` and `tools`, never obeyed by the terminal: an escape sequence, a carriage return, a
bidi override is written as text, and a line break cannot forge a line (a second
"file: ok", a second tool under a server). In-process: the output is the thing checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

# a name that would clear a line, colour it, and forge a second verdict line
NAME = "x\x1b[31mRED\x1b[0m\r\nforged.yaml: ok (1 server, 1 tool)\u202e.yaml"
CONFIG = """\
toolhost: 1
servers:
  s:
    description: "srv \\e[2J\\rFAKE\\nmcp__s__fake"
    tools:
      t:
        description: "desc \\e[31mred\\e[0m\\r\\n  mcp__s__evil\\u202e"
        command: [echo, hi]
permissions: {default: allow}
"""
RAW = ("\x1b", "\r", "\u202e")


@pytest.mark.parametrize("args", [["validate"], ["tools"], ["tools", "--explain"]])
def test_a_hostile_name_or_description_is_shown_not_obeyed(
        args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    Path(NAME).write_text(CONFIG)
    assert main([args[0], NAME, *args[1:]]) == 0
    out = capsys.readouterr().out
    assert not [c for c in RAW if c in out], out
    lines = out.splitlines()
    assert not [line for line in lines if line.startswith("forged")], out
    if args[0] == "validate":
        # (the description's U+202E is warned of: "Trojan Source", tests/backends/test_notes)
        assert lines == [r"x\x1b[31mRED\x1b[0m\r\nforged.yaml: ok (1 server, 1 tool)\u202e.yaml"
                         ": ok (1 server, 1 tool, 1 warning)"]
        return
    # the one tool is the only line at a tool's indent; the descriptions' own lines sit under
    assert [line for line in lines if line.startswith("  mcp__")] == ["  mcp__s__t"], out
    assert r"srv \x1b[2J\rFAKE" in out and r"desc \x1b[31mred\x1b[0m\r" in out
    assert r"    mcp__s__fake" in lines and r"      mcp__s__evil\u202e" in lines
    if "--explain" in args:
        assert r"[x\x1b[31mRED\x1b[0m\r\nforged.yaml" in out


def test_explain_never_holds_a_big_file_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # --explain reads the files a second time for its marks; done while the built config was
    # held, a file of 499,000 values took the process to 547 MB (tools alone: 367 MB)
    import tracemalloc

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    config = tmp_path / "big.yaml"
    config.write_text("toolhost: 1\nservers: {s: {tools: {t: {description: d, command: [echo], "
                      "params: {p: {type: array, items: {}, default: ["
                      + ",".join(["0"] * 2_000) + "]}}}}}}\n")
    assert main(["tools", str(config), "--explain"]) == 0  # imports: not measured
    peaks = {}
    for args in (["tools", str(config)], ["tools", str(config), "--explain"]):
        tracemalloc.start()
        try:
            assert main(args) == 0
            peaks[len(args)] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    capsys.readouterr()
    assert peaks[3] < 1.2 * peaks[2], peaks  # it was 1.4 times


RULES = """\
toolhost: 1
servers:
  s:
    tools:
      t: {description: d, command: [echo, "{{ p }}"], params: {p: {type: string}}}
permissions:
  default: ask
  allow: ["Bash(echo \\e[2J\\r\\n   9  allow  Bash:*)"]
  deny: ["Read(/x\\e[1A\\u202e/**)",
         {tool: mcp__s__t, when: {p: "x"}, message: "no\\e[2J\\r\\nallow: all"}]
"""


@pytest.mark.parametrize("args", [["permissions", "list"],
                                  ["permissions", "check", "F", "mcp__s__t", "--input",
                                   '{"p": "x"}']])
def test_a_rule_s_text_is_shown_not_obeyed(args: list[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # `permissions list` is what a reviewer reads: a rule holding a line break printed a
    # forged rule row ("   9  allow  Bash:*"), an escape could erase the row above
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    config = tmp_path / "p.yaml"
    config.write_text(RULES)
    argv = [str(config) if a == "F" else a for a in args]
    assert main(argv if "F" in args else [*argv, str(config)]) in (0, 1)
    out = capsys.readouterr().out
    assert not [c for c in RAW if c in out], out
    lines = out.splitlines()
    if "list" in args:
        assert len(lines) == 4, out  # the policy line and three rules, nothing forged
        assert r"Bash(echo \x1b[2J\r\n   9  allow  Bash:*)" in lines[3]
        assert r"Read(/x\x1b[1A\u202e/**)" in lines[1]
    else:
        assert lines == ['deny: mcp__s__t when {"p": "x"}  (' + f"{config}:10:10, layer "
                         "project)", r"message: no\x1b[2J\r\nallow: all"], out

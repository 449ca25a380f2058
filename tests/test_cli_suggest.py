"""A mistyped command, subcommand, choice or option is named with what was probably meant.

The real ``toolhost`` entry point (``cli.main``), each typo a new user makes; a word with no
near match gets no guess.
"""

from __future__ import annotations

import pytest

from toolhost import cli
from toolhost.cli_suggest import suggestion

# argv, the suggestion expected in the error (None: no guess)
TYPOS: dict[str, tuple[list[str], str | None]] = {
    "command": (["validat", "c.yaml"], "did you mean 'validate'?"),
    "command transposed": (["tolos", "c.yaml"], "did you mean 'tools'?"),
    "command with a dash": (["mcpconfig", "c.yaml"], "did you mean 'mcp-config'?"),
    "subcommand": (["permissions", "chek", "c.yaml", "x"], "did you mean 'check'?"),
    "subcommand plural": (["permissions", "lists", "c.yaml"], "did you mean 'list'?"),
    "client choice": (["install", "claud-code", "c.yaml"], "did you mean 'claude-code'?"),
    "option of validate": (["validate", "--strct", "c.yaml"],
                           "'--strct': did you mean '--strict'?"),
    "option of lock": (["lock", "--chek", "c.yaml"], "'--chek': did you mean '--check'?"),
    "option with a value": (["tools", "c.yaml", "--jsn=1"], "did you mean '--json'?"),
    "option of serve": (["serve", "c.yaml", "--transprt", "http"],
                        "'--transprt': did you mean '--transport'?"),
    "global option": (["--debg", "validate", "c.yaml"], "did you mean '--debug'?"),
    "no near command": (["frobnicate"], None),
    # an option the command has not: said so, never "did you mean" the very word typed
    "--config for the config": (["permissions", "check", "--config", "c.yaml", "Bash"],
                                "'--config' is not an option of `toolhost permissions check`:"
                                " the config file is its first argument"),
    "--config not a near --cli": (["run", "--config", "c.yaml"],
                                  "the config file is its first argument"),
    "another command's option": (["tools", "c.yaml", "--transport", "http"],
                                 "'--transport' is not an option of `toolhost tools`"),
    "global option after the command": (["validate", "c.yaml", "--verbose"],
                                        "write it before the command (toolhost --verbose "
                                        "validate ...)"),
    # the call's arguments given without --input: that option is named (and the words
    # inside the JSON are never read back as options: "'-I' is not an option")
    "JSON without --input": (["permissions", "check", "c.yaml", "Bash",
                              '{"command": "python3 -I tools/x.py"}'],
                             "(JSON goes after an option: --input '{\"command\": \"python3 "
                             "-I tools/x.py\"}')"),
    "JSON array without --input": (["permissions", "check", "c.yaml", "Bash", "[1, 2]"],
                                   "(JSON goes after an option: --input '[1, 2]')"),
    "JSON after a mistyped --input": (["permissions", "check", "c.yaml", "Bash", "--inptu",
                                       '{"command": "ls"}'],
                                      "('--inptu': did you mean '--input'?)"),
    "JSON where no option takes it": (["tools", "c.yaml", '{"a": 1}'],
                                      "(see the command's --help for its options"),
}


@pytest.mark.parametrize("name", sorted(TYPOS))
def test_a_typo_gets_a_did_you_mean(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv, expected = TYPOS[name]
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "error:" in last and "Traceback" not in err
    if expected is None:
        assert "did you mean" not in last, last
    else:
        assert expected in last, last


def test_only_a_near_word_is_suggested() -> None:
    assert suggestion("--debugg", ["--debug", "--json"]) == "--debug"
    assert suggestion("zzz", ["--debug", "--json"]) is None
    assert suggestion("x", []) is None


@pytest.mark.parametrize("argv", [["tools"], ["validate"], ["install", "claude-code"],
                                  ["run"], ["call"], ["permissions", "check"]])
def test_a_config_left_out_names_the_ones_here_or_init(
        argv: list[str], tmp_path: object, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    here = Path(str(tmp_path))
    monkeypatch.chdir(here)
    assert _refused(argv) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        "(there is no config file here: `toolhost init` writes toolhost.yaml)")
    # files that are no config (a case file `toolhost init` writes, a CI workflow) are not
    # offered as one
    (here / "policy-tests.yaml").write_text("config: toolhost.yaml\ncases: []\n")
    (here / "compose.yml").write_text("services:\n  toolhost:\n    image: x\n")
    assert _refused(argv) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        "(there is no config file here: `toolhost init` writes toolhost.yaml)")
    for name in ("a.toml", "toolhost.yaml", ".hidden.yaml", "notes.txt"):
        (here / name).write_text("# a team's\ntoolhost: 1\n" if name != "a.toml"
                                 else "toolhost = 1\n")
    assert _refused(argv) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        "(name the config file; the ones here: toolhost.yaml, a.toml)")


def _refused(argv: list[str]) -> object:
    try:
        return cli.main(argv)
    except SystemExit as exited:  # argparse's own exit, as on the command line
        return exited.code


CONFIG = """\
toolhost: 1
servers:
  project:
    tools:
      greet:
        command: [echo, "hi {{ name }}"]
        params: {name: {type: string}}
"""


@pytest.mark.parametrize(("argv", "expected"), [
    (["VALIDATE", "c.yaml"], "did you mean 'validate'?"),
    (["tools", "c.yaml", "--JSON"], "'--JSON': did you mean '--json'?"),
    (["call", "c.yaml", "PROJECT.greet", "name=x"], "no server 'PROJECT' (servers: project);"
                                                     " did you mean 'project'?"),
    (["call", "c.yaml", "project.GREET", "name=x"], "did you mean 'greet'?"),
    (["call", "c.yaml", "project.greet", "NAME=x"], "did you mean 'name'?"),
])
def test_a_word_in_capitals_gets_a_did_you_mean(
        argv: list[str], expected: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    monkeypatch.chdir(str(tmp_path))
    Path("c.yaml").write_text(CONFIG)
    assert _refused(argv) == 2
    err = capsys.readouterr().err
    assert expected in err.strip().splitlines()[-1], err


def test_a_missing_subcommand_names_the_ones_there_are(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _refused(["permissions"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith("required: SUBCOMMAND (one of: check, lint, list, test; "
                         "`toolhost permissions SUBCOMMAND --help` shows one)"), last

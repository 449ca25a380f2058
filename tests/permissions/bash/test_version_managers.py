"""Round 27: asdf's ``.tool-versions`` naming a ``path:`` version and mise's files choose
what a tool name runs (through ``asdf exec``, ``mise exec`` or their shims on PATH): not
provable under a deny or ask Bash rule where such a file is found; without one, or without
a shim on PATH, decided as before. (asdf and mise are not installed to judge.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for manager in ("asdf", "mise"):
        shims = tmp_path / f".{manager}" / "shims"
        shims.mkdir(parents=True)
        (shims / f"{manager}node").write_text("#!/bin/sh\n")
        (shims / f"{manager}node").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}/.asdf/shims:{tmp_path}/.mise/shims:/usr/bin:/bin")
    proj = tmp_path / "proj" / "sub"
    proj.mkdir(parents=True)
    return proj


CHOSEN = [
    (".tool-versions", "nodejs path:/tmp/evil\n",
     ["asdfnode x.js", "asdf exec node x.js", "asdf env node"]),
    ("../.tool-versions", "nodejs 20.1.0\npython ref:abc\n", ["asdfnode x.js"]),
    ("mise.toml", "[env]\n_.source = './evil.sh'\n", ["misenode x.js", "mise exec -- node x",
                                                      "mise x node -- x.js", "rtx env"]),
    (".mise.toml", "[hooks]\nenter = 'rm -rf x'\n", ["misenode x.js"]),
    ("../.tool-versions", "nodejs path:/x\n", ["misenode x.js"]),
]
HONEST = [
    (".tool-versions", "nodejs 20.1.0\n", ["asdfnode x.js", "asdf exec node x.js",
                                           "asdf current", "misenode x.js", "mise --version"]),
    (None, "", ["asdfnode x.js", "misenode x.js", "mise exec -- node x", "node x.js"]),
]
WRITES = ["asdf local nodejs path:/tmp/evil", "asdf set nodejs path:/x", "mise use node@path:/x",
          "mise use node@20", "mise trust", "asdf plugin add x https://e/x", "mise install"]


@pytest.mark.parametrize(("name", "text", "commands"), CHOSEN)
def test_a_version_file_choosing_the_program_is_not_provable(
        project: Path, name: str, text: str, commands: list[str]) -> None:
    (project / name).write_text(text)
    for command in commands:
        assert decide(project, command, GUARDED) == "deny", command
        assert decide(project, command, ASKED) == "ask", command
        assert decide(project, command, OPEN) == "allow", command


@pytest.mark.parametrize(("name", "text", "commands"), HONEST)
def test_a_version_file_naming_versions_only_stays_provable(
        project: Path, name: str | None, text: str, commands: list[str]) -> None:
    if name is not None:
        (project / name).write_text(text)
    for command in commands:
        assert decide(project, command, GUARDED) == "allow", command


@pytest.mark.parametrize("command", WRITES)
def test_writing_what_a_version_manager_runs_is_not_provable(project: Path, command: str) -> None:
    assert decide(project, command, GUARDED) == "deny"
    assert decide(project, command, ASKED) == "ask"

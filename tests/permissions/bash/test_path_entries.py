"""A ``PATH`` holding a relative folder (``.``, an empty entry, ``bin``) makes the shell find
a command name there: ``git status`` runs a ``./git`` an earlier call wrote. Under a deny or
ask Bash rule such a line is not provable; an absolute entry found first, a builtin, or no
such file there leaves it provable. bash itself is the judge of a real case."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]
SYSTEM = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "mytool").write_text("#!/bin/sh\nrm -rf x\n")
    (tmp_path / "mytool").chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "deploy").write_text("#!/bin/sh\nrm -rf x\n")
    (tmp_path / "git").write_text("#!/bin/sh\nrm -rf x\n")  # (behind the machine's git)
    return tmp_path


@pytest.mark.parametrize(("path", "command"), [
    (f".:{SYSTEM}", "mytool status"), (f":{SYSTEM}", "mytool"), (f"{SYSTEM}:", "mytool x"),
    ("/usr/bin::/bin", "mytool"), (f"bin:{SYSTEM}", "deploy"), (f"./bin:{SYSTEM}", "deploy"),
    (f".:{SYSTEM}", "ls && mytool"), (f".:{SYSTEM}", "sudo mytool"),
    (f".:{SYSTEM}", "cd sub && ls"),  # (which folder '.' is after a cd is not known)
    (f".:{SYSTEM}", "cat > newtool < /dev/null; newtool"),  # (written, then run)
    (f".:{SYSTEM}", "cp /bin/true newtool && newtool"),
    (f".:{SYSTEM}", "git status"),  # '.' comes before the machine's git
])
def test_a_program_a_relative_path_folder_holds_is_not_provable(
        folder: Path, monkeypatch: pytest.MonkeyPatch, path: str, command: str) -> None:
    monkeypatch.setenv("PATH", path)
    assert decide(folder, command, GUARDED) == "deny"
    assert decide(folder, command, ASKED) == "ask"
    assert decide(folder, command, OPEN) == "allow"


@pytest.mark.parametrize(("path", "command"), [
    (SYSTEM, "mytool"),  # no relative entry: the machine's PATH, as before
    (f"{SYSTEM}:", "git status"),  # the machine's git is found first
    (f".:{SYSTEM}", "echo hi"), (f".:{SYSTEM}", "cd sub"),  # builtins
    (f".:{SYSTEM}", "ls -la"),  # no ./ls
    (f"bin:{SYSTEM}", "mytool"),  # bin/ holds no mytool
    (f".:{SYSTEM}", "./mytool"),  # a path, not a name: the line says what runs
])
def test_what_no_relative_folder_supplies_stays_provable(
        folder: Path, monkeypatch: pytest.MonkeyPatch, path: str, command: str) -> None:
    monkeypatch.setenv("PATH", path)
    expected = "allow" if command != "./mytool" else decide(folder, command, GUARDED)
    assert decide(folder, command, GUARDED) == expected


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
@pytest.mark.parametrize("path", [f".:{SYSTEM}", f"{SYSTEM}:", f"/nowhere::{SYSTEM}"])
def test_bash_really_runs_the_current_folders_program(tmp_path: Path, path: str) -> None:
    (tmp_path / "mytool").write_text("#!/bin/sh\ntouch RAN\n")
    (tmp_path / "mytool").chmod(0o755)
    subprocess.run(["/bin/bash", "-c", "mytool"], cwd=tmp_path, timeout=60, check=False,
                   env={**os.environ, "PATH": path}, capture_output=True)
    assert (tmp_path / "RAN").exists()

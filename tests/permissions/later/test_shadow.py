"""python -m, -c and a program on its input put the current directory first on sys.path, and
a script its own directory; a module there named as a standard library module (or as the one
-m runs) is imported in its place, so under a deny or ask Bash rule such a run is not
provable. python itself is the judge of a real case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]
SHADOWS = {"json.py": "json", "venv/__init__.py": "venv", "pip.py": "pip",
           "mytool/__init__.py": "mytool", "base64.pyc": "base64"}
RUNS = {"json": ["python3 -m json.tool f.json", "python3 -c 'import json'",
                 "echo 'import json' | python3", "sudo python3.12 -W ignore -m json.tool f",
                 "python3 -", "python -mjson.tool f"],
        "venv": ["python3 -m venv .v", "uv run true && python3 -m venv .v"],
        "pip": ["python -m pip install requests"], "mytool": ["python3 -m mytool.cli x"],
        "base64": ["python3 -m base64 f"]}
CASES = [(path, command) for path, name in SHADOWS.items() for command in RUNS[name]]


@pytest.mark.parametrize(("path", "command"), CASES)
def test_a_module_of_the_directory_python_imports_first_is_not_provable(
        tmp_path: Path, path: str, command: str) -> None:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text("import os\n")
    assert decide(tmp_path, command, GUARDED) == "deny"
    assert decide(tmp_path, command, ASKED) == "ask" or command.startswith("uv run")
    assert decide(tmp_path, command, OPEN) == "allow" or command.startswith("uv run")


@pytest.mark.parametrize("command", [
    "python3 -I -c 'import json'", "python3 -P -m json.tool f", "python3 x.py",
    "python3 -m http.server", "ls json.py", "python3 -Im json.tool f"])
def test_what_leaves_the_directory_off_sys_path_or_names_no_module_there_stays_allowed(
        tmp_path: Path, command: str) -> None:
    (tmp_path / "json.py").write_text("import os\n")
    (tmp_path / "notes.txt").write_text("x\n")
    (tmp_path / "data").mkdir()  # (a folder without __init__.py: stdlib wins over it)
    expected = "deny" if command == "python3 -m http.server" else "allow"
    assert decide(tmp_path, command, GUARDED) == expected  # (http.server imports json)
    (tmp_path / "json.py").unlink()
    assert decide(tmp_path, command, GUARDED) == "allow"


@pytest.mark.parametrize(("folder", "command"), [
    ("tools", "python3 tools/x.py"), ("tools", "python3 -u tools/x.py"),
    ("tools", "sudo python3.12 -W ignore tools/x.py"), ("tools", "python3 -- tools/x.py"),
    ("", "python3 x.py"), ("", "python3 ./x.py arg"), ("a/b", "python a/b/x.py -v")])
def test_a_module_of_a_scripts_directory_named_as_the_standard_librarys_is_not_provable(
        tmp_path: Path, folder: str, command: str) -> None:
    where = tmp_path / folder
    where.mkdir(parents=True, exist_ok=True)
    (where / "x.py").write_text("import json\n")
    (where / "helpers.py").write_text("x = 1\n")  # (the script's own module: fine)
    assert decide(tmp_path, command, GUARDED) == "allow"
    (where / "json.py").write_text("import os\n")
    assert decide(tmp_path, command, GUARDED) == "deny"
    assert decide(tmp_path, command, ASKED) == "ask"
    assert decide(tmp_path, command, OPEN) == "allow"


@pytest.mark.parametrize(("command", "expected"), [
    ("python3 -I tools/x.py", "allow"), ("python3 -P tools/x.py a", "allow"),
    ("python3 -EI tools/x.py", "allow"), ("sudo python3.12 -u -P tools/x.py", "allow"),
    ("python3 -E tools/x.py", "deny"), ("python3 -u tools/x.py -I", "deny"),
    # the isolated run does not vouch for another run of the same script
    ("python3 -I tools/x.py; python3 tools/x.py", "deny"),
    ("sh -c 'python3 -P tools/x.py && python3 tools/x.py'", "deny")])
def test_a_script_run_that_leaves_its_directory_off_sys_path_stays_provable(
        tmp_path: Path, command: str, expected: str) -> None:
    # (judged as run: the form with its options dropped, which deny rules are also tried
    # on, is no run of its own)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.py").write_text("import json\n")
    (tmp_path / "tools" / "json.py").write_text("import os\n")
    assert decide(tmp_path, command, GUARDED) == expected


@pytest.mark.parametrize(("command", "expected"), [
    # a value glued to -W or -X is no option: -WIgnore is no -I (python warns the filter is
    # invalid and runs the script, its folder first; checked with python 3.11)
    ("python3 -WIgnore tools/x.py", "deny"), ("python3 -uW Ignore tools/x.py", "deny"),
    ("python3 -XIgnored tools/x.py", "deny"), ("python3 -Wi -P tools/x.py", "allow"),
    ("python3 -uIW ignore tools/x.py", "allow")])
def test_python_options_are_read_as_python_reads_them(
        tmp_path: Path, command: str, expected: str) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.py").write_text("import json\n")
    (tmp_path / "tools" / "json.py").write_text("import os\n")
    assert decide(tmp_path, command, GUARDED) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("python3 -um json.tool f", "deny"), ("python3 -XIgnored -m json.tool f", "deny"),
    ("python3 -WPending -c 'import json'", "deny"), ("python3 -Ic 'import json'", "allow"),
    ("python3 -uIm json.tool f", "allow")])
def test_a_bundled_m_or_c_is_read_as_python_reads_it(
        tmp_path: Path, command: str, expected: str) -> None:
    (tmp_path / "json.py").write_text("import os\n")
    assert decide(tmp_path, command, GUARDED) == expected


def test_a_link_to_a_script_is_judged_by_the_directory_python_resolves(
        tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "x.py").write_text("import json\n")
    (tmp_path / "real" / "json.py").write_text("open('ran', 'w').write('x')\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "x.py").symlink_to(tmp_path / "real" / "x.py")
    subprocess.run([sys.executable, "bin/x.py"], cwd=tmp_path, timeout=60, check=True,
                   capture_output=True)
    assert (tmp_path / "ran").exists()  # python resolved the link: real/ came first
    assert decide(tmp_path, "python3 bin/x.py", GUARDED) == "deny"


def test_python_really_imports_a_scripts_neighbour_in_place_of_json(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.py").write_text("import json\n")
    (tmp_path / "tools" / "json.py").write_text("open('ran', 'w').write('x')\n")
    subprocess.run([sys.executable, "tools/x.py"], cwd=tmp_path, timeout=60, check=True,
                   capture_output=True)
    assert (tmp_path / "ran").exists()
    isolated = tmp_path / "iso"
    isolated.mkdir()
    subprocess.run([sys.executable, "-I", str(tmp_path / "tools" / "x.py")], cwd=isolated,
                   timeout=60, check=True, capture_output=True)
    assert not (isolated / "ran").exists()  # (-I leaves the script's directory off)
    if sys.version_info >= (3, 11):  # (-P: 3.11 on; before, python refuses the option)
        subprocess.run([sys.executable, "-P", str(tmp_path / "tools" / "x.py")],
                       cwd=isolated, timeout=60, check=True, capture_output=True)
        assert not (isolated / "ran").exists()


def test_python_really_imports_the_directory_s_json(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text("open('ran', 'w').write('x')\n")
    subprocess.run([sys.executable, "-c", "import json"], cwd=tmp_path, timeout=60,
                   check=True, capture_output=True)
    assert (tmp_path / "ran").exists()
    assert decide(tmp_path, "python3 -c 'import json'", GUARDED) == "deny"


@pytest.mark.parametrize("made", ["json.py", "json/__init__.py"])
def test_a_module_made_after_a_settled_folder_was_listed_is_seen(
        tmp_path: Path, made: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder still for 2 s is listed once (cached by its mtime and ctime): a module made
    in it later, or a package's __init__.py made in a folder already there, is seen."""
    from toolhost.permissions.later import shadow

    monkeypatch.setattr(shadow, "_STILL_NS", -(10**18))  # (every folder is settled)
    (tmp_path / "json").mkdir()
    assert decide(tmp_path, "python3 -m json.tool f", GUARDED) == "allow"
    (tmp_path / made).write_text("import os\n")
    assert decide(tmp_path, "python3 -m json.tool f", GUARDED) == "deny"

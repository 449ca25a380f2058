"""A perl program that is not named ``perl`` (``exiftool``, any script whose ``#!`` line
names perl, found by path, on the tool's PATH or relative to its cwd) opens its operands
with two-argument ``open`` when it reads ``<>``: a value ``"cmd |"`` ran ``cmd``. The
script's first line is read, and such a value is refused before it runs; a script of
another language, or a plain name, still runs."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

CAT = "while (<>) { print; }\n"


def _perl() -> str:
    path = shutil.which("perl")
    if path is None:
        pytest.skip("perl is not installed")
    return path


def _script(where: Path, name: str, shebang: str, body: str = CAT) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text(f"#!{shebang}\n{body}")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("shape", ["absolute", "env", "env-S", "on-path", "relative",
                                   "wrapped", "glued-dot"])
@pytest.mark.parametrize("value", ["a.txt; {touch} |", "{touch}|  ", " |{touch}", ">a.txt"])
async def test_a_perl_script_never_opens_a_value_as_a_command(
        config: Config, tmp_path: Path, shape: str, value: str) -> None:
    perl = _perl()
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("kept\n")
    marker = tmp_path / "pwned"
    bin_dir = tmp_path / "bin"
    shebang = {"env": "/usr/bin/env perl", "env-S": "/usr/bin/env -S perl -w"}.get(shape,
                                                                                  perl + " -w")
    if shape == "relative":
        _script(work / "tools", "show", shebang)
        program, options = "tools/show", {"cwd": str(work)}
    elif shape == "on-path":
        _script(bin_dir, "show-lines", shebang)
        program = "show-lines"
        options = {"cwd": str(work), "env": {"PATH": f"{bin_dir}:/usr/bin:/bin"}}
    else:
        program, options = str(_script(bin_dir, "show.pl", shebang)), {"cwd": str(work)}
    argv: list[Any] = [program, "{{ file }}"]
    if shape == "wrapped":
        argv = ["env", "LC_ALL=C", "timeout", "5", *argv]
    if shape == "glued-dot":
        argv = [program, "./{{ file }}"]
    cfg = config({"t": cmd(argv, options=options)})
    bad = value.format(touch=f"touch {shlex.quote(str(marker))}")
    result = await run(cfg, "t", {"file": bad})
    # after a literal './' only a trailing '|' is a mode; a leading one is part of a name
    if shape != "glued-dot" or bad.rstrip().endswith("|"):
        assert result.is_error and "a command, not a file name" in result.text_content, result
    assert not marker.exists()
    assert (work / "a.txt").read_text() == "kept\n"
    ok = await run(cfg, "t", {"file": "a.txt"})
    assert not ok.is_error and "kept" in ok.text_content, ok


async def test_a_link_to_perl_is_perl(config: Config, tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    link = tmp_path / "bin" / "myperl"
    link.symlink_to(_perl())
    (tmp_path / "a.txt").write_text("kept\n")
    marker = tmp_path / "pwned"
    cfg = config({"t": cmd([str(link), "-ne", "print", "{{ file }}"],
                           options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"file": f"a.txt; touch {shlex.quote(str(marker))} |"})
    assert result.is_error and "a command, not a file name" in result.text_content, result
    assert not marker.exists()
    ok = await run(cfg, "t", {"file": "a.txt"})
    assert not ok.is_error and "kept" in ok.text_content, ok


async def test_a_link_to_ed_is_ed(config: Config, tmp_path: Path) -> None:
    ed = shutil.which("ed")
    if ed is None:
        pytest.skip("ed is not installed")
    (tmp_path / "bin").mkdir()
    link = tmp_path / "bin" / "editor-x"
    link.symlink_to(ed)
    marker = tmp_path / "pwned"
    cfg = config({"t": cmd([str(link), "-s", "{{ file }}"],
                           options={"cwd": str(tmp_path), "stdin": "q\n"})})
    result = await run(cfg, "t", {"file": f"!touch {shlex.quote(str(marker))}"})
    assert result.is_error and "a command, not a file name" in result.text_content, result
    assert not marker.exists()


async def test_exiftool_is_a_perl_program_by_name(config: Config, tmp_path: Path) -> None:
    # a packed exiftool has no #! line: its name is enough
    exiftool = _script(tmp_path / "bin", "exiftool", sys.executable,
                       "import sys; print(sys.argv[1:])\n")
    cfg = config({"t": cmd([str(exiftool), "-json", "{{ file }}"])})
    result = await run(cfg, "t", {"file": "x.jpg; id |"})
    assert result.is_error and "a command, not a file name" in result.text_content, result
    ok = await run(cfg, "t", {"file": "x.jpg"})
    assert not ok.is_error and "x.jpg" in ok.text_content


@pytest.mark.parametrize("content", [f"#!{sys.executable}\nimport sys; print(sys.argv[1:])\n",
                                     "not a script at all\n", "#!\n", "#!" + "x" * 5000])
async def test_other_programs_keep_a_bar_in_a_name(config: Config, tmp_path: Path,
                                                   content: str) -> None:
    program = tmp_path / "bin" / "other"
    program.parent.mkdir()
    program.write_text(content)
    program.chmod(0o755)
    cfg = config({"t": cmd([str(program), "{{ file }}"])})
    result = await run(cfg, "t", {"file": "a|b"})
    assert "a command, not a file name" not in result.text_content, result

"""File names that some programs open as a command: perl's ``<>`` (two-argument open:
``cmd|``, ``|cmd``, ``>f``), GNU ed's ``!cmd``, ImageMagick's ``|cmd`` and ``CODER:`` prefix,
Ghostscript's ``|cmd`` / ``%pipe%cmd`` output. A value that writes one is refused before the
program runs; the real perl and ed show what it would have done."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


def _program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _touch(marker: Path) -> str:
    return f"touch {shlex.quote(str(marker))}"


@pytest.mark.parametrize(("argv", "value"), [
    (["-ne", "print", "{{ file }}"], "a.txt; {touch} |"),
    (["-ne", "print", "./{{ file }}"], "a.txt; {touch} |"),  # the config's './' first
    (["-ne", "print", "{{ file }}"], "{touch}|  \n"),  # blanks after the pipe
    (["-pe", "1", "{{ file }}"], "  |{touch}"),  # a pipe to the command
    (["-ne", "print", "{{ file }}"], ">a.txt"),  # truncates the file
    # a literal '--' keeps perl's options out, not its modes of opening
    (["-ne", "print", "--", "{{ file }}"], "+>a.txt"),
    (["-ne", "print", "--", "{{ file }}"], "a.txt; {touch} |"),
])
async def test_perl_never_opens_a_value_as_a_command(
        config: Config, tmp_path: Path, argv: list[str], value: str) -> None:
    perl = _program("perl")
    (tmp_path / "a.txt").write_text("kept\n")
    marker = tmp_path / "pwned"
    cfg = config({"t": cmd([perl, *argv], options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"file": value.format(touch=_touch(marker))})
    assert result.is_error and "a command, not a file name" in result.text_content, result
    assert not marker.exists()
    assert (tmp_path / "a.txt").read_text() == "kept\n"
    ok = await run(cfg, "t", {"file": "a.txt"})
    assert not ok.is_error and "kept" in ok.text_content


async def test_perl_through_a_wrapper_and_names_with_a_bar_inside(config: Config,
                                                                  tmp_path: Path) -> None:
    perl = _program("perl")
    (tmp_path / "a|b.txt").write_text("bar\n")
    marker = tmp_path / "pwned"
    cfg = config({"t": cmd(["timeout", "5", perl, "-ne", "print", "{{ file }}"],
                           options={"cwd": str(tmp_path)})})
    attack = await run(cfg, "t", {"file": f"{_touch(marker)}|"})
    assert attack.is_error and not marker.exists()
    ok = await run(cfg, "t", {"file": "a|b.txt"})  # a '|' inside is a name
    assert not ok.is_error and ok.text_content == "bar\n"


async def test_ed_never_runs_a_value(config: Config, tmp_path: Path) -> None:
    ed = _program("ed")
    (tmp_path / "a.txt").write_text("one\n")
    marker = tmp_path / "pwned"
    cfg = config({"t": cmd([ed, "-s", "{{ file }}"],
                           options={"cwd": str(tmp_path), "stdin": ",p\nq\n"})})
    attack = await run(cfg, "t", {"file": "!" + _touch(marker)})
    assert attack.is_error and "ed runs '!cmd'" in attack.text_content
    assert not marker.exists()
    ok = await run(cfg, "t", {"file": "a.txt"})
    assert not ok.is_error and ok.text_content == "one\n"


@pytest.fixture
def recorder(tmp_path: Path) -> Any:
    """An executable of a given name that prints its argv as JSON (ImageMagick and
    Ghostscript need not be installed: the value is refused before they would run)."""
    def make(name: str) -> str:
        path = tmp_path / "bin" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"#!{sys.executable}\nimport json, sys\n"
                        "print(json.dumps(sys.argv[1:]))\n")
        path.chmod(0o755)
        return str(path)
    return make


@pytest.mark.parametrize(("name", "argv", "bad", "good"), [
    ("convert", ["{{ f }}", "out.png"], "|id", "in.png"),
    ("magick", ["{{ f }}", "-resize", "50%", "out.png"], " |id", "in.png"),
    ("identify", ["{{ f }}"], "msl:x.msl", "x.png"),
    ("mogrify", ["-format", "png", "{{ f }}"], "ephemeral:x.png", "C:x.png"),
    ("convert", ["in.png", "{{ f }}"], "|sh -c id", "out.png"),
    ("gm", ["convert", "{{ f }}", "o.png"], "text:/etc/passwd", "./text:x"),
    ("gs", ["-sDEVICE=png16m", "-sOutputFile={{ f }}", "in.ps"], "|id", "out.png"),
    ("gs", ["-o", "{{ f }}", "in.ps"], "%pipe%id", "out%d.png"),
])
async def test_image_tools_never_open_a_value_as_a_command(
        config: Config, recorder: Any, name: str, argv: list[str], bad: str,
        good: str) -> None:
    cfg = config({"t": cmd([recorder(name), *argv])})
    result = await run(cfg, "t", {"f": bad})
    assert result.is_error and "a command, not a file name" in result.text_content, result
    ok = await run(cfg, "t", {"f": good})
    assert not ok.is_error, ok
    assert good in json.loads(ok.text_content) or any(good in a for a in
                                                      json.loads(ok.text_content))


@pytest.mark.parametrize("name", ["sox", "play", "rec", "soxi"])
@pytest.mark.parametrize("value", ["|touch pwned", "http://127.0.0.1/x\"; touch pwned; \"",
                                   "FTP://h/x", "https:x"])
@pytest.mark.anyio
async def test_sox_never_opens_a_value_as_a_command(config: Config, tmp_path: Path,
                                                    name: str, value: str) -> None:
    program = _sox_recorder(tmp_path, name)
    for argv in ([program, "{{ f }}", "out.wav"], ["timeout", "5", program, "-n", "{{ f }}"]):
        result = await run(config({"t": cmd(argv)}), "t", {"f": value})
        assert result.is_error and "SoX" in result.text_content, result
    ok = await run(config({"t": cmd([program, "{{ f }}", "out.wav"])}), "t", {"f": "in.wav"})
    assert not ok.is_error, ok


def _sox_recorder(tmp_path: Path, name: str) -> str:
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\necho \"$@\"\n")
    path.chmod(0o755)
    return str(path)

"""A path the config names must be of the kind the product opens: a FIFO, a device, a socket
or a directory where a file belongs (a ``file:`` resource, ``audit_log``), or a file where a
directory belongs (``directory:``, ``cwd``), is one located line from the real
``toolhost validate``, never opened (so never a hang)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TOOLHOST = str(Path(sys.executable).parent / "toolhost")


@pytest.fixture
def specials(tmp_path: Path) -> Iterator[dict[str, str]]:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "plain.txt").write_text("x\n")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    try:
        yield {"fifo": "fifo", "dir": "dir", "socket": "sock", "device": "/dev/zero",
               "plain": "plain.txt", "null": "/dev/null"}
    finally:
        sock.close()


FILE_PLACES = {
    "resource": "servers:\n  kb:\n    resources:\n      r: {{file: {p}}}\n"
                "    tools:\n      a: {{command: [echo]}}\n",
    "audit_log": "permissions:\n  audit_log: {p}\n",
}
DIRECTORY_PLACES = {
    "directory": "servers:\n  kb:\n    resources:\n      r: {{directory: {p}}}\n"
                 "    tools:\n      a: {{command: [echo]}}\n",
    "server.cwd": "servers:\n  s:\n    cwd: {p}\n    tools:\n      a: {{command: [echo]}}\n",
    "run.cwd": "run:\n  cwd: {p}\n",
}


def _validate(config: Path) -> tuple[int, str]:
    proc = subprocess.run([TOOLHOST, "validate", "--no-layers", "--no-compile", str(config)],
                          capture_output=True, text=True, timeout=60, cwd=config.parent)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("place", sorted(FILE_PLACES))
@pytest.mark.parametrize("kind", ["fifo", "dir", "socket", "device", "null"])
def test_a_special_file_where_a_file_belongs_is_a_located_line(
        tmp_path: Path, specials: dict[str, str], place: str, kind: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\n" + FILE_PLACES[place].format(p=specials[kind]))
    code, out = _validate(config)
    assert code == 1, out
    assert "not a regular file" in out and "Traceback" not in out, out
    assert f"{config}:" in out or "c.yaml:" in out, out


@pytest.mark.parametrize("place", sorted(FILE_PLACES))
def test_a_regular_or_missing_file_loads(tmp_path: Path, specials: dict[str, str],
                                         place: str) -> None:
    for name in (specials["plain"], "not-yet.txt"):
        config = tmp_path / "c.yaml"
        config.write_text("toolhost: 1\n" + FILE_PLACES[place].format(p=name))
        code, out = _validate(config)
        assert "not a regular file" not in out, out
        assert code == 0, out


@pytest.mark.parametrize("place", sorted(DIRECTORY_PLACES))
@pytest.mark.parametrize("kind", ["fifo", "plain", "socket", "device"])
def test_a_non_directory_where_a_directory_belongs_is_a_located_line(
        tmp_path: Path, specials: dict[str, str], place: str, kind: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\n" + DIRECTORY_PLACES[place].format(p=specials[kind]))
    code, out = _validate(config)
    assert code == 1, out
    assert "not a directory" in out and "Traceback" not in out, out


@pytest.mark.parametrize("place", sorted({**FILE_PLACES, **DIRECTORY_PLACES}))
@pytest.mark.parametrize("kind", ["loop", "long"])
def test_a_path_no_file_can_ever_be_is_a_located_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], place: str, kind: str) -> None:
    """A symlink loop or a name past the system's limit: no file made later can be it, so
    validate says so now (it was accepted as "missing"). In-process."""
    from toolhost.cli import main

    (tmp_path / "loop").symlink_to("loop")
    value = "loop" if kind == "loop" else "a" * 300
    places = {**FILE_PLACES, **DIRECTORY_PLACES}
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\n" + places[place].format(p=value))
    assert main(["validate", "-q", "--no-layers", "--no-compile", str(config)]) == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"{config}:") and "cannot be looked at" in first, first

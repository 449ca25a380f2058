"""``toolhost install`` on a client file that is hostile or odd: read with the loader's guards,
refused (one located line, exit 1, the file byte for byte as it was) when it cannot be
rewritten exactly, and written through a symlink to its target."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inproc import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "configs" / "demo.yaml")
TOOLHOST = str(Path(sys.executable).parent / "toolhost")


def _bounded_memory() -> None:
    # reading /dev/zero is the bug: with a cap it fails in seconds instead of swelling
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _install_process(tmp_path: Path, file: str, *extra: str
                     ) -> subprocess.CompletedProcess[str]:
    """In a process of its own (memory capped, a timeout): for the file a regression would
    read for ever (a FIFO, /dev/zero)."""
    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    return subprocess.run([TOOLHOST, "install", "claude-code", DEMO, "--all", "--name", "demo",
                           "--file", file, *extra], cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
                          preexec_fn=_bounded_memory)


def _install(tmp_path: Path, file: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The same command line, run in this process (a process per case cost 1-2 s)."""
    return run_cli(["install", "claude-code", DEMO, "--all", "--name", "demo", "--file", file,
                    *extra], cwd=tmp_path, env={"HOME": str(tmp_path),
                                                 "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
                                                 "TOOLHOST_DEBUG": None})


def _refused(done: subprocess.CompletedProcess[str], *text: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    for part in text:
        assert part in done.stderr, done.stderr


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json")
    _refused(_install_process(tmp_path, "fifo.json"), "fifo.json: cannot read: not a regular file",
             "nothing was changed")


def test_a_device_is_refused_without_reading_it(tmp_path: Path) -> None:
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    _refused(_install_process(tmp_path, "zero.json"), "zero.json: cannot read: not a regular file")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    _refused(_install(tmp_path, "dir.json"), "dir.json: cannot read: a directory")


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"mcpServers": {}, "x": ' + b"9" * 5000 + b"}", "1:25: not valid JSON: an integer of"),
    (b'{"mcpServers": {}, "owner": "Jos\xe9"}\n', "1:33: not UTF-8 text (byte 0xe9)"),
    (b'{"mcpServers": {}, "e": 1e400}\n', "1:25: not valid JSON: number 1e400 is too large"),
    (b'{"mcpServers": {},\n "e": -Infinity}\n', "2:7: not valid JSON: -Infinity is not JSON"),
    (b'{"mcpServers": {}, "n": NaN}\n', "NaN is not JSON"),
    (b'{"mcpServers": {}, "a": 1,\n  "a": 2}\n', '2:3: not valid JSON: the key "a" appears'),
    (b'{"mcpServers": {"x": {}, "x": {}}}\n', 'the key "x" appears twice'),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON: nested more than 256"),
    (b'{"mcpServers": [}', "not valid JSON: "),
])
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_file_it_cannot_rewrite_exactly_is_left_alone(tmp_path: Path, data: bytes,
                                                        expected: str, dry_run: bool) -> None:
    target = tmp_path / ".mcp.json"
    target.write_bytes(data)
    done = _install(tmp_path, ".mcp.json", *(["--dry-run"] if dry_run else []))
    _refused(done, f".mcp.json:{expected}" if expected[0].isdigit() else expected,
             "nothing was changed")
    assert target.read_bytes() == data
    assert not list(tmp_path.glob(".mcp.json.bak-*"))


@pytest.mark.parametrize(("data", "expected"), [
    (b'{\n  // the team\'s servers\n  "mcpServers": {}\n}\n', "2:3: "),
    (b'{"mcpServers": {} /* none yet */}\n', "1:19: "),
    (b'{"mcpServers": {"a": {"command": "x"},}}\n', "1:39: "),
    (b'{"mcpServers": {"a": {"command": "x", "args": [1,]}}}\n', "1:50: "),
])
def test_a_comment_or_trailing_comma_is_named_with_what_to_remove(
        tmp_path: Path, data: bytes, expected: str) -> None:
    """A JSONC habit got only 'Expecting property name' and 'fix it by hand'."""
    (tmp_path / ".mcp.json").write_bytes(data)
    done = _install(tmp_path, ".mcp.json")
    what = "JSON has no comments: remove the comment" if b"/" in data else \
        "JSON allows no comma before a closing bracket: remove the last comma"
    _refused(done, f".mcp.json:{expected}not valid JSON", what)
    assert (tmp_path / ".mcp.json").read_bytes() == data


def test_every_other_value_is_kept_exactly(tmp_path: Path) -> None:
    original = ('{"mcpServers": {"other": {"command": "x"}}, "big": 12345678901234567890, '
                '"f": 1.5e300, "neg": -0.0, "s": "caf\\u00e9 \\ud800", "e": [], "o": {}}\n')
    (tmp_path / ".mcp.json").write_text(original)
    done = _install(tmp_path, ".mcp.json")
    assert done.returncode == 0, done.stderr
    after = json.loads((tmp_path / ".mcp.json").read_text())
    before = json.loads(original)
    assert set(after["mcpServers"]) == {"other", "demo"}
    del after["mcpServers"]["demo"]
    assert after == before and str(after["neg"]) == "-0.0"


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    dots = tmp_path / "dotfiles"
    dots.mkdir()
    real = dots / "mcp.json"
    real.write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    real.chmod(0o600)
    link = tmp_path / ".mcp.json"
    link.symlink_to(real)
    done = _install(tmp_path, ".mcp.json")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert set(json.loads(real.read_text())["mcpServers"]) == {"other", "demo"}
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert not list(dots.glob(".mcp.json.*")) and not list(dots.glob(".mcp.json"))


def test_a_place_it_cannot_read_or_write_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    _refused(_install(tmp_path, str(tmp_path / "file" / "x.json")),
             "file is not a directory", "nothing was written")
    _refused(_install(tmp_path, "/proc/self/nope/x.json"), "/proc/self/nope does not exist")
    _refused(_install(tmp_path, "/proc/self/x.json"), "cannot write", "as it was")


def test_the_dry_run_diff_shows_the_files_text_escaped(tmp_path: Path) -> None:
    """A name in the client file (or the config) holding an escape sequence or a bidi
    override is written out in the diff, never sent to the terminal as it is."""
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "old\x1b[2J\u202e": {"command": "x"}}}, ensure_ascii=False, indent=2) + "\n")
    done = _install(tmp_path, ".mcp.json", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    assert '"old\\u001b[2J\\u202e"' in done.stdout, done.stdout
    assert '+    "demo": {' in done.stdout and "dry run" in done.stdout

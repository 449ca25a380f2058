"""`toolhost call` on a terminal shows what a tool returned, never lets it act: escape
sequences, C1 controls and bidi overrides in a result (a web page, a command's output) are
written as visible escapes, as `run` shows them; a pipe still gets the text as it is."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

# what a hostile result may carry, and how it must reach the screen
SEQUENCES = {
    "title (OSC 0)": ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
    "clipboard (OSC 52)": ("\x1b]52;c;Y3VybCB4fHNo\x07", "\\x1b]52;c;Y3VybCB4fHNo\\x07"),
    "clear screen": ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),
    "cursor up, erase line": ("\x1b[1A\x1b[2K", "\\x1b[1A\\x1b[2K"),
    "C1 CSI": ("\x9b31m", "\\x9b31m"),
    "bidi override": ("\u202eexe.txt", "\\u202eexe.txt"),
    "carriage return overwrite": ("rm -rf /\rsafe", "rm -rf /\\rsafe"),
}


def _config(tmp_path: Path) -> Path:
    """One tool whose result holds every sequence, each on a line of its own: one process
    shows them all (a process per sequence cost ~1.3 s each)."""
    lines = "".join(f"before {payload} after\n" for payload, _ in SEQUENCES.values())
    (tmp_path / "payload.txt").write_text(lines, encoding="utf-8")
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  t:
    tools:
      show:
        description: Print the payload.
        command:
          argv: [cat, {tmp_path / 'payload.txt'}]
""")
    return config


def _on_a_terminal(*args: str, cwd: Path) -> str:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=cwd,
                              stdin=subprocess.DEVNULL, stdout=follower,
                              stderr=subprocess.PIPE, timeout=120)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert done.returncode == 0, done.stderr
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


@pytest.mark.parametrize("raw", [(), ("--raw",)], ids=["shown", "raw"])
def test_a_result_on_a_terminal_is_shown_not_acted_on(tmp_path: Path,
                                                      raw: tuple[str, ...]) -> None:
    config = _config(tmp_path)
    screen = _on_a_terminal("call", str(config), "t.show", *raw, cwd=tmp_path)
    text = screen.replace("\r\n", "\n")  # the terminal's own line ends
    for acting in ("\x1b", "\x9b", "\u202e", "\r", "\x07"):
        assert acting not in text, (raw, screen)
    assert text.count("before") == text.count("after") == len(SEQUENCES), screen
    if not raw:
        for name, (_, shown) in SEQUENCES.items():
            assert f"before {shown} after" in text, (name, screen)


def test_a_pipe_gets_the_result_as_it_is(tmp_path: Path) -> None:
    config = _config(tmp_path)
    done = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "t.show"],
                          cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # bytes: a \r stays a \r
    assert done.stdout == (tmp_path / "payload.txt").read_bytes()

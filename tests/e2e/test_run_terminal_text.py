"""``--output text``: what the model, a tool or the CLI writes cannot act on the terminal
(escape sequences, OSC 52, carriage returns, bidi controls are shown as escapes)."""

from __future__ import annotations

import os
import re
import subprocess
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import TOOLHOST
from .fakecli import ECHO_SERVER, FAKE_CLI

pytestmark = pytest.mark.e2e

CONFIG = ECHO_SERVER + """\
permissions:
  default: allow
"""


def _harmful(shown: str) -> list[str]:
    return [c for c in shown if c not in "\n\t" and (
        unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") and c != "\u200d")]


# red team runner5 R2: what an in-process python tool printed reached the terminal raw;
# runner6: so did what it wrote below Python (os.write, a child process) and what the
# worker of an `isolation: process` tool printed (its fd 2 is the host's)
NOISY = """\
import os, subprocess, sys
def noisy(where: str = "host") -> str:
    print(where + "PRINT\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J")
    sys.stderr.write(where + "ERR\\x1b[1A\\x1b[2K\\r\\n")
    sys.stdout.flush()
    os.write(1, where.encode() + b"FD1\\x1b]52;c;ZmQx\\x07\\n")
    os.write(2, where.encode() + b"FD2\\x1b[H\\x1b[J\\xe2\\x80\\xae\\n")
    subprocess.run(["printf", where + "CHILD\\\\033]52;c;Y2hpbGQ=\\\\007\\\\n"], check=True)
    return "quiet"
"""


def test_model_text_and_tool_results_are_shown_inert(
        cli: str, tmp_path: Path, scenario: Callable[[str], Path]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("servers:\n", "servers:\n  n:\n    tools:\n"
                                     "      noisy: {python: {function: 'th_noisy:noisy'}}\n"
                                     "      worker: {python: {function: 'th_noisy:noisy',"
                                     " isolation: process}}\n"))
    (tmp_path / "th_noisy.py").write_text(NOISY)
    script = scenario(r"""
turns:
  - text: "MODEL\e]52;c;ZXZpbA==\a\e[2J\e[31mRED\r\u202eevil\x9b31m\u2066x\u2069"
    tool_calls:
      - {tool: mcp__s__echo, input: {text: "RES\e]52;c;ZXZpbA==\a\e[1A\e[2K  #1 ok\u202e"}}
      - {tool: mcp__n__noisy, input: {}}
      - {tool: mcp__n__worker, input: {where: worker}}
  - text: "done\e[5m"
""")
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script", str(script), "-p",
                           "go"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TOOLHOST_CLI": cli}, check=False)
    assert done.returncode == 0, done.stderr
    assert not _harmful(done.stdout), done.stdout
    assert not _harmful(done.stderr), done.stderr
    assert r"MODEL\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31mRED\r\u202eevil" in done.stdout
    assert r"RES\x1b]52;c;ZXZpbA==\x07\x1b[1A\x1b[2K" in done.stdout
    assert re.search(r"done\\x1b\[5m", done.stdout)
    assert r"hostPRINT\x1b]52;c;ZXZpbA==\x07\x1b[2J" in done.stdout
    assert r"hostERR\x1b[1A\x1b[2K\r" in done.stderr
    # below Python: descriptors 1 and 2 of the host (a worker's 1 is its protocol pipe:
    # what it writes there goes to the host's 2)
    assert r"hostFD1\x1b]52;c;ZmQx\x07" in done.stdout
    assert r"hostFD2\x1b[H\x1b[J\u202e" in done.stderr
    assert r"hostCHILD\x1b]52;c;Y2hpbGQ=\x07" in done.stdout
    for shown in (r"PRINT\x1b]52;c;ZXZpbA==\x07\x1b[2J", r"FD1\x1b]52;c;ZmQx\x07",
                  r"FD2\x1b[H\x1b[J\u202e", r"CHILD\x1b]52;c;Y2hpbGQ=\x07"):
        assert "worker" + shown in done.stderr, shown


def test_the_clis_stderr_is_quoted_inert(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--cli", str(FAKE_CLI), "-p",
                           "hi"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "FAKE_MODE": "garbage"}, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "boom \\x1b[31mred" in done.stderr, done.stderr
    assert not _harmful(done.stderr), done.stderr

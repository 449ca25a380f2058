"""The end of a failing CLI's stderr, shown with the error, hides every secret, also one cut
by where the kept end starts (the last 64 KiB) or by the last 40 lines shown: it is redacted
before it is cut to its last lines, and a start that is the end of a secret is ``***``.
Before, the last 16 characters of a 22-character token cut by the 64 KiB start were shown,
and a PEM key starting before the last 40 lines showed its last lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import TOOLHOST

pytestmark = pytest.mark.e2e

TOKEN = "SuperSecretValue123XYZ"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "QyNTUxOQAAACBmFakeKeyMaterialHere1234567890\n-----END OPENSSH PRIVATE KEY-----")
KEEP = 64 * 1024

# the fake CLI writes $ERR_TEXT (a file) to stderr, as bytes, and exits 3
FAKE = """\
import os, sys
sys.stderr.buffer.write(open(os.environ["ERR_TEXT"], "rb").read())
sys.stderr.flush()
sys.exit(3)
"""


def last_kept_from(text: str, at: int) -> str:
    """``text`` padded so that the kept last 64 KiB start ``at`` characters into it."""
    rest = text[at:] + "\n"
    return "x" * 3000 + "\n" + text[:at] + rest + "y" * (KEEP - len(rest) - 1) + "\n"


CASES = [
    *[(f"token-cut-{at}", TOKEN, last_kept_from(f"{TOKEN} after", at)) for at in (2, 6, 15, 20)],
    ("spelled-cut", TOKEN, last_kept_from("\\u0053uperSecretValue123XYZ after", 9)),
    ("pem-cut", PEM, last_kept_from(PEM + " after", 50)),
    ("pem-across-the-last-40-lines", PEM,
     "x\n" * 10 + PEM + "\n" + "".join(f"line {i}\n" for i in range(39))),
]


@pytest.mark.parametrize("secret,text", [(s, t) for _, s, t in CASES],
                         ids=[i for i, _, _ in CASES])
def test_the_cli_s_stderr_shows_no_piece_of_a_secret(tmp_path: Path, secret: str,
                                                      text: str) -> None:
    fake = tmp_path / "fake_cli.py"
    fake.write_text(f"#!{sys.executable}\n{FAKE}")
    fake.chmod(0o755)
    (tmp_path / "err.txt").write_text(text)
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    env: {T: '${MY_SECRET}'}\n"
                      "    tools:\n      t: {command: [echo, hi]}\n")
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--cli", str(fake), "-p", "hi"],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "MY_SECRET": secret,
                               "ERR_TEXT": str(tmp_path / "err.txt")})
    assert done.returncode == 1
    assert "--- the CLI's stderr ---" in done.stderr
    shown = done.stderr.split("--- the CLI's stderr ---", 1)[1]
    pieces = {secret[i:i + 6] for i in range(len(secret) - 5)} - {"-" * 6}
    assert not [p for p in pieces if p in shown], shown[:300]

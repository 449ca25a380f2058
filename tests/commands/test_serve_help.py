"""``toolhost serve --help`` says what serve does with an ``ask`` rule as docs/serve.md does:
the person at the client is asked (elicitation); a client that cannot be asked is a deny."""

from __future__ import annotations

import subprocess
import sys


def test_serve_help_says_asks_go_to_the_person_at_the_client() -> None:
    out = subprocess.run([sys.executable, "-m", "toolhost", "serve", "--help"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    text = " ".join(out.split())
    assert "asks the person at the client (MCP elicitation)" in text
    assert "is a deny here, since nobody can be asked" not in text
    assert "ask_mode: allow or deny" in text

"""A short secret that is also JSON syntax (a flag named like a secret, ``SKIP_AUTH=false``;
a PIN, ``PIN_TOKEN=1234``) never makes toolhost's JSON output unreadable: JSON's words are
not hidden, and a number spelling a secret becomes the string ``"***"``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.redaction import Redactor


@pytest.mark.parametrize("word", ["true", "false", "null"])
def test_json_words_are_not_hidden_and_other_secrets_still_are(word: str) -> None:
    hide = Redactor(frozenset({word, "1234", "s3cr3t-value"}))
    assert hide.redact(f'{{"isError": {word}, "n": 1234, "k": "s3cr3t-value"}}') == \
        f'{{"isError": {word}, "n": ***, "k": "***"}}'
    assert hide.secrets == frozenset({"1234", "s3cr3t-value"})
    assert not Redactor(frozenset({word}))  # nothing left to hide


def test_call_and_tools_json_stay_json_with_such_secrets(tmp_path: Path) -> None:
    (tmp_path / "pins.py").write_text(
        "def show(n: int = 1234) -> dict:\n"
        '    """Show a number."""\n'
        '    return {"n": n, "ok": True, "none": None, "text": "pin 1234 ok"}\n')
    config = tmp_path / "t.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n"
                      "    env: {A: '${SKIP_AUTH}', B: '${NO_TOKEN}', C: '${PIN_TOKEN}'}\n"
                      "    tools:\n      show: {python: 'pins:show'}\n")
    env = {"SKIP_AUTH": "false", "NO_TOKEN": "true", "PIN_TOKEN": "1234",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "s.show",
                           "--json"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # was: "isError": ***, "n": ***
    assert result["isError"] is False
    assert result["structuredContent"] == {"n": "***", "ok": True, "none": None,
                                           "text": "pin *** ok"}
    listed = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config),
                             "--json"], capture_output=True, text=True, timeout=60, env=env)
    assert listed.returncode == 0, listed.stderr
    tool = json.loads(listed.stdout)["servers"][0]["tools"][0]
    assert tool["inputSchema"]["properties"]["n"]["default"] == "***"

"""A secret in base64 or hex wrapped over lines (``base64`` wraps at 76 columns, ``openssl
base64`` at 64, ``xxd -p`` at 60) is hidden like one on a single line: the block is read joined.
It leaked whenever a line break fell inside the secret's encoding."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.redaction import Redactor
from toolhost.redaction.values import redact_strings

SECRET = "s3cr3t-T0ken-value-XYZ-0123456789-abcdefghij"
R = Redactor(frozenset({SECRET}))
SEPARATORS = ["\n", "\r\n", "\\n", "\\r\\n"]


def _wrap(text: str, width: int, sep: str) -> str:
    return sep.join(text[i:i + width] for i in range(0, len(text), width))


def _core(encoded: str, before: int) -> str:
    """The characters of ``encoded`` (base64 or hex of ``before`` bytes, the secret, more)
    made of the secret's bits alone, less two at each end."""
    n = len(SECRET.encode())
    if len(encoded) == 2 * (before + n + 9):  # hex
        return encoded[2 * before + 2:2 * (before + n) - 2]
    return encoded[8 * before // 6 + 2:8 * (before + n) // 6 - 2]


def _leaks(shown: str, sep: str, core: str) -> bool:
    """Whether ``shown`` still holds ``core`` across its line breaks."""
    return core in shown.replace(sep, "")


@pytest.mark.parametrize("sep", SEPARATORS)
@pytest.mark.parametrize("width", [16, 60, 64, 76])
@pytest.mark.parametrize("before", [0, 1, 2, 41])
def test_wrapped_base64_and_hex(sep: str, width: int, before: int) -> None:
    data = b"u" * before + SECRET.encode() + b"v" * 9
    for encoded in (base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode(),
                    data.hex(), data.hex().upper()):
        text, core = _wrap(encoded, width, sep), _core(encoded, before)
        assert _leaks(text, sep, core)  # the check sees it (a line break inside or not)
        shown = R.redact(text)
        assert "***" in shown and not _leaks(shown, sep, core), (encoded, shown)
        assert R.spans(text) and shown.endswith(text[-2:])  # what follows it is kept


def test_in_json_and_in_a_longer_text() -> None:
    data = b"x" * 50 + SECRET.encode() + b"y" * 30
    mime, core = base64.encodebytes(data).decode(), _core(base64.b64encode(data).decode(), 50)
    for text in (json.dumps({"body": mime}), f"header\n{mime}\nfooter: done\n"):
        shown = R.redact(text)
        assert "***" in shown and not _leaks(shown, "\n", core) \
            and not _leaks(shown, "\\n", core)
    assert R.redact(f"header\n{mime}").startswith("header\neHh4")


def test_text_without_the_secret_is_kept() -> None:
    other = base64.encodebytes(b"nothing to see here " * 40).decode()
    for text in (other, json.dumps(other), "lorem ipsum\ndolor sit\n" * 50, "a\n" * 100):
        assert R.redact(text) == text and R.spans(text) == []


@pytest.mark.skipif(shutil.which("base64") is None, reason="needs coreutils base64")
def test_a_commands_wrapped_base64_output_as_text_and_lines(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      enc:\n"
                      "        description: Encode the token.\n"
                      "        command:\n"
                      "          argv: [sh, -c, 'printf %s%s \"$P\" \"$T\" | base64']\n"
                      "          env: {T: '${API_TOKEN}', P: '" + "x" * 40 + "'}\n"
                      "          stdout: lines\n")
    env = {"API_TOKEN": SECRET, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "s.enc",
                           "--json"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    data = b"x" * 40 + SECRET.encode()
    wrapped, core = base64.encodebytes(data).decode(), _core(base64.b64encode(data).decode(), 40)
    assert core not in wrapped  # the tool's output is wrapped inside the secret
    result = json.loads(done.stdout)
    text, lines = result["content"][0]["text"], result["structuredContent"]["lines"]
    assert len(lines) == 2 and "***" in text and "***" in lines[0]
    # the text and the list of lines (one line per item: it leaked there too)
    assert not _leaks(text, "\n", core) and not _leaks("".join(lines), "\n", core), result


def test_a_lone_surrogate_beside_a_wrapped_block() -> None:
    data = b"x" * 40 + SECRET.encode()
    core = _core(base64.b64encode(data).decode(), 40)
    text = "\ud800 head\n" + base64.encodebytes(data).decode() + "\udfff"
    shown = R.redact(text)  # RE2 cannot take a lone surrogate: it raised UnicodeEncodeError
    assert shown.startswith("\ud800 head\neHh4") and shown.endswith("\udfff")
    assert "***" in shown and not _leaks(shown, "\n", core)


def test_a_list_of_lines_holding_a_wrapped_secret() -> None:
    data = b"x" * 40 + SECRET.encode()
    core = _core(base64.b64encode(data).decode(), 40)
    lines = base64.encodebytes(data).decode().splitlines()
    assert len(lines) == 2 and core not in lines[0] and core not in lines[1]
    shown = redact_strings({"lines": [*lines, "after"]}, R)["lines"]
    assert not _leaks("".join(shown), "\n", core) and shown[-1] == "after", shown
    other = base64.encodebytes(b"nothing here " * 10).decode().splitlines()
    assert redact_strings(other, R) == other

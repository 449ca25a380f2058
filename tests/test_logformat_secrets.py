"""TOOLHOST_LOG_FORMAT=json (``toolhost.logformat.JsonLines``): a secret written to stderr in
pieces (a flush between them, the 64 KiB cut, a line break inside a PEM key), in any spelling
the redactor hides, never reaches a record, whole or in halves. Before, a partial line was a
record at each flush and the pieces were scrubbed one record at a time."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.logformat import JsonLines
from toolhost.redaction import MASK, Redactor, ScrubbingStream, remember

TOKEN = "SuperSecretValue123XYZ"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "QyNTUxOQAAACBmFakeKeyMaterialHere1234567890\n-----END OPENSSH PRIVATE KEY-----")
SECRETS = frozenset({TOKEN, PEM})


@pytest.fixture(autouse=True)
def _secrets() -> None:
    remember(SECRETS)


def spelled(secret: str, ways: list[int]) -> str:
    """``secret`` with each character spelled one of the ways the redactor reads."""
    forms = [lambda c: c, lambda c: f"\\u{ord(c):04x}", lambda c: f"\\u{ord(c):04X}",
             lambda c: f"&#{ord(c)};", lambda c: f"&#x{ord(c):x};", lambda c: f"%{ord(c):02X}"]
    return "".join(forms[ways[i % len(ways)] % len(forms)](c) if c.isalnum() else c
                   for i, c in enumerate(secret))


def records(*pieces: str, flushes: list[bool] | None = None) -> list[str]:
    """The messages of the records ``pieces`` written to a JsonLines make, in order."""
    out = io.StringIO()
    stream = JsonLines(ScrubbingStream(out))
    for i, piece in enumerate(pieces):
        stream.write(piece)
        if flushes is None or flushes[i % len(flushes)]:
            stream.flush()
    stream.finish()
    return [json.loads(line)["message"] for line in out.getvalue().splitlines()]


def leaked(messages: list[str]) -> bool:
    """Whether the records, one by one or joined (as a reader of the log would), hold a
    secret in any form."""
    hide = Redactor(SECRETS)
    joined = "".join(messages)
    return any(hide.redact(m) != m for m in [*messages, joined, "\n".join(messages)])


CUTS = [
    ("SuperSec", "retValue123XYZ done\n"),
    ("\\u0053uperSec", "retValue123XYZ done\n"),
    ("Su&#x70;erSecretVa", "lue123XYZ done\n"),
    ("SuperSecretValue123XY\\u00", "5a done\n"),
    ("SuperSecretValue123XY&#", "90; done\n"),
    ("%53uper", "SecretValue123XYZ done\n"),
    ("key: " + PEM[:50], PEM[50:] + "\n"),  # a line break inside the key, a flush between
]


@pytest.mark.parametrize("first,second", CUTS)
def test_a_secret_cut_by_a_flush_is_hidden(first: str, second: str) -> None:
    messages = records(first, second)
    assert not leaked(messages), messages
    assert messages[-1].endswith("done") or MASK in messages[-1]
    assert MASK in "".join(messages)


@pytest.mark.parametrize("at", range(0, len(TOKEN) + 1, 4))
def test_a_secret_across_the_64k_cut_is_hidden(at: int) -> None:
    dots = "." * (JsonLines.HOLD - 3)
    messages = records(dots + spelled(TOKEN, [1, 0, 3])[:at * 3],
                       spelled(TOKEN, [1, 0, 3])[at * 3:] + " done\n", flushes=[False])
    assert not leaked(messages)
    assert "".join(messages).endswith(MASK + " done")


def test_ordinary_lines_are_still_a_record_each() -> None:
    assert records("one\ntwo\n", "three", flushes=[False]) == ["one", "two", "three"]
    assert records("half a line", " and the rest\n") == ["half a line", " and the rest"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=8),
       st.lists(st.integers(0, 200), min_size=1, max_size=6),
       st.lists(st.booleans(), min_size=1, max_size=4))
def test_a_secret_in_any_spelling_cut_anywhere_is_hidden(ways: list[int], cuts: list[int],
                                                        flushes: list[bool]) -> None:
    text = f"a {spelled(TOKEN, ways)} b\nkey {PEM}\nc"
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[i:j] for i, j in zip([0, *points], [*points, len(text)], strict=True)]
    messages = records(*pieces, flushes=flushes)
    assert not leaked(messages), messages
    # nothing else lost (a record's message is stripped of blanks at its ends)
    assert "".join(messages).replace(MASK, "").replace(" ", "") == "abkeyc"


@pytest.mark.parametrize("python", ["'leaky:leak'",
                                    "{function: 'leaky:leak', isolation: process}"],
                         ids=["in-process", "worker"])
def test_a_tool_printing_a_secret_in_pieces_under_json_logs(tmp_path: Path,
                                                            python: str) -> None:
    # the host's own stderr, or a worker's: a python tool writes the secret in two pieces
    (tmp_path / "leaky.py").write_text(
        "import sys\n"
        "def leak(a: str, b: str) -> str:\n"
        "    '''write a, flush, then b'''\n"
        "    sys.stderr.write(a); sys.stderr.flush(); sys.stderr.write(b + '\\n')\n"
        "    sys.stderr.flush()\n"
        "    return 'ok'\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    env: {T: '${MY_TOKEN}'}\n    tools:\n"
                      f"      leak: {{python: {python}}}\n")
    env = {**os.environ, "TOOLHOST_LOG_FORMAT": "json", "MY_TOKEN": TOKEN,
           "PYTHONPATH": str(tmp_path)}
    for a, b in CUTS[:3]:
        done = subprocess.run(
            [sys.executable, "-m", "toolhost", "call", str(config), "s.leak",
             "--json", json.dumps({"a": a, "b": b})],
            capture_output=True, text=True, env=env, timeout=60)
        messages = [json.loads(line)["message"] for line in done.stderr.splitlines()
                    if line.startswith("{")]
        assert done.returncode == 0, done.stderr
        assert not leaked(messages) and MASK in "".join(messages), done.stderr


def test_what_a_worker_and_its_children_write_to_fd_2_is_scrubbed_json(tmp_path: Path) -> None:
    """Bytes written straight to file descriptor 2 (a C extension's, a child process's) by an
    ``isolation: process`` tool go through the worker's scrubbing and JSON lines too."""
    (tmp_path / "rawleak.py").write_text(
        "import os, subprocess\n"
        "def leak(a: str) -> str:\n"
        "    '''write a to fd 2, in pieces, and from a child'''\n"
        "    os.write(2, ('raw ' + a[:5]).encode()); os.write(2, (a[5:] + '\\n').encode())\n"
        "    subprocess.run(['sh', '-c', 'printf \"child %s\\\\n\" \"$1\" >&2', 'sh', a])\n"
        "    os.write(1, ('out ' + a + '\\n').encode())\n"
        "    return 'ok'\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    env: {T: '${MY_TOKEN}'}\n    tools:\n"
                      "      leak: {python: {function: 'rawleak:leak', isolation: process}}\n")
    env = {**os.environ, "TOOLHOST_LOG_FORMAT": "json", "MY_TOKEN": TOKEN,
           "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "toolhost", "call", str(config), "s.leak",
         "--json", json.dumps({"a": TOKEN})],
        capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert all(line.startswith("{") for line in lines), done.stderr  # every line a record
    messages = [json.loads(line)["message"] for line in lines]
    assert not leaked(messages), done.stderr
    said = " ".join(messages)
    assert "raw" in said and "child" in said and "out" in said and MASK in said, done.stderr


def test_a_tool_that_moves_fd_2_gets_none_of_the_workers_own_bytes(tmp_path: Path) -> None:
    """The worker drains fds 1 and 2 before each answer through a descriptor of its own: a
    tool that points fd 2 at its own file finds there only what it wrote."""
    (tmp_path / "movefd.py").write_text(
        "import os\n"
        "def moved(path: str) -> str:\n"
        "    '''point fd 2 at path, write to it'''\n"
        "    os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND), 2)\n"
        "    os.write(2, b'mine\\n')\n"
        "    return 'ok'\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      moved: {python: {function: 'movefd:moved', isolation: process}}\n")
    log = tmp_path / "own.log"
    done = subprocess.run(
        [sys.executable, "-m", "toolhost", "call", str(config), "s.moved",
         "--json", json.dumps({"path": str(log)})],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)},
        timeout=60)
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() == b"mine\n"

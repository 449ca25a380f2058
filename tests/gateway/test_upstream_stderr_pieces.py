"""An upstream's stderr is redacted as one stream before it is cut into log lines
(toolhost.gateway.stderr.StderrLog): a secret cut by the 4,096-byte read, written in pieces,
spelled, or holding line breaks (a PEM key) is one ``***`` in one line. Before, each line
(and each 4,096-byte piece of a long one) was scrubbed on its own: the halves of a token, and
a PEM key line by line, reached the log."""

from __future__ import annotations

import logging
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.gateway.stderr import MAX_LINE, StderrLog
from toolhost.redaction import MASK, Redactor, remember

TOKEN = "tok-SuperSecretValue123XYZ"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "QyNTUxOQAAACBmFakeKeyMaterialHere1234567890\n-----END OPENSSH PRIVATE KEY-----")
SECRETS = frozenset({TOKEN, PEM})


@pytest.fixture(autouse=True)
def _secrets() -> None:
    remember(SECRETS)


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def logged(*pieces: str) -> list[str]:
    """What the log holds after an upstream wrote ``pieces`` (each flushed) and exited."""
    errlog = StderrLog("up")
    handler = Lines()
    errlog.log.addHandler(handler)
    errlog.log.setLevel(logging.DEBUG)
    try:
        for piece in pieces:
            errlog.file.write(piece)
            errlog.file.flush()
        errlog.spawned()  # our copy closed: the reader sees the end
        deadline = time.monotonic() + 10
        while not errlog._reader.closed and time.monotonic() < deadline:
            time.sleep(0.01)
        assert errlog._reader.closed
    finally:
        errlog.log.removeHandler(handler)
    return [line.removeprefix("upstream up: ") for line in handler.lines]


def leaked(lines: list[str]) -> bool:
    hide = Redactor(SECRETS)
    return any(hide.redact(t) != t for t in [*lines, "".join(lines), "\n".join(lines)])


@pytest.mark.parametrize("pieces", [
    ("x" * (MAX_LINE - 6) + TOKEN + " end\n",),
    ("x" * (MAX_LINE - 20), TOKEN[:9], TOKEN[9:] + " end\n"),
    ("key: " + PEM + " done\n",),
    ("key: " + PEM[:40], PEM[40:] + "\n"),
    ("a \\u0074ok-SuperSec", "retValue123XYZ b\n"),
    ("a tok-Su&#x70;erSecretVa", "lue123XYZ b\n"),
    ("no newline at the end: " + TOKEN[:12], TOKEN[12:]),
], ids=["long-line", "long-line-pieces", "pem", "pem-pieces", "json-escape", "html-ref",
        "no-newline"])
def test_a_secret_is_one_mask_in_one_line(pieces: tuple[str, ...]) -> None:
    lines = logged(*pieces)
    assert not leaked(lines), lines
    assert sum(line.count(MASK) for line in lines) == 1, lines


@pytest.mark.parametrize("start", [TOKEN[:5], TOKEN[:12], TOKEN[:-1], PEM[:30]])
def test_a_secret_cut_by_the_end_shows_none_of_its_start(start: str) -> None:
    # an upstream stopped (or gone) while it wrote a secret: its first characters are hidden
    lines = logged("last words: " + start)
    assert lines and all(start[:5] not in line for line in lines), lines
    assert lines[-1].startswith("last words: ") and lines[-1].endswith(MASK), lines


def test_ordinary_lines_stay_lines() -> None:
    assert logged("one\ntwo\n", "\n", "three") == ["one", "two", "three"]
    long = "y" * (3 * MAX_LINE)  # a line past MAX_LINE is cut: its rest is not new lines
    cut_line, after = logged(long + "\nnext\n")
    assert cut_line.endswith(" …(cut)") and set(cut_line[:-len(" …(cut)")]) == {"y"}
    assert MAX_LINE <= len(cut_line) < 2 * MAX_LINE
    assert after == "next"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=5))
def test_a_secret_cut_anywhere_is_hidden(cuts: list[int]) -> None:
    text = f"a {TOKEN} b\nkey {PEM}\nc {TOKEN}"
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[i:j] for i, j in zip([0, *points], [*points, len(text)], strict=True)]
    lines = logged(*pieces)
    assert not leaked(lines), lines
    assert "".join(lines).replace(MASK, "").replace(" ", "") == "abkeyc"

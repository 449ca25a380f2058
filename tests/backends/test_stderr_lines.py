"""``stderr: log``: a command's stderr split into lines, bounded in length and in number."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from toolhost.backends.process import MAX_LINE, MAX_STDERR_LINES, StderrLines

pytestmark = pytest.mark.anyio


async def lines_of(*chunks: bytes) -> list[str]:
    heard: list[str] = []

    async def on_line(text: str) -> None:
        heard.append(text)

    splitter = StderrLines(on_line)
    for chunk in chunks:
        await splitter.feed(chunk)
    await splitter.end()
    return heard


async def test_lines_split_across_chunks_and_blank_ones_skipped() -> None:
    assert await lines_of(b"one\ntw", b"o\r\n\n  \nthr", b"ee") == ["one", "two", "three"]
    assert await lines_of("caf\u00e9 \xff".encode("latin-1")) == ["caf\ufffd \ufffd"]


async def test_a_line_without_end_is_sent_in_pieces() -> None:
    heard = await lines_of(b"x" * (MAX_LINE * 2 + 10))
    assert [len(h) for h in heard] == [MAX_LINE, MAX_LINE, 10]


async def test_at_most_so_many_lines_then_one_note() -> None:
    heard = await lines_of(b"line\n" * (MAX_STDERR_LINES + 500))
    assert len(heard) == MAX_STDERR_LINES + 1
    assert heard[-1].startswith("(more stderr lines were not sent")


async def test_a_secret_across_a_cut_is_in_neither_piece() -> None:
    from toolhost.redaction import remember

    secret = "Zq7-SuperSecretValue-91"
    remember({secret})
    for shift in range(len(secret) + 1):
        line = ("." * (MAX_LINE - shift) + secret + " done").encode()
        heard = await lines_of(line[:MAX_LINE + 5], line[MAX_LINE + 5:] + b"\n")
        joined = "|".join(heard)
        assert all(secret[i:i + 5] not in joined for i in range(len(secret) - 4)), shift


async def test_a_piece_is_cut_between_characters() -> None:
    heard = await lines_of(b"x" * (MAX_LINE - 1) + "é".encode() + b"tail")
    assert heard == ["x" * (MAX_LINE - 1), "étail"]


PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "QyNTUxOQAAACBmFakeKeyMaterialHere1234567890\n-----END OPENSSH PRIVATE KEY-----")


@pytest.mark.parametrize("size", [1, 7, 40, 4096])
async def test_a_secret_with_line_breaks_is_not_sent_line_by_line(size: int) -> None:
    from toolhost.redaction import remember

    remember({PEM})
    data = ("using key " + PEM + "\nnext line\n").encode()
    heard = await lines_of(*(data[i:i + size] for i in range(0, len(data), size)))
    assert heard == ["using key ***", "next line"]
    crlf = ("using key " + PEM.replace("\n", "\r\n") + "\r\n").encode()
    assert await lines_of(crlf[:50], crlf[50:]) == ["using key ***"]


async def test_a_hex_dump_written_a_line_at_a_time_shows_no_secret() -> None:
    """``xxd >&2`` under ``stderr: log``: a secret wrapping over two dump lines is read
    whole, though each line comes in a write of its own."""
    from toolhost.redaction import remember

    secret = "sk-live-Dump9f8e7d6c5b"
    remember({secret})
    for lead in (0, 5, 13):
        data = b"x" * lead + b"key=" + secret.encode() + b"&more\n"
        dump = []
        for at in range(0, len(data), 16):
            chunk = data[at:at + 16]
            hexed = " ".join(chunk[i:i + 2].hex() for i in range(0, len(chunk), 2))
            shown = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
            dump.append(f"{at:08x}: {hexed:<39}  {shown}\n".encode())
        heard = "\n".join(await lines_of(*dump))
        digits = "".join(c for c in heard.lower() if c in "0123456789abcdef")
        raw = secret.encode()
        assert not [raw[i:i + 4].hex() for i in range(len(raw) - 3)
                    if raw[i:i + 4].hex() in digits], (lead, heard)
        assert not [secret[i:i + 4] for i in range(len(secret) - 3) if secret[i:i + 4] in heard]


async def test_stderr_ended_by_our_kill_hides_a_secret_s_start() -> None:
    """R36-6: stdout past ``max_output_bytes`` stops the program; what it was writing to
    stderr then ends in the middle, and a secret's start held back (shorter than a piece of
    one is known by) was sent as it was. Such an end is read as a cut."""
    from toolhost.redaction import remember

    secret = "kR36Zq-stderr-secret-77"
    remember({secret})
    for k in range(2, 10):
        heard: list[str] = []

        async def on_line(text: str, heard: list[str] = heard) -> None:
            heard.append(text)

        splitter = StderrLines(on_line)
        await splitter.feed(b"using " + secret[:k].encode())
        await splitter.end(cut=True)
        assert heard == ["using ***"], (k, heard)
    # a program that ends on its own: its end is what it wrote (no secret there)
    assert await lines_of(b"using kR36") == ["using kR36"]


async def test_a_program_stopped_at_the_output_cap_shows_no_secret_start(
        tmp_path: Path) -> None:
    from toolhost.backends.process import run_process
    from toolhost.redaction import remember

    secret = "kR36Zq-cap-secret-value-88"
    remember({secret})
    heard: list[str] = []

    async def on_line(text: str) -> None:
        heard.append(text)

    # the start of the secret to stderr, then stdout past the cap: the run is stopped
    code = ("import sys, time; sys.stderr.write('using ' + sys.argv[1]); sys.stderr.flush();"
            " sys.stdout.write('x' * 100000); sys.stdout.flush(); time.sleep(30)")
    outcome = await run_process([sys.executable, "-c", code, secret[:6]], stdin=None,
                                env=dict(os.environ), cwd=str(tmp_path),
                                max_output_bytes=1000, on_stderr=on_line)
    assert outcome.truncated
    assert heard == ["using ***"], heard

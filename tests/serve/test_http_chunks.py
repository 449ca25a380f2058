"""Our own reading of a chunked body's framing (``ChunkScan``) finds the same thing however
the bytes are cut into packets: the size a chunk announces, and a trailer section a proxy in
front may read otherwise (a bare LF, an obs-fold), also split one byte at a time."""

from __future__ import annotations

import pytest

from toolhost.serve.http_chunks import ChunkScan

BODY = b'{"jsonrpc":"2.0"}'
HEAD = b"%x\r\n" % len(BODY) + BODY + b"\r\n"
NEXT = b"POST /mcp HTTP/1.1\n\n"  # a pipelined request (bare LF): not the body's to judge

CASES = [
    (HEAD + b"0\r\n\r\n" + NEXT, None),
    (HEAD + b"0;ext=1 \r\nx-sum: 1\r\nx-b: 2\r\n\r\n" + NEXT, None),
    (b"1;a\r\nx\r\n00\r\n\r\n", None),
    (HEAD + b"0\r\nx-t: 1\n\r\n", "bare LF"),
    (HEAD + b"0\r\nx-t: 1\r\nx-u: 2\n\n", "bare LF"),
    (HEAD + b"0\r\n\n", "ends with a bare LF"),
    (HEAD + b"0\r\nx-t: 1\r\n 2\r\n\r\n", "obs-fold"),
    (HEAD + b"0\r\nx-t: 1\r\n\t2\r\n\r\n", "obs-fold"),
]


def fed(pieces: list[bytes]) -> ChunkScan:
    scan = ChunkScan()
    for piece in pieces:
        scan.feed(piece)
    return scan


@pytest.mark.parametrize(("data", "fault"), CASES)
def test_every_cut_of_the_bytes_reads_alike(data: bytes, fault: str | None) -> None:
    cuts = [[data], [bytes([b]) for b in data]]
    cuts += [[data[:at], data[at:]] for at in range(1, len(data))]
    for pieces in cuts:
        scan = fed(pieces)
        assert scan.done, pieces
        if fault is None:
            assert scan.fault is None, pieces
        else:
            assert scan.fault is not None and fault in scan.fault, (pieces, scan.fault)


def test_the_size_a_chunk_announces_is_known_before_its_data() -> None:
    scan = fed([b"5\r\nab", b"c", b"de\r\n1000000", b"0000000000\r\n"])
    assert scan.announced == 2**64 and not scan.done
    assert fed([b"ffff;x=y\r\n"]).announced == 0xffff
    assert fed([b"5\r\nhello\r\n"]).announced == 0  # between chunks


@pytest.mark.parametrize("data", [
    b"zz\r\n", b"-5\r\n", b"5\nhello", b"1" * 2000, b"5\r\nhello\r\n0\r\n" + b"x: y\r\n" * 4000,
])
def test_what_h11_refuses_is_left_to_it(data: bytes) -> None:
    scan = fed([data])
    assert scan.done and scan.fault is None and scan.announced == 0

"""``toolhost`` with h11's chunked-body reader wrapped so its state is out of sight (as an h11
release that renames or restructures it would leave it): the server's own checks of a
chunked body (a chunk too large, trailers a proxy may read otherwise) must hold without
reading h11's private state."""

from __future__ import annotations

import sys
from typing import Any

import h11
from h11 import _readers

from toolhost.cli import main


class HiddenChunks:
    """h11's reader behind a wrapper: no ``_bytes_in_chunk``, ``_reading_trailer``..."""

    def __init__(self) -> None:
        self.__inner = _readers.ChunkedReader()

    def __call__(self, buf: Any) -> Any:
        return self.__inner(buf)

    def read_eof(self) -> Any:
        return self.__inner.read_eof()


if __name__ == "__main__":
    bodies: Any = _readers.READERS[h11.SEND_BODY]
    bodies["chunked"] = HiddenChunks
    sys.exit(main(sys.argv[1:]))

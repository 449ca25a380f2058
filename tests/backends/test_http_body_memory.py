"""A response body of control characters or combining marks is read in bounded memory when
the server has a secret to hide: the look for a secret between what a reader does not see
(``redaction.confusable.unseen``) once held ~150 bytes per control character (a 5 MB body of
them: 730 MB) and ~40 per place it kept. Real local HTTP server; memory is the tracemalloc
peak of the call, never a timing."""

from __future__ import annotations

import dataclasses
import tracemalloc
from typing import Any

import pytest

from toolhost.redaction.confusable import unseen

from .test_http import Config, api, http, run

MIB = 1 << 20
TOKEN = "sekr3tTok-XYZ-0123456789"
SIZE = 2_000_000


@pytest.mark.anyio
@pytest.mark.parametrize("body", [b"\x01\x1b" * (SIZE // 2), b"\x00" * SIZE,
                                  b"ab\x7f" * (SIZE // 3)], ids=["ctl-esc", "nul", "del"])
async def test_a_body_of_controls_is_read_in_bounded_memory(config: Config, server: Any,
                                                            body: bytes) -> None:
    server.raw["ctl"] = (body + TOKEN.encode(), {"Content-Type": "text/plain"})
    auth = {"type": "bearer", "token": TOKEN}
    cfg = dataclasses.replace(config({"get": http("raw/ctl")}, defaults=api(server, auth=auth)),
                              secrets=frozenset({TOKEN}))  # as a ${VAR} token is
    tracemalloc.start()
    try:
        result = await run(cfg, "get", {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not result.is_error and TOKEN not in result.text_content
    # the body as bytes, as text and a few copies: far from 75 times its size
    assert peak < 40 * MIB, f"{peak / MIB:.0f} MiB held for a {len(body):,}-byte body"


@pytest.mark.parametrize(("text", "kept"), [
    ("a\u0301" * 500_000, "a" * 500_000),  # a combining mark after each letter
    ("ab\x7f" * 500_000, "ab" * 500_000),  # a control character after each two
    ("\x01\x1b" * 500_000 + "\x01z", "z"),  # one run of controls
], ids=["marks", "del", "run"])
def test_the_places_kept_are_compact(text: str, kept: str) -> None:
    tracemalloc.start()
    try:
        found = unseen(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found is not None
    bare, where = found
    assert bare == kept and len(where) == len(kept) + 1 and where[-1] == len(text)
    assert "".join(text[where[k]] for k in range(0, len(kept), 1000)) == kept[::1000]
    assert peak < 16 * len(text), f"{peak / len(text):.0f} bytes a character"

"""The loopback ``Origin`` check (DNS rebinding) passes one loopback origin as a browser
writes it (``http(s)://host[:port]``) and nothing that merely starts like one: a list of
origins, a path, user info, a bad port, spaces or tabs (the host was read as the first name
in the value, so ``http://127.0.0.1:1, http://evil.example`` passed)."""

from __future__ import annotations

import pytest

from toolhost.serve.http_gate import Gate, loopback_origin

PASS = ["http://localhost", "http://localhost:8765", "https://127.0.0.1:8765",
        "http://[::1]:8765", "http://LOCALHOST:8765", "http://127.0.0.1"]
REFUSED = ["http://127.0.0.1:8765, http://evil.example", "http://127.0.0.1:8765 http://evil.example",
           "http://localhost,evil.example", "http://localhost:8765/x", "http://localhost/",
           "http://localhost:8765@evil.example", "http://evil@localhost:8765",
           "http://localhost:99999", "http://localhost:port", "http://localhost:8765?x",
           "http://localhost:8765#x", "http://localhost\t", "ftp://localhost", "file://",
           "null", "", "localhost", "//localhost:8765", "http://localhost.:8765",
           "http://127.0.0.1.evil.example", "http://localhost\u00e9:1"]


@pytest.mark.parametrize("origin", PASS)
def test_one_loopback_origin_passes(origin: str) -> None:
    assert loopback_origin(origin)


@pytest.mark.parametrize("origin", REFUSED)
def test_what_merely_starts_like_a_loopback_origin_is_refused(origin: str) -> None:
    assert not loopback_origin(origin)
    gate = Gate(path="/mcp", bind="127.0.0.1", token=None, allowed_origins=(),
                allowed_hosts=(), auth=None)
    assert not gate.origin_allowed(origin)


def test_an_allowed_origin_still_passes_as_named() -> None:
    gate = Gate(path="/mcp", bind="127.0.0.1", token=None,
                allowed_origins=("https://app.example",), allowed_hosts=(), auth=None)
    assert gate.origin_allowed("https://app.example")
    assert not gate.origin_allowed("https://app.example, http://evil.example")

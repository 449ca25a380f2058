"""An HTTP body cut by toolhost (the error excerpt, the response cap) never shows part of a
secret: it is hidden before the excerpt is cut, and a cap's edge inside one is ``***``."""

from __future__ import annotations

import httpx
import pytest

from toolhost.backends.http_response import EXCERPT, map_response
from toolhost.redaction import remember

TOKEN = "sekr3tTok-XYZ-0123456789"


def _mapped(status: int, body: bytes, truncated: bool, content_type: str) -> str:
    request = httpx.Request("GET", "http://127.0.0.1/x")
    response = httpx.Response(status, headers={"content-type": content_type}, content=body,
                              request=request)
    result = map_response(response, body, truncated, method="GET", select="",
                          expression=None, arguments={}, cap=len(body))
    return str(result.content[0]["text"])


@pytest.mark.parametrize("shift", range(0, len(TOKEN) + 2, 3))
def test_an_error_excerpt_is_cut_after_the_secret_is_hidden(shift: int) -> None:
    remember({TOKEN})
    body = ("x" * (EXCERPT - shift) + "Authorization: Bearer " + TOKEN + " end").encode()
    text = _mapped(500, body, False, "text/html")
    assert all(TOKEN[i:i + 5] not in text for i in range(len(TOKEN) - 4))


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-unknown"])
@pytest.mark.parametrize("keep", range(1, len(TOKEN)))
def test_a_body_cut_at_the_cap_inside_a_secret_ends_hidden(keep: int, content_type: str) -> None:
    remember({TOKEN})
    text = _mapped(200, ("x" * 50 + TOKEN[:keep]).encode(), True, content_type)
    # (one character alone is not hidden: it would hide every line's last character)
    assert text.split("\n")[0] == "x" * 50 + ("***" if keep >= 2 else TOKEN[:1])


def test_a_body_cut_inside_a_character_is_still_text() -> None:
    body = "x" * 10 + "é"
    text = _mapped(200, body.encode()[:-1], True, "application/x-unknown")
    assert text.startswith("x" * 10 + "\n[toolhost: the response passed")

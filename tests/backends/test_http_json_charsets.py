"""An HTTP JSON response is read in the charset it declares: ``charset=iso-8859-1`` (or
windows-1252, ...) was read as UTF-8 and the whole answer was "not valid JSON"; UTF-8 (with or
without a byte order mark), UTF-16 and UTF-32 are found from the bytes, as JSON says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Server
from .test_http import api, http
from .test_http import run as run_http

Config = Callable[..., Any]

BODIES = [
    ("iso-8859-1", '{"n": "café"}'.encode("latin-1"), {"n": "café"}),
    ("windows-1252", '{"n": "€ 5"}'.encode("cp1252"), {"n": "€ 5"}),
    ("ISO-8859-15", '{"n": "€"}'.encode("iso-8859-15"), {"n": "€"}),
    ("utf-8", b'\xef\xbb\xbf{"n": "caf\xc3\xa9"}', {"n": "café"}),
    ("utf-16", '{"n": "café"}'.encode("utf-16"), {"n": "café"}),
    ("", '{"n": "café"}'.encode("utf-32"), {"n": "café"}),
    ("no-such-charset", '{"n": "café"}'.encode(), {"n": "café"}),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("charset", "body", "value"), BODIES)
async def test_the_declared_charset_is_honoured(config: Config, server: Server, charset: str,
                                                body: bytes, value: Any) -> None:
    kind = "application/json" + (f"; charset={charset}" if charset else "")
    server.raw["doc"] = (body, {"Content-Type": kind})
    result = await run_http(config({"get": http("raw/doc")}, defaults=api(server)), "get", {})
    assert not result.is_error and result.structured == value, result.text_content


@pytest.mark.anyio
async def test_a_body_not_in_its_charset_is_a_one_line_error(config: Config,
                                                             server: Server) -> None:
    server.raw["doc"] = ('{"n": "café"}'.encode(), {"Content-Type":
                                                    "application/json; charset=ascii"})
    result = await run_http(config({"get": http("raw/doc")}, defaults=api(server)), "get", {})
    assert result.is_error and result.text_content.startswith(
        "The response is not valid JSON ('ascii' codec can't decode byte 0xc3")
    assert len(result.text_content.splitlines()) == 1

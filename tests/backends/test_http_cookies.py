"""HTTP tools keep no cookies: a ``Set-Cookie`` in one call's answer is not sent with a later
call, by the same tool or another tool of the server; a declared ``Cookie`` header is sent."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools

from .test_http import Config, api, http


@pytest.mark.anyio
async def test_a_set_cookie_is_not_kept_across_calls_or_tools(config: Config,
                                                              server: Any) -> None:
    server.raw["login"] = (b"ok", {"Set-Cookie": "session=s3cr3t; Path=/"})
    server.raw["wide"] = (b"ok", {"Set-Cookie": "wide=1; Path=/; Domain=127.0.0.1"})
    cfg = config({"login": http("raw/login"), "wide": http("raw/wide"),
                  "other": http("echo"),
                  "declared": http("echo", options={"headers": {"Cookie": "mine=1"}})},
                 defaults=api(server))
    async with compile_tools(cfg) as compiled:
        for name in ("login", "wide", "login", "other", "declared"):
            result = await compiled.tool("demo", name).call({}, CallContext())
            assert not result.is_error, result.text_content
    cookies = [seen.headers.get("cookie") for seen in server.seen]
    assert cookies == [None, None, None, None, "mine=1"], cookies

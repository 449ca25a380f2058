"""A value inside a URL the config began: it may not move the host (``https://{{ sub
}}.example.com`` with ``evil.test/`` or ``x@evil.test#``), nor make curl fetch many URLs
(``[1-100000]``) unless the argv passes ``-g`` (backends24)."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from .conftest import Server
from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("url", "value"), [
    ("https://{{ v }}.example.com/x", "evil.test/"),
    ("https://{{ v }}.example.com/x", "x@evil.test#"),
    ("https://{{ v }}.example.com/x", "evil.test\\"),
    ("https://{{ v }}.example.com/x", "evil.test?"),
    ("https://api.example.com:{{ v }}/x", "443@evil.test"),
    ("https://user:{{ v }}@api.example.com/x", "pw@evil.test/"),
    ("--url=https://{{ v }}.example.com/x", "evil.test/"),
    # (backends25) a value that ends the host the config began chooses the domain
    ("https://api.example.com{{ v }}", ".evil.test"),
    ("https://api-{{ v }}/x", "x.evil.test"),
    ("https://api.example.{{ v }}/x", "com\u3002evil.test"),  # IDNA reads it as '.'
    ("https://api.example.com:{{ v }}/x", "8443.evil.test"),
    ("https://api.example.com{{ v }}", ":8443"),
])
async def test_a_value_never_moves_the_host_of_a_url(config: Config, url: str,
                                                    value: str) -> None:
    result = await run(config({"t": cmd(["echo", url])}), "t", {"v": value})
    assert result.is_error, result.text_content
    assert "host part of the URL" in result.text_content, result.text_content


@pytest.mark.parametrize(("argv", "value", "sent"), [
    (["echo", "https://{{ v }}.example.com/x"], "team-1", "https://team-1.example.com/x"),
    (["echo", "https://api.example.com/{{ v }}"], "a/b?c#d@e", "https://api.example.com/a/b?c#d@e"),
    (["echo", "{{ v }}"], "https://a.test/[1-2]", "https://a.test/[1-2]"),  # the whole URL
    (["echo", "https://{{ v }}/x"], "a.test:8080", "https://a.test:8080/x"),
    (["echo", "https://api.example.com/{{ v }}"], "[1-2]", "https://api.example.com/[1-2]"),
    (["echo", "https://api-{{ v }}.example.com/x"], "eu1", "https://api-eu1.example.com/x"),
    (["echo", "https://api-{{ v }}/x"], "eu1", "https://api-eu1/x"),
    (["echo", "https://api.example.com:{{ v }}/x"], "8443", "https://api.example.com:8443/x"),
])
async def test_values_that_keep_the_host_still_run(config: Config, argv: list[str],
                                                   value: str, sent: str) -> None:
    result = await run(config({"t": cmd(argv)}), "t", {"v": value})
    assert not result.is_error, result.text_content
    assert result.text_content.strip() == sent


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
async def test_a_value_never_makes_curl_glob(config: Config, server: Server) -> None:
    url = f"{server.url}/api/echo/{{{{ v }}}}"
    refused = await run(config({"t": cmd(["curl", "-sS", url])}), "t", {"v": "[1-50]"})
    assert refused.is_error and "many URLs" in refused.text_content, refused.text_content
    assert server.seen == []
    data: Any = {"t": cmd(["curl", "-sS", "-d", "{{ v }}", f"{server.url}/api/echo"])}
    ok = await run(config(data), "t", {"v": '{"a": [1]}'})  # JSON data: no URL
    assert not ok.is_error, ok.text_content
    off = await run(config({"t": cmd(["curl", "-sSg", url])}), "t", {"v": "[1-50]"})
    assert not off.is_error, off.text_content
    assert len(server.seen) == 2  # the data call and one URL, sent as written

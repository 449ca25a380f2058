"""A value's CR/LF in what curl or wget writes into the request head: curl -H "X-Trace:
{{ id }}" sent headers and a second request the config never wrote (backends27)."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from toolhost.backends.head_values import head_break

from .conftest import Server
from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

SMUGGLED = "1\r\nX-Injected: yes\r\n\r\nGET /api/admin HTTP/1.1\r\nHost: internal\r\nX-B: "


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
@pytest.mark.parametrize("argv", [
    ["-H", "X-Trace: {{ v }}"],
    ["-sH", "X-Trace: {{ v }}"],
    ["-HX-Trace: {{ v }}"],
    ["--header", "X-Trace: {{ v }}"],
    ["--proxy-header", "X-Trace: {{ v }}"],
    ["-A", "agent/{{ v }}"],
    ["--user-agent", "{{ v }}"],
    ["-e", "{{ v }}"],
    ["-b", "s={{ v }}"],
    ["-X", "GET{{ v }}"],
    ["--request-target", "/api/echo{{ v }}"],
    ["--oauth2-bearer", "{{ v }}"],
    ["--silent", "--header", "X-Trace: {{ v }}"],  # a flag before: not a body option's
])
async def test_a_value_never_breaks_curls_request_head(config: Config, server: Server,
                                                      argv: list[str]) -> None:
    full = ["curl", "-sS", "--max-time", "10", *argv, f"{server.url}/api/echo"]
    result = await run(config({"t": cmd(full)}), "t", {"v": SMUGGLED})
    assert result.is_error
    assert "line break (CR or LF)" in result.text_content, result.text_content
    assert not server.seen  # nothing was sent


@pytest.mark.skipif(shutil.which("wget") is None, reason="needs wget")
async def test_a_value_never_breaks_wgets_request_head(config: Config,
                                                      server: Server) -> None:
    full = ["wget", "-q", "-O-", "--timeout=10", "--referer={{ v }}", f"{server.url}/api/echo"]
    result = await run(config({"t": cmd(full)}), "t", {"v": SMUGGLED})
    assert "line break (CR or LF)" in result.text_content, result.text_content
    assert not server.seen


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
@pytest.mark.parametrize("argv", [
    ["-d", "{{ v }}"], ["--data-binary", "{{ v }}"], ["--data-r", "{{ v }}"],
    ["-sd{{ v }}"], ["--compressed", "-F", "doc={{ v }}"], ["--json", "{{ v }}"],
])
async def test_line_breaks_in_a_body_still_run(config: Config, server: Server,
                                               argv: list[str]) -> None:
    full = ["curl", "-sS", "--max-time", "10", *argv, f"{server.url}/api/echo"]
    result = await run(config({"t": cmd(full)}), "t", {"v": "line 1\r\nline 2\n"})
    assert not result.is_error, result.text_content
    assert b"line 1\r\nline 2" in server.seen[-1].body


@pytest.mark.parametrize(("out", "valued", "found"), [
    (["curl", "-H", "X: a\nb", "u"], [(2, 3)], "X: a\nb"),
    (["curl", "-H", "X: a\nb", "u"], [(2, 5)], None),  # the config wrote the line break
    (["curl", "u", "a\rb"], [(2, 0)], "a\rb"),  # an operand (another URL)
    (["curl", "-d", "a\nb", "u"], [(2, 0)], None),
    (["curl", "-d", "-d", "a\nb", "u"], [(3, 0)], "a\nb"),  # -d's data is "-d"
    (["curl", "-H", "-da\nb", "u"], [(2, 0)], "-da\nb"),  # a header, not a -d
    (["curl", "--data-urlencode", "q=a\nb", "u"], [(2, 2)], None),
    (["timeout", "5", "curl", "-A", "a\nb", "u"], [(4, 0)], "a\nb"),
    (["git", "commit", "-m", "a\nb"], [(3, 0)], None),  # another program's option
    (["wget", "--post-data=a\nb", "u"], [(1, 12)], None),
    (["wget", "--post-d", "a\nb", "u"], [(2, 0)], None),
    (["wget", "--header=X: a\nb", "u"], [(1, 12)], "--header=X: a\nb"),
    (["wget", "--post-data", "x", "a\nb"], [(3, 0)], "a\nb"),
    # php -d: the CLI appends KEY=VALUE and a newline to the INI text it parses
    (["php", "-d", "memory_limit=1\nauto_prepend_file=/x", "s.php"], [(2, 13)],
     "memory_limit=1\nauto_prepend_file=/x"),
    (["php8.2", "-dmemory_limit=1\nx=1", "s.php"], [(1, 15)], "-dmemory_limit=1\nx=1"),
    (["php", "-d", "memory_limit=1", "s.php", "a\nb"], [(4, 0)], None),  # the script's
])
def test_which_arguments_reach_the_request_head(out: list[str], valued: list[Any],
                                                found: str | None) -> None:
    assert head_break(out, valued) == found

"""Header fields a config writes (a server's, an external or imported server's) are checked
at load: a token for a name, one line of printable ASCII for a value."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

SERVERS = {
    "server": "  h:\n    base_url: http://127.0.0.1:1/\n    headers: {{{h}}}\n"
              "    tools:\n      t: {{http: {{url: x}}}}\n",
    "external": "  h:\n    external: {{type: http, url: 'http://127.0.0.1:1/',\n"
                "      headers: {{{h}}}}}\n",
    "imported": "  h:\n    mcp: {{url: 'http://127.0.0.1:1/mcp', headers: {{{h}}}}}\n",
}


@pytest.mark.parametrize("where", SERVERS)
@pytest.mark.parametrize(("header", "message"), [
    ('X-Val: "caf\\u00e9"', "printable ASCII, and this one holds U+00E9"),
    ('X-Val: "a\\nb"', "printable ASCII, and this one holds U+000A"),
    ('X-Val: "\\u2028"', "U+2028"),
    ('"Bad Name": ok', "not a valid header name"),
    ('"X:Y": ok', "not a valid header name"),
])
def test_a_header_no_request_could_carry_is_a_located_problem(
        write: Any, kinds: Any, where: str, header: str, message: str) -> None:
    main = write("h.yaml", "toolhost: 1\nservers:\n" + SERVERS[where].format(h=header))
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ={}, layers=False)
    found = [p for p in info.value.problems if message in p.message]
    assert found, info.value.problems
    assert found[0].line == {"server": 5, "external": 5, "imported": 4}[where]


def test_a_secret_header_value_is_not_echoed(write: Any, kinds: Any) -> None:
    main = write("h.yaml", "toolhost: 1\nservers:\n" + SERVERS["server"].format(
        h='X-Tok: "${TOKY}", X-Ok: "plain; q=1"'))
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ={"TOKY": "s\u00e9cret-value"}, layers=False)
    (problem,) = info.value.problems
    assert "cret-value" not in str(problem) and problem.key_path == "servers.h.headers.X-Tok"


@pytest.mark.parametrize(("auth", "key"), [
    ('{type: bearer, token: "${SVC_TOKEN}"}', "token"),
    ('{type: header, name: X-Key, value: "${SVC_TOKEN}"}', "value"),
])
@pytest.mark.parametrize("value", ["s\u00e9cretTOKEN1", "tok\nen-value", "tok\x7fen-value"])
def test_an_auth_value_sent_as_a_header_is_checked_like_headers(
        write: Any, kinds: Any, auth: str, key: str, value: str) -> None:
    main = write("a.yaml", "toolhost: 1\nservers:\n  h:\n    base_url: http://127.0.0.1:1/\n"
                 f"    auth: {auth}\n    tools:\n      t: {{http: {{url: x}}}}\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ={"SVC_TOKEN": value}, layers=False)
    (problem,) = info.value.problems
    assert "printable ASCII" in problem.message and problem.key_path == f"servers.h.auth.{key}"
    assert "cret" not in str(problem) and "en-value" not in str(problem)


def test_a_basic_auth_password_may_be_any_text(write: Any, kinds: Any) -> None:
    # base64-encoded into the header: any character can be sent
    main = write("b.yaml", "toolhost: 1\nservers:\n  h:\n    base_url: http://127.0.0.1:1/\n"
                 "    auth: {type: basic, username: bot, password: \"${PW}\"}\n"
                 "    tools:\n      t: {http: {url: x}}\n")
    config = load_config(main, kinds=kinds, environ={"PW": "s\u00e9cret-pw"}, layers=False)
    assert "s\u00e9cret-pw" in config.secrets

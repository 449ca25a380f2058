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

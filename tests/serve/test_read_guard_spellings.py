"""The read guard asks the rules about what a URI means to a server that decodes it its own
way: dot-segments in any spelling (``..``, ``%2e%2e``, ``..%2f``, ``%2e./``, backslashes,
double encoding) cannot walk past a deny; and a URI is judged as the server that owns it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.permissions.decision import Decision
from toolhost.serve.guard import read_guard


class SecretDenied:
    """A gate denying reads below notes://kb/secret/ (as a glob rule would), and recording
    what it was asked."""

    def __init__(self) -> None:
        self.asked: list[Mapping[str, Any]] = []

    async def check(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        self.asked.append(tool_input)
        if str(tool_input["uri"]).startswith("notes://kb/secret/"):
            return Decision("deny", message="secret notes are off limits")
        if tool_input["server"] == "h":
            return Decision("deny", message="nothing from h")
        return Decision("allow")


def _spell(char: str, how: int) -> str:
    if char == "/" and how == 3:
        return "\\"
    if how == 0:
        return char
    once = f"%{ord(char):02X}" if how != 2 else f"%{ord(char):02x}"
    return once if how in (1, 2) else once.replace("%", "%25")


SPELLING = st.lists(st.integers(0, 4), min_size=3, max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.lists(SPELLING, min_size=1, max_size=3), st.sampled_from(["public", "a/b", "x"]))
def test_no_spelling_of_dot_segments_walks_past_a_deny(ups: list[list[int]], start: str) -> None:
    # start/ + (../ spelled)*depth + secret/payroll, with enough ups to leave ``start``
    depth = start.count("/") + 1
    steps = [ups[i % len(ups)] for i in range(depth)]
    path = "".join(_spell(".", a) + _spell(".", b) + _spell("/", c) for a, b, c in steps)
    uri = f"notes://kb/{start}/{path}secret/payroll"
    gate = SecretDenied()
    refused = anyio.run(read_guard(gate, "notes"), uri)
    assert refused is not None, (uri, gate.asked)


@given(st.text(alphabet="abc/.%25\\", max_size=40))
def test_resolved_is_a_fixed_point(tail: str) -> None:
    from toolhost.compile.resource_uri import resolved

    once = resolved("notes://kb/" + tail)
    if once is not None:
        assert resolved(once) == once


def test_a_uri_encoded_over_and_over_is_refused() -> None:
    from toolhost.compile.resource_uri import resolved

    uri = "notes://kb/" + "%25" * 1 + "25" * 12 + "2e"
    assert resolved(uri) is None
    assert "encoded over and over" in str(anyio.run(read_guard(SecretDenied(), "n"), uri))


def test_the_owner_of_the_uri_is_the_server_the_rules_see() -> None:
    gate = SecretDenied()
    guard = read_guard(gate, "toolhost", lambda uri: "h" if uri.startswith("h://") else None)
    assert anyio.run(guard, "h://thing") == "nothing from h"
    assert anyio.run(guard, "kb://thing") is None
    assert {a["server"] for a in gate.asked} == {"h", "toolhost"}

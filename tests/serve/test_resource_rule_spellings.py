"""``toolhost serve`` (a real process): a deny rule on a resource URI holds however the RULE
spells the URI: as the config declares it (an upper-case scheme), as ``resources/list``
shows it, with lower-case hex (``%2f``), an escaped unreserved character (``%7E``) or
dot-segments. Reads are decided on the canonical spelling, and so are the rules' URIs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .stdio_peer import StdioPeer, stdio_peer

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      echo:
        command: [echo, "--", "{{ text }}"]
        params: {text: {type: string}}
    resources:
      notes:
        directory: data
        uri: "Notes://kb"
      ticket:
        uri: "tickets://{id}"
        command: [echo, "--", "ticket {{ id }}"]
permissions:
  default: deny
  allow:
    - tool: ReadMcpResourceTool
      when: {server: kb}
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "Notes://kb/secret*"}}
      message: off limits (scheme)
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "NOTES://kb/%7Etilde*"}}
      message: off limits (tilde)
    - tool: ReadMcpResourceTool
      when: {uri: {equals: "notes://kb/x/../%70ay.md"}}
      message: off limits (dots)
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "tickets://a%2fb*"}}
      message: off limits (hex)
    - tool: ReadMcpResourceTool
      when: {uri: {one_of: ["Tickets://%43-1", "tickets://c%2f2"]}}
      message: off limits (one_of)
    - tool: ReadMcpResourceTool
      when: {uri: "TICKETS://%64-3"}
      message: off limits (plain)
"""


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("rulespell")
    (root / "data").mkdir()
    for name in ("public.md", "secret.md", "~tilde.md", "pay.md"):
        (root / "data" / name).write_text(f"TEXT OF {name}\n")
    (root / "res.yaml").write_text(CONFIG)
    with stdio_peer(root / "res.yaml") as the_peer:
        yield the_peer


DENIED = [
    ("Notes://kb/secret.md", "scheme"), ("notes://kb/secret.md", "scheme"),
    ("NOTES://kb/%73ecret.md", "scheme"), ("notes://kb/%7Etilde.md", "tilde"),
    ("notes://kb/~tilde.md", "tilde"), ("Notes://kb/%7etilde.md", "tilde"),
    ("notes://kb/pay.md", "dots"), ("notes://kb/%70ay.md", "dots"),
    ("notes://kb/a/../pay.md", "dots"), ("tickets://a%2fb", "hex"), ("tickets://a%2Fb", "hex"),
    ("TICKETS://a%2fbcd", "hex"), ("tickets://C-1", "one_of"), ("tickets://%43-1", "one_of"),
    ("tickets://c%2F2", "one_of"), ("tickets://d-3", "plain"), ("Tickets://%64-3", "plain"),
]


@pytest.mark.parametrize("uri, which", DENIED)
def test_a_rule_holds_however_it_spells_the_uri(peer: StdioPeer, uri: str,
                                                which: str) -> None:
    answer = peer.ask(uri, "resources/read", {"uri": uri})
    assert answer.get("error", {}).get("code") == -32600, answer
    assert f"off limits ({which})" in answer["error"]["message"]
    assert "TEXT OF" not in str(answer)


@pytest.mark.parametrize("uri", ["notes://kb/public.md", "Notes://kb/%70ublic.md",
                                 "tickets://a-b", "tickets://C-2"])
def test_other_resources_still_read(peer: StdioPeer, uri: str) -> None:
    answer = peer.ask(f"ok-{uri}", "resources/read", {"uri": uri})
    assert "result" in answer, answer


def test_resources_list_shows_the_canonical_spelling(peer: StdioPeer) -> None:
    answer = peer.ask("list", "resources/list", {})
    uris = sorted(r["uri"] for r in answer["result"]["resources"])
    # the canonical spelling (the config wrote Notes://kb); the denied ones are not listed,
    # whichever spelling their rule used
    assert uris == ["notes://kb/public.md"]

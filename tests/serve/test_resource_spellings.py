"""``toolhost serve`` (a real process): a deny rule on a resource URI holds for every way of
spelling the URI (percent-escapes, dot-segments, case of the scheme and of hex digits)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .kb_config import KB_HEAD
from .stdio_peer import StdioPeer, stdio_peer

CONFIG = KB_HEAD + """\
    resources:
      notes:
        directory: data
        uri: "notes://kb"
      ticket:
        uri: "tickets://{id}"
        command: [echo, "ticket {{ id }}"]
permissions:
  default: deny
  allow:
    - tool: ReadMcpResourceTool
      when: {server: kb}
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "notes://kb/secret*"}}
      message: secret notes are off limits
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "tickets://T-1*"}}
      message: ticket T-1 is off limits
"""


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("spell")
    (root / "data").mkdir()
    (root / "data" / "public.md").write_text("public notes\n")
    (root / "data" / "secret.md").write_text("TOP SECRET PAYROLL\n")
    (root / "res.yaml").write_text(CONFIG)
    with stdio_peer(root / "res.yaml") as the_peer:
        yield the_peer


@pytest.mark.parametrize("uri", [
    "notes://kb/secret.md", "notes://kb/%73ecret.md", "notes://kb/%73%65%63ret.md",
    "notes://kb/secret%2emd", "notes://kb/./secret.md", "notes://kb/data/../secret.md",
    "notes://kb/%2E/secret.md", "notes://kb/a%2F..%2Fsecret.md", "Notes://kb/secret.md",
    "tickets://T-1", "tickets://%54-1", "tickets://%54%2d1", "tickets://T-10",
])
def test_a_denied_resource_is_denied_however_spelled(peer: StdioPeer, uri: str) -> None:
    answer = peer.ask(uri, "resources/read", {"uri": uri})
    assert answer["error"]["code"] == -32600, answer
    assert "off limits" in answer["error"]["message"]
    assert "PAYROLL" not in str(answer)


@pytest.mark.parametrize("uri, text", [
    ("notes://kb/public.md", "public notes\n"), ("notes://kb/%70ublic.md", "public notes\n"),
    ("tickets://T-2", "ticket T-2\n"), ("tickets://%54-2", "ticket T-2\n"),
])
def test_allowed_resources_read_under_any_spelling(peer: StdioPeer, uri: str,
                                                   text: str) -> None:
    answer = peer.ask(uri, "resources/read", {"uri": uri})
    assert answer["result"]["contents"][0]["text"] == text


def test_escapes_outside_the_root_stay_refused(peer: StdioPeer) -> None:
    for n, uri in enumerate(["notes://kb/../res.yaml", "notes://kb/%2e%2e/res.yaml",
                             "notes://kb/a%2F..%2F..%2Fres.yaml", "notes://kb/%2573ecret.md"]):
        answer = peer.ask(f"out-{n}", "resources/read", {"uri": uri})
        assert answer["error"]["code"] in (-32002, -32600), answer
        assert "PAYROLL" not in str(answer) and "toolhost:" not in str(answer)

"""``toolhost serve`` (a real process): a read of a long URI against templates with several
``{+var}`` is answered at once, and so is the ping sent behind it (no backtracking)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from .kb_config import KB_HEAD
from .stdio_peer import StdioPeer, stdio_peer

CONFIG = KB_HEAD + """\
    resources:
      three:
        uri: "docs://{+org}/{+space}/{+page}.md"
        command: [echo, "{{ space }} {{ page }}"]
      four:
        uri: "wiki://{+a}.{+b}.{+c}.{+d}!"
        command: [echo, "{{ a }}"]
permissions:
  default: allow
"""


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("tplcost")
    (root / "t.yaml").write_text(CONFIG)
    with stdio_peer(root / "t.yaml") as the_peer:
        yield the_peer


@pytest.mark.parametrize("uri", [
    "docs://" + "a/" * 4000 + "x", "docs://" + "a/" * 4000 + ".m", "DOCS://" + "%61/" * 2000,
    "wiki://" + "." * 8000, "wiki://" + "a." * 4000,
])
def test_a_long_uri_is_answered_at_once(peer: StdioPeer, uri: str) -> None:
    start = time.monotonic()
    peer.request("read", "resources/read", {"uri": uri})
    peer.request("ping", "ping")
    assert "result" in peer.wait_for("ping", timeout=30)
    answer = peer.wait_for("read", timeout=30)
    assert answer["error"]["code"] == -32002, answer
    assert time.monotonic() - start < 3.0


def test_a_matching_uri_still_reads_its_values(peer: StdioPeer) -> None:
    answer = peer.ask("ok", "resources/read", {"uri": "docs://o/r/g/sp/page.md"})
    assert answer["result"]["contents"][0]["text"] == "sp page\n"

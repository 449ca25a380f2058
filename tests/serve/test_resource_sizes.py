"""A backed resource's read is capped at its ``max_bytes`` whatever its backend returns:
text, an image, or embedded resources (which were not counted, so a python backend could
answer megabytes past the cap). A real ``toolhost serve`` over stdio."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .stdio_peer import StdioPeer, stdio_peer

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      emb:
        uri: "emb://{kind}/{size}"
        python: "content_tools:embedded"
        max_bytes: 1000
permissions: {default: allow}
"""


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("sizes")
    (root / "c.yaml").write_text(CONFIG)
    with stdio_peer(root / "c.yaml") as the_peer:
        yield the_peer


@pytest.mark.parametrize(("kind", "size", "fits"), [
    ("text", 900, True), ("text", 1001, False), ("text", 5_000_000, False),
    ("blob", 900, True), ("blob", 1200, False), ("blob", 3_000_000, False),
    ("many", 200, True), ("many", 300, False),
    ("image", 900, True), ("image", 1200, False),
])
def test_every_kind_of_answer_counts_towards_max_bytes(peer: StdioPeer, kind: str, size: int,
                                                       fits: bool) -> None:
    answer = peer.ask(f"{kind}-{size}", "resources/read", {"uri": f"emb://{kind}/{size}"},
                      timeout=60)
    if fits:
        assert "contents" in answer.get("result", {}), str(answer)[:300]
    else:
        assert "larger than its limit of 1,000 bytes" in str(answer.get("error")), \
            str(answer)[:300]
        assert len(str(answer)) < 1000

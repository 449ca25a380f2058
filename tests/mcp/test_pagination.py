"""A list that changes between two pages (a file added to or removed from a directory
before the point a client reached) neither skips nor repeats an entry: a cursor names the
entry it follows, and the next page starts after it where it is now; an entry gone since
falls back to the offset; a cursor of a list now shorter than it is still answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.mcp.content import ContentMethods, MethodError

from .mcp_testtools import DOCS_CONFIG, content_server

CONFIG = DOCS_CONFIG


def _list(methods: ContentMethods, cursor: str | None) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        return await methods.resources_list({"cursor": cursor} if cursor else {})
    return anyio.run(go)


def _names(page: dict[str, Any]) -> list[str]:
    return [entry["uri"].rsplit("/", 1)[1] for entry in page["resources"]]


@pytest.mark.parametrize(("change", "rest"), [
    (lambda d: (d / "a0.md").write_text("x"), ["c.md", "d.md", "e.md"]),  # added before
    (lambda d: (d / "a.md").unlink(), ["c.md", "d.md", "e.md"]),  # removed before
    (lambda d: (d / "cc.md").write_text("x"), ["c.md", "cc.md", "d.md", "e.md"]),  # after
    (lambda d: (d / "b.md").unlink(), ["d.md", "e.md"]),  # the entry itself: the offset
])
def test_a_change_between_pages_skips_and_repeats_nothing(tmp_path: Path, change: Any,
                                                           rest: list[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md", "d.md", "e.md"):
        (docs / name).write_text(name)
    methods = ContentMethods(content_server(tmp_path, CONFIG).content, page_size=2)
    first = _list(methods, None)
    assert _names(first) == ["a.md", "b.md"]
    change(docs)
    seen, cursor = [], first["nextCursor"]
    while cursor:
        page = _list(methods, cursor)
        seen += _names(page)
        cursor = page.get("nextCursor")
    assert seen == rest


def test_a_cursor_after_the_last_entry_of_a_shrunk_list_is_an_empty_page(
        tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (docs / name).write_text(name)
    methods = ContentMethods(content_server(tmp_path, CONFIG).content, page_size=2)
    cursor = _list(methods, None)["nextCursor"]
    (docs / "c.md").unlink()
    assert _names(_list(methods, cursor)) == []  # b.md was the last: nothing after it
    (docs / "a.md").unlink()
    (docs / "b.md").unlink()
    with pytest.raises(MethodError, match="past the end"):  # b.md gone, offset past the end
        _list(methods, cursor)


@pytest.mark.parametrize("item", [{"uri": "file:///a"}, {"uriTemplate": "db://{t}"},
                                  {"name": "p\udcff"}, {}])
def test_a_cursor_names_its_item_with_blake2b_as_before(item: dict[str, Any]) -> None:
    """The cursor's digest (built-in blake2b, not hashlib's OpenSSL import) is unchanged."""
    import hashlib

    from toolhost.mcp.content import _digest

    named = item.get("uri", item.get("uriTemplate", item.get("name", "")))
    assert _digest(item) == hashlib.blake2b(
        str(named).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()

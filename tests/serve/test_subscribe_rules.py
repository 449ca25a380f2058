"""``toolhost serve`` (a real process, stdio): subscribing is reading. ``resources/subscribe``
and a listen stream's ``resourceSubscriptions`` meet the read rules in the canonical spelling,
accept only URIs a read could serve, and ``resources/unsubscribe`` matches any spelling; a
URI's length is the one the client sent."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.modern import modern_meta
from toolhost.serve.resource_watch import INTERVAL_ENV

from .stdio_peer import StdioPeer, stdio_peer
from .test_resource_spellings import CONFIG  # the same server and rules

MODERN = modern_meta()


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("subrules")
    (root / "data").mkdir()
    (root / "data" / "public.md").write_text("public\n")
    (root / "data" / "secret.md").write_text("TOP SECRET\n")
    (root / "data" / ".hidden").write_text("hidden\n")
    (root / "res.yaml").write_text(CONFIG)
    return root


@pytest.fixture(scope="module")
def peer(root: Path) -> Iterator[StdioPeer]:
    with stdio_peer(root / "res.yaml") as the_peer:
        yield the_peer


@pytest.mark.parametrize("uri", [
    "notes://kb/secret.md", "notes://kb/%73ecret.md", "NOTES://kb/x/../secret.md",
    "notes://kb/%2e/secret.md", "tickets://T-1", "tickets://%54-1",
])
def test_subscribing_to_a_denied_resource_is_denied(peer: StdioPeer, uri: str) -> None:
    answer = peer.ask(f"sub-{uri}", "resources/subscribe", {"uri": uri})
    assert answer.get("error", {}).get("code") == -32600, answer
    assert "off limits" in answer["error"]["message"]


@pytest.mark.parametrize("uri", [
    "notes://kb/no-such-file-0000", "notes://kb/../../etc/passwd", "notes://kb/.hidden",
    "notes://kb/%2e%2e/res.yaml", "notes://kb/data/../../res.yaml", "nothing://at/all",
    "!0-0000",
])
def test_subscribing_to_what_no_read_serves_is_refused(peer: StdioPeer, uri: str) -> None:
    answer = peer.ask(f"unknown-{uri}", "resources/subscribe", {"uri": uri})
    assert answer.get("error", {}).get("code") == -32002, answer


@pytest.mark.parametrize("uri", [
    "notes://kb/secret.md", "notes://kb/no-such-file", "tickets://T-1", "!0-0000",
])
def test_a_listen_stream_meets_the_same_checks(peer: StdioPeer, uri: str) -> None:
    answer = peer.ask(f"listen-{uri}", "subscriptions/listen", {
        "notifications": {"resourceSubscriptions": ["notes://kb/public.md", uri]},
        "_meta": MODERN})
    assert answer.get("error", {}).get("code") in (-32600, -32002), answer


@pytest.mark.parametrize("params", [[1, 2], "x", {"notifications": []},
                                    {"notifications": {"resourceSubscriptions": "notes://kb/x"}}])
def test_a_malformed_listen_is_invalid_params(peer: StdioPeer, params: object) -> None:
    answer = peer.ask(f"bad-{params!r}", "subscriptions/listen", params)
    assert answer.get("error", {}).get("code") == -32602, answer


def _heard_change(peer: StdioPeer, path: Path, uri: str) -> None:
    """Change ``path`` until ``notifications/resources/updated`` for ``uri`` comes (the
    watcher's first look at a URI only takes its stamp)."""
    for count in range(100):
        path.write_text(f"version {count}\n")
        stamp = path.stat().st_mtime_ns + 2_000_000_000  # a coarse clock still sees it
        os.utime(path, ns=(stamp, stamp))
        try:
            peer.wait_for(lambda m: m.get("method") == "notifications/resources/updated"
                          and m.get("params", {}).get("uri") == uri, timeout=0.5)
            return
        except AssertionError:
            continue
    raise AssertionError(f"no update of {uri} heard")


def test_unsubscribe_matches_any_spelling(root: Path) -> None:
    watched = root / "data" / "watched.md"
    watched.write_text("watched\n")
    with stdio_peer(root / "res.yaml", extra_env={INTERVAL_ENV: "0.05"}) as peer:
        assert "result" in peer.ask(1, "resources/subscribe",
                                    {"uri": "notes://kb/%70ublic.md"})
        assert "result" in peer.ask(2, "resources/subscribe", {"uri": "Notes://kb/public.md"})
        assert "result" in peer.ask(3, "resources/unsubscribe",
                                    {"uri": "notes://kb/./public.md"})
        assert "result" in peer.ask(4, "resources/subscribe", {"uri": "notes://kb/watched.md"})
        _heard_change(peer, watched, "notes://kb/watched.md")  # every URI has its stamp
        (root / "data" / "public.md").write_text("changed\n")
        for _ in range(2):  # two later looks of the watcher: public.md is not watched
            _heard_change(peer, watched, "notes://kb/watched.md")
        heard = [m for m in peer.seen if m.get("method") == "notifications/resources/updated"]
        assert heard == []


@pytest.mark.parametrize("uri, sent", [
    ("tickets://" + "é" * 3000, None), ("tickets://" + "é" * 8182, None),
    ("tickets://" + "é" * 9000, 9010), ("tickets://" + "%C3%A9" * 2000, 12010),
])
def test_the_length_refused_is_the_length_sent(peer: StdioPeer, uri: str,
                                               sent: int | None) -> None:
    answer = peer.ask(f"len-{len(uri)}", "resources/read", {"uri": uri})
    if sent is None:
        assert answer["result"]["contents"][0]["text"].startswith("ticket é"), answer
    else:
        assert answer["error"]["message"] == (
            f"Invalid params: 'uri' is {sent:,} characters; at most 8,192"), answer

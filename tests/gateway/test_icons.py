"""An icon an upstream lists (2025-11-25: resources, templates, prompts, resource links) is
passed on only when its image is written into its ``src``: a client fetches any other
``src`` from the person's machine, at a host the upstream chose, when the list is shown."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from toolhost.gateway.bounds import bound_blocks, bound_entry
from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.passthrough import list_content
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE

PNG = {"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png"}
FETCHED = [
    {"src": "https://tracker.example/p.png"}, {"src": "http://169.254.169.254/latest/x"},
    {"src": "http://192.168.1.1/admin.png"}, {"src": "data:image/svg+xml;base64,PHN2Zz4="},
    {"src": "javascript:alert(1)"}, {"src": "file:///etc/passwd"}, {"src": "//evil.example/i"},
    {"src": " data:image/png;base64,AA=="}, {"src": 5}, {"sizes": ["48x48"]}, "x", None,
]


@pytest.mark.parametrize("entry", [
    {"uri": "x://r", "name": "r"}, {"uriTemplate": "x://t/{a}", "name": "t"}, {"name": "p"},
    {"type": "resource_link", "uri": "x://l", "name": "l"}])
def test_only_an_inline_image_is_kept(entry: dict[str, Any]) -> None:
    bounded = bound_entry({**entry, "icons": [*FETCHED, PNG,
                                              {"src": "DATA:IMAGE/JPEG;base64,/9j/"}]})
    assert bounded["icons"] == [PNG, {"src": "DATA:IMAGE/JPEG;base64,/9j/"}]
    assert "icons" not in bound_entry({**entry, "icons": FETCHED})
    assert "icons" not in bound_entry({**entry, "icons": "https://tracker.example/p.png"})


def test_a_resource_link_in_an_answer_keeps_no_fetched_icon() -> None:
    [link] = bound_blocks([{"type": "resource_link", "uri": "x://l", "name": "l",
                            "icons": FETCHED[:3]}])
    assert "icons" not in link


def test_an_upstreams_listed_icons_are_bounded() -> None:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), connect_timeout=20.0,
                        env={"HOSTILE_MODE": "icons"})
    upstream = UpstreamConnection(spec, "h")
    try:
        content = list_content(upstream, "h")
    finally:
        upstream.close()
    [resource] = [e for r in content.resources for e in r.listed()]
    assert resource["icons"] == [PNG]
    assert content.prompts["p"].descriptor()["icons"] == [PNG]

"""Elicitation modes (2025-11-25): a question goes only in a mode the client declared (an
empty ``elicitation: {}`` is form mode only), and a URL-mode question carries only a URL a
person reads as the place the browser goes to (toolhost.mcp.elicit_url)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.mcp.client_requests import CallChannel, ClientChannel, ClientRequestError, Pending
from toolhost.mcp.elicit import elicit
from toolhost.mcp.elicit_url import elicit_url, elicits, id_problem, url_problem

pytestmark = pytest.mark.anyio

FORM = {"type": "object", "properties": {"n": {"type": "integer"}}}


def channel(caps: dict[str, Any], sent: list[dict[str, Any]],
            result: dict[str, Any]) -> ClientChannel:
    pending = Pending()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        pending.resolve({"jsonrpc": "2.0", "id": message["id"], "result": result})

    return ClientChannel(caps, send, pending)


@pytest.mark.parametrize(("declared", "form", "url"), [
    ({}, True, False),  # empty: form only
    ({"form": {}}, True, False),
    ({"url": {}}, False, True),
    ({"form": {}, "url": {}}, True, True),
    ({"url": True}, False, False),  # (not an object: not declared)
])
def test_the_modes_a_client_declared(declared: dict[str, Any], form: bool, url: bool) -> None:
    ch = channel({"elicitation": declared}, [], {})
    assert (elicits(ch, "form"), elicits(ch, "url")) == (form, url)
    assert elicits(CallChannel(ch), "url") == url  # (a call's channel reads its client's)
    assert not elicits(channel({}, [], {}), "form")


async def test_a_form_is_not_sent_to_a_client_of_url_mode_only() -> None:
    sent: list[dict[str, Any]] = []
    with pytest.raises(ClientRequestError, match="only url mode"):
        await elicit(channel({"elicitation": {"url": {}}}, sent, {"action": "cancel"}),
                     "n?", FORM)
    assert sent == []
    answer = await elicit(channel({"elicitation": {"form": {}}}, sent,
                                  {"action": "accept", "content": {"n": 1}}), "n?", FORM)
    assert answer.content == {"n": 1}


async def test_a_url_question_is_sent_and_only_its_action_comes_back() -> None:
    sent: list[dict[str, Any]] = []
    ch = channel({"elicitation": {"url": {}}}, sent,
                 {"action": "accept", "content": {"secret": "x"}})
    action = await elicit_url(ch, "Sign in", "https://login.example/a?b=c", "e-1")
    assert action == "accept"
    assert sent[0]["params"] == {"mode": "url", "message": "Sign in",
                                 "url": "https://login.example/a?b=c", "elicitationId": "e-1"}
    with pytest.raises(ClientRequestError, match="did not declare it"):
        await elicit_url(channel({"elicitation": {}}, sent, {}), "m", "https://a.example",
                         "e")
    assert len(sent) == 1


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "ftp://a.example/",
    "https://bank.example@evil.example/", "https://user:pw@bank.example/",
    "https://evil.example\\@bank.example/", "https://b\u0430nk.example/",
    "https://bank.example/\u202efdp.exe", "https://bank.example/a b",
    "https://bank.example/\U000e0041", "https://bank.example/\t", "http://", "https:///p",
    "//evil.example/", "https://e.example:99999999/", "https://e.example:x/", "",
    "https://e.example/" + "a" * 2_000, 42, None, ["https://a.example"],
])
def test_a_url_a_person_could_misread_is_refused(url: Any) -> None:
    assert url_problem(url) is not None, url


@pytest.mark.parametrize("url", ["https://login.example/a?b=c#d", "http://127.0.0.1:8080/x",
                                 "https://xn--bnk-sna.example/", "HTTPS://A.EXAMPLE/"])
def test_an_ordinary_url_passes(url: str) -> None:
    assert url_problem(url) is None


@pytest.mark.parametrize("key", ["", "e" * 201, "e\u200b", "e 1", 5, None])
def test_an_elicitation_id_is_short_printable_text(key: Any) -> None:
    assert id_problem(key) is not None
    assert id_problem("e-1_x.y") is None

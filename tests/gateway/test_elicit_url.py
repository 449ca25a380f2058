"""An upstream's question names the upstream (escaped) to the person, in form and URL mode,
and a URL-mode question is passed on (``elicitation: pass``) only to a client that declared
URL mode, with a URL a person reads as the place the browser goes to; only the person's
action goes back. Real upstream process (the hostile raw JSON-RPC one, over stdio)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import HOSTILE
from .test_elicit_pass import ACCEPT, Person, call, config

pytestmark = pytest.mark.anyio

BOTH = {"elicitation": {"form": {}, "url": {}}}
LOGIN = "https://login.example/device?code=ABCD"


@pytest.fixture
async def tool(tmp_path: Path) -> Any:
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    loaded = load_config(config(tmp_path, f"command: [{sys.executable}, {HOSTILE}], env: "
                                "{HOSTILE_MODE: elicit}"),
                         environ=dict(os.environ), layers=False)
    async with compile_tools(loaded) as compiled:
        yield compiled.tool("h", "echo")


async def test_a_url_question_reaches_the_person_named_and_only_its_action_returns(
        tool: Any) -> None:
    person = Person(ACCEPT, capabilities=BOTH)  # (answers content too: never passed back)
    said = await call(tool, person, text="Sign in\u202e to deploy", mode="url", url=LOGIN,
                      elicitation_id="dev-1")
    assert person.asked == [{"mode": "url", "url": LOGIN, "elicitationId": "dev-1",
                             "message": "upstream server 'h' asks: Sign in\\u202e to deploy"}]
    assert said["answers"] == [{"action": "accept"}]
    for action in ("decline", "cancel"):
        said = await call(tool, Person({"action": action}, capabilities=BOTH), text="Go?",
                          mode="url", url=LOGIN)
        assert said["answers"] == [{"action": action}]


async def test_a_form_question_names_the_upstream(tool: Any) -> None:
    person = Person(ACCEPT, capabilities=BOTH)
    await call(tool, person, text="Your name?")
    assert person.asked[0]["message"] == "upstream server 'h' asks: Your name?"


@pytest.mark.parametrize(("caps", "extra", "code", "words"), [
    ({"elicitation": {}}, {"mode": "url", "url": LOGIN}, -32601,
     "did not declare url mode elicitation"),
    ({"elicitation": {"url": {}}}, {}, -32601, "did not declare form mode elicitation"),
    (BOTH, {"mode": "url", "url": "https://bank.example@evil.example/"}, -32602,
     "user name or password"),
    (BOTH, {"mode": "url", "url": "javascript:alert(1)"}, -32602, "absolute https or http"),
    (BOTH, {"mode": "url", "url": "https://b\u0430nk.example/"}, -32602, "printable ASCII"),
    (BOTH, {"mode": "url", "url": LOGIN, "elicitation_id": "e\u200b"}, -32602,
     "elicitationId"),
])
async def test_a_question_the_person_could_misread_is_refused_before_asking(
        tool: Any, caps: dict[str, Any], extra: dict[str, Any], code: int,
        words: str) -> None:
    person = Person(ACCEPT, capabilities=caps)
    said = await call(tool, person, text="Sign in", **extra)
    got = said["answers"][0]
    assert got["code"] == code and words in got["message"], got
    assert person.asked == []

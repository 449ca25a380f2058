"""An upstream's prompts are told apart as an upstream that ignores case tells them: prompts
whose names differ only in case are left out (a deny on ``payroll`` would not hold for
``Payroll``), and a prompts/get whose arguments hold a key differing only in case from a
declared one (or another given one), or a ``__proto__``, is refused before it is sent."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.content_kinds import PromptError
from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.passthrough import list_content
from toolhost.gateway.prompt_case import alike
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE


def test_prompts_alike_but_for_case_are_left_out_and_alike_arguments_refused(
        caplog: pytest.LogCaptureFixture) -> None:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), connect_timeout=20.0,
                        env={"HOSTILE_MODE": "prompt_case"})
    upstream = UpstreamConnection(spec, "h")
    try:
        content = list_content(upstream, "h")
        review = content.prompts["review"]
        sent = anyio.run(review.get, {"diff": "x"}, CallContext())
        refused = []
        for arguments in ({"Diff": "DROP TABLE"}, {"diff": "ok", "DIFF": "DROP TABLE"},
                          {"__proto__": "x"}, {"ſcope": "a", "scope": "b"}):
            with pytest.raises(PromptError) as failed:
                anyio.run(review.get, arguments, CallContext())
            assert failed.value.invalid
            refused.append(str(failed.value))
    finally:
        upstream.close()
    assert sorted(content.prompts) == ["review"]
    assert caplog.text.count("differs only in case") == 2
    assert sent["messages"][0]["content"]["text"] == '{"diff": "x"}'
    assert "'Diff' differs only in case from 'diff'" in refused[0]
    assert "'DIFF' differs only in case from 'diff'" in refused[1]
    assert "'__proto__'" in refused[2] and "differs only in case" in refused[3]


@pytest.mark.parametrize(("given", "refused"), [
    ({"diff": "a", "other": "b"}, False),  # an undeclared key of its own: the upstream's say
    ({"Other": "a", "other": "b"}, True),
    ({"\u0131d": "a"}, True),  # a dotless i: .NET reads it as ID
    ({"id": "a"}, False),
])
def test_alike(given: dict[str, Any], refused: bool) -> None:
    assert bool(alike(given, ["diff", "ID"] if "\u0131d" in given else ["diff", "id"])) \
        == refused

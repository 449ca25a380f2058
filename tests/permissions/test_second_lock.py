"""``NotedAllows``: the allows answered to can_use_tool, by tool-use id, each good for the one
call it was answered for, with the input allowed; odd ids are never noted; bounded."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.permissions import second_lock
from toolhost.permissions.decision import Decision
from toolhost.permissions.second_lock import MAX_TOOL_USE_ID, NotedAllows

ALLOW = Decision("allow")
NAME = "mcp__kb__note"


def test_an_allow_is_good_for_its_call_once_with_the_input_allowed() -> None:
    noted = NotedAllows()
    noted.note(NAME, {"text": "a"}, "toolu_1", ALLOW)
    assert not noted.claim(NAME, {"text": "b"}, "toolu_1")  # another input: used up
    assert not noted.claim(NAME, {"text": "a"}, "toolu_1")
    noted.note(NAME, {"text": "big"}, "toolu_2", Decision("allow", updated_input={"text": "s"}))
    assert not noted.claim("mcp__kb__other", {"text": "s"}, "toolu_2")
    noted.note(NAME, {"text": "big"}, "toolu_3", Decision("allow", updated_input={"text": "s"}))
    assert noted.claim(NAME, {"text": "s"}, "toolu_3")  # the rewritten input is what runs
    assert len(noted) == 0


@pytest.mark.parametrize("tool_use_id", [
    None, 7, 1.5, True, b"toolu_1", ["toolu_1"], {"id": "toolu_1"}, "",
    "x" * (MAX_TOOL_USE_ID + 1)])
def test_odd_ids_are_not_noted_and_claim_nothing(tool_use_id: Any) -> None:
    noted = NotedAllows()
    assert noted.note(NAME, {}, tool_use_id, ALLOW) is ALLOW
    assert len(noted) == 0
    assert not noted.claim(NAME, {}, tool_use_id)
    noted.forget(tool_use_id)


@pytest.mark.parametrize("decision,name", [
    (Decision("deny", "no"), NAME), (Decision("ask"), NAME), (ALLOW, "Bash"),
    (ALLOW, 42)])
def test_only_allows_of_toolhost_tools_are_noted(decision: Decision, name: Any) -> None:
    noted = NotedAllows()
    noted.note(name, {}, "toolu_1", decision)
    assert len(noted) == 0


def test_the_table_is_bounded_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(second_lock, "MAX_NOTED", 3)
    noted = NotedAllows()
    for n in range(5):
        noted.note(NAME, {}, f"toolu_{n}\udcff", ALLOW)  # a lone surrogate is just a str
    assert noted.ids() == [f"toolu_{n}\udcff" for n in range(2, 5)]
    noted.forget("toolu_3\udcff")
    assert noted.ids() == ["toolu_2\udcff", "toolu_4\udcff"]


@pytest.mark.parametrize(("allowed", "called"), [
    ({"dry_run": True}, {"dry_run": 1}), ({"force": False}, {"force": 0}),
    ({"n": 1}, {"n": 1.0}), ({"n": 1}, {"n": True}), ({"a": {"b": [True]}}, {"a": {"b": [1]}}),
    ({"x": None}, {"x": False}),
])
def test_a_call_whose_input_is_only_python_equal_is_decided_again(
        allowed: dict[str, Any], called: dict[str, Any]) -> None:
    noted = NotedAllows()
    noted.note("mcp__s__wipe", allowed, "toolu_1", Decision("allow"))
    assert not noted.claim("mcp__s__wipe", called, "toolu_1")
    noted.note("mcp__s__wipe", called, "toolu_2", Decision("allow", updated_input=allowed))
    assert not noted.claim("mcp__s__wipe", called, "toolu_2")

"""``ContentMethods.complete`` with a ``keep`` predicate (the rules, as the server asks them):
values it refuses are left out and not counted, one it fails on is left out (fail closed),
and no answer asks it about more than ``MAX_CHECKED`` values (the rest: ``hasMore``, for
the client to narrow by typing more)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.content import ServerContent
from toolhost.mcp.content import MAX_CHECKED, ContentMethods

PARAMS = {"ref": {"type": "ref/resource", "uri": "t://{id}"},
          "argument": {"name": "id", "value": ""}}


def complete(values: tuple[str, ...], keep: Any) -> dict[str, Any]:
    methods = ContentMethods(ServerContent(completions={("ref/resource", "t://{id}"):
                                                        {"id": values}}), 100)
    async def go() -> dict[str, Any]:
        answer = await methods.complete(PARAMS, CallContext(call_id="1", tool="complete"),
                                        keep)
        return answer["completion"]  # type: ignore[no-any-return]
    return anyio.run(go)


def test_refused_values_are_left_out_and_not_counted() -> None:
    got = complete(("a1", "s1", "a2", "s2"), lambda v: not v.startswith("s"))
    assert got == {"values": ["a1", "a2"], "hasMore": False, "total": 2}


def test_a_value_the_check_fails_on_is_left_out() -> None:
    def keep(value: str) -> bool:
        if value == "bad":
            raise RuntimeError("policy broke")
        return True
    assert complete(("ok", "bad"), keep)["values"] == ["ok"]


@pytest.mark.parametrize(("count", "kept"), [(5000, False), (5000, True)])
def test_no_answer_asks_about_more_than_max_checked(count: int, kept: bool) -> None:
    asked: list[str] = []

    def keep(value: str) -> bool:
        asked.append(value)
        return kept
    got = complete(tuple(f"v{i}" for i in range(count)), keep)
    assert len(asked) <= MAX_CHECKED and got["hasMore"] is True and "total" not in got
    assert len(got["values"]) == (100 if kept else 0)

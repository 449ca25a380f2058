"""An argument the reshaped schema does not name but lets through (the upstream's open
``additionalProperties``) is refused when it differs only in case from one the schema names,
a fixed one or another given one: an upstream whose JSON binding ignores case (Go's
``encoding/json``, .NET's web defaults) reads ``Query`` as ``query``, so a value the rules
never judged (beside the ``query`` they did, or instead of the fixed ``repo``) would be the
one it acts on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import hostile_config

pytestmark = pytest.mark.anyio

FIXED = "    tools:\n      search_issues:\n        name: find\n        fixed: {repo: acme/app}\n"
REFUSED: list[tuple[dict[str, Any], str, str]] = [
    ({"query": "benign", "Query": "password"}, "Query", "query"),  # beside a judged one
    ({"query": "x", "REPO": "evil/x"}, "REPO", "repo"),  # instead of the fixed one
    ({"query": "x", "extra": 1, "EXTRA": 2}, "EXTRA", "extra"),  # two unnamed ones
    ({"query": "x", "LIMIT": 99}, "LIMIT", "limit"),  # a named one left out
    ({"query": "x", "\u212aey": 1, "key": 2}, "key", "\u212aey"),  # Kelvin sign folds to k
    # a dotless i is I to .NET's OrdinalIgnoreCase (casefold alone keeps it apart)
    ({"query": "x", "l\u0131m\u0131t": 99}, "l\u0131m\u0131t", "limit"),
    ({"query": "x", "filter": {"id": "a", "\u0131d": "b"}}, "filter.\u0131d", "filter.id"),
    ({"query": "x", "filter": {"repo": "a", "Repo": "b"}}, "filter.Repo", "filter.repo"),
    ({"query": "x", "items": [{"n": 1}, {"a": 1, "A": 2}]}, "items[1].A", "items[1].a"),
]


async def test_arguments_alike_but_for_case_are_refused(tmp_path: Path) -> None:
    from toolhost.backends.base import CallContext
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    config = hostile_config(tmp_path, extra=FIXED)
    loaded = load_config(config, environ={**os.environ, "HOSTILE_MODE": "issues"},
                         layers=False)
    async with compile_tools(loaded) as compiled:
        tool = compiled.tool("h", "find")
        for arguments, it, other in REFUSED:
            result = await tool.call(arguments, CallContext())
            said = result.to_mcp()["content"][0]["text"]
            assert result.is_error, (arguments, said)
            assert said.startswith(f"argument {it!r} of 'find' differs from "
                                   f"{other!r} only in case"), said
        fine = await tool.call({"query": "x", "extra": 1, "deep": {"a": {"b": 1, "c": [2]}}},
                               CallContext())
    text = fine.to_mcp()["content"][0]["text"]
    assert not fine.is_error and '"extra": 1' in text and '"repo": "acme/app"' in text, text


@pytest.mark.parametrize("arguments", [
    {"query": "x", "__proto__": {"repo": "evil/x"}},  # behind the fixed one
    {"query": "x", "__proto__": {"limit": 1000}},  # an argument left out, then its default
    {"query": "x", "filter": {"__proto__": {"admin": True}}},
    {"query": "x", "items": [{"__proto__": {"n": 2}}]},
])
async def test_a_key_javascript_reads_as_the_prototype_is_refused(
        tmp_path: Path, arguments: dict[str, Any]) -> None:
    """``Object.assign({limit: 20}, args)`` in a JavaScript upstream makes a ``__proto__``
    key the prototype of the merged object, so ``opts.query`` reads the value inside it: the
    rules saw no ``query`` (or the config's fixed ``repo``) and the upstream acts on
    another. Before, it was sent as it was."""
    from toolhost.backends.base import CallContext
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    log = tmp_path / "requests.log"
    config = hostile_config(tmp_path, extra=FIXED)
    loaded = load_config(config, environ={**os.environ, "HOSTILE_MODE": "issues",
                                          "HOSTILE_LOG": str(log)}, layers=False)
    async with compile_tools(loaded) as compiled:
        result = await compiled.tool("h", "find").call(arguments, CallContext())
    said = result.to_mcp()["content"][0]["text"]
    assert result.is_error and "is a key named '__proto__'" in said, said
    assert "tools/call" not in log.read_text()  # it never reached the upstream

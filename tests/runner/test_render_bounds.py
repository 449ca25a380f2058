"""The transcript's lines are bounded whatever the CLI sends: a tool name, an argument's name,
the number of arguments, a deny's message (which quotes the tool name) and a progress line's
tool name are shortened (start and end, counted as shown). Before, a tool name of 2,000,000
bidi controls made a 12 MB decision line (each shown as six characters), and 100,000
arguments a call line of megabytes."""

from __future__ import annotations

import io
from typing import Any

import pytest

from toolhost.permissions.decision import Decision
from toolhost.runner.render import TextRenderer

BIDI = "\u202e"
HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\r\u202e\u2066\x9b\x00\ufeff"
ARGS_SHOWN, NAME_CHARS, ARG_CHARS = 20, 200, 120  # toolhost.runner.render's
# no transcript line of a call is longer: 20 arguments, each a name of 200 and a value of
# 120 characters (each with a "... (N characters not shown) ..." note), the tool name
LINE = ARGS_SHOWN * (NAME_CHARS + ARG_CHARS + 2 * 45) + NAME_CHARS + 100

NAMES = ["mcp__s__t" + BIDI * 2_000_000, "mcp__s__" + HOSTILE * 300_000,
         "mcp__s__" + "x" * 1_000_000 + "_end", "mcp__s__t"]
INPUTS: list[Any] = [
    {f"f{i}": "v" for i in range(100_000)},
    {"k" * 3_000_000: 1},
    {HOSTILE * 1000 + str(i): HOSTILE * 1000 for i in range(300)},
    [HOSTILE] * 100_000,
    {"text": "hi"},
]


def transcript(name: str, tool_input: Any, decision: Decision) -> list[str]:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    r.message({"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "tu1", "name": name, "input": tool_input}]}})
    r.decision(name, decision, tool_use_id="tu1")
    r.message({"type": "tool_progress", "heartbeat": True, "tool_name": name,
               "elapsed_time_seconds": 5})
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "tu1", "content": "ok", "is_error": True}]}})
    r.close()
    return out.getvalue().splitlines()


@pytest.mark.parametrize("name", NAMES, ids=["bidi", "escapes", "long", "plain"])
@pytest.mark.parametrize("tool_input", INPUTS, ids=["fields", "key", "escape-keys", "list",
                                                    "small"])
@pytest.mark.parametrize("behavior", ["allow", "deny"])
def test_every_line_is_bounded_and_inert(name: str, tool_input: Any, behavior: str) -> None:
    message = f"A person denied {name}." if behavior == "deny" else ""
    decision = Decision(behavior, message, answered_by="person")  # type: ignore[arg-type]
    lines = transcript(name, tool_input, decision)
    assert len(lines) == 4
    for line in lines:
        assert len(line) <= LINE, line[:200]
        assert not any(c in line for c in "\x1b\x07\r\x9b\x00\u202e\u2066\ufeff")


def test_a_long_name_shows_its_start_and_its_end() -> None:
    name = "mcp__s__" + "x" * 1_000_000 + "_end"
    call, deny = transcript(name, {"a": 1}, Decision("deny", f"A person denied {name}."))[:2]
    assert call.startswith("→ #1 mcp__s__xxx") and "_end(a=1)" in call
    assert "characters not shown" in call and "characters not shown" in deny


def test_many_arguments_say_how_many_more() -> None:
    call = transcript("mcp__s__t", {f"f{i}": i for i in range(100)},
                      Decision("allow"))[0]
    assert "f19=19" in call and "f20=" not in call and "… (+80 more)" in call


def test_ordinary_lines_are_unchanged() -> None:
    lines = transcript("mcp__s__greet", {"name": "Alice"},
                       Decision("deny", "no greeting", rule="mcp__s__greet"))
    assert lines[0] == '→ #1 mcp__s__greet(name="Alice")'
    assert lines[1] == "  #1 ⊘ denied by mcp__s__greet: no greeting"


def test_the_bounds_are_the_renderer_s() -> None:
    from toolhost.runner import render

    assert (render.ARGS_SHOWN, render.NAME_CHARS, render.ARG_CHARS) == (
        ARGS_SHOWN, NAME_CHARS, ARG_CHARS)


@pytest.mark.parametrize("duration", ["abc", [1], {"a": 1}, True, float("nan"), None, 2500])
def test_a_result_with_an_odd_duration_still_ends_the_turn(duration: Any) -> None:
    # a TypeError in the renderer lost the turn's closing line, without a word
    out = io.StringIO()
    renderer = TextRenderer(out, io.StringIO(), color=False)
    renderer.message({"type": "result", "subtype": "success", "is_error": False,
                      "result": "", "duration_ms": duration})
    seconds = {2500: "2.5", None: "0.0"}.get(duration, "?") if not isinstance(
        duration, (list, dict)) else "?"
    assert f"— done: 0 turns, {seconds} s" in out.getvalue(), out.getvalue()

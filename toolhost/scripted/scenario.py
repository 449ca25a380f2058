"""Scenario files for the scripted model: which answer the "model" gives at each turn.

A scenario is a YAML file with one entry per model response, played in order::

    turns:
      - tool_calls:                       # several = parallel tool_use blocks in one message
          - {tool: mcp__demo__add, input: {a: 6, b: 7}}
      - expect_results:                   # checks on the tool_result blocks of the turn before
          - {tool: mcp__demo__add, equals: "13"}
        text: "6 + 7 = 13"                # the final answer

See docs/running.md for every key. Every mistake is reported with file, line and key path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from toolhost import regex
from toolhost.errors import ConfigError, Problem
from toolhost.scripted.yamlpos import Located, Path, load_located, read_located
from toolhost.typos import close_matches

__all__ = ["Expectation", "Scenario", "ToolCall", "Turn", "load_scenario", "parse_scenario"]

_MISSING: Any = object()
TOP_KEYS = ("turns", "description")
TURN_KEYS = ("text", "tool_calls", "expect_results", "expect_tools", "delay", "thinking",
             "stop_reason")
# what a model may give as its reply's stop reason (the Messages API's values)
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal")
MAX_DELAY = 600.0  # seconds: a slow model, not a hung test
CALL_KEYS = ("tool", "input", "id", "raw_input")
EXPECT_KEYS = ("tool", "equals", "contains", "matches", "json", "is_error")
TOOLS_KEYS = ("includes", "excludes")


@dataclass(frozen=True)
class ToolCall:
    """One ``tool_use`` block the model emits."""

    tool: str
    input: Mapping[str, Any]
    id: str
    line: int = 0
    # streamed as the block's JSON verbatim, instead of ``input``: a model's broken or
    # non-object input (``'{"a": 1'`` cut by max_tokens, ``'"text"'``, ``'[1]'``)
    raw_input: str | None = None


@dataclass(frozen=True)
class Expectation:
    """A check on one ``tool_result`` the model receives. ``is_error`` defaults to False."""

    tool: str
    call_id: str
    equals: str | None = None
    contains: tuple[str, ...] = ()
    matches: regex.Pattern | None = None
    json: Any = _MISSING
    is_error: bool = False
    line: int = 0

    @property
    def has_json(self) -> bool:
        return self.json is not _MISSING


@dataclass(frozen=True)
class Turn:
    """One model response (``index`` is 1-based) and the checks made before giving it."""

    index: int
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    expect_results: tuple[Expectation, ...] = ()
    tools_include: tuple[str, ...] = ()
    tools_exclude: tuple[str, ...] = ()
    line: int = 0
    delay: float = 0.0  # seconds the model "thinks" before answering
    thinking: str | None = None  # a thinking block first
    stop: str | None = None  # the ``stop_reason`` given, when not the usual one

    @property
    def stop_reason(self) -> str:
        if self.stop is not None:
            return self.stop
        return "tool_use" if self.tool_calls else "end_turn"


@dataclass(frozen=True)
class Scenario:
    """A scripted model's turns, read from a scenario file."""

    turns: tuple[Turn, ...]
    file: str = "<scenario>"
    description: str = ""


def _kind(value: Any) -> str:
    """What a YAML value is, in the words of the file (not Python's type names)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else type(value).__name__


def load_scenario(path: str | FsPath) -> Scenario:
    """Read and check a scenario file. Raises ``ConfigError`` listing every problem."""
    return _check(read_located(str(path)))


def parse_scenario(text: str, file: str = "<scenario>") -> Scenario:
    """Parse scenario YAML text; ``file`` is used in error messages."""
    return _check(load_located(text, file))


def _check(doc: Located) -> Scenario:
    checker = _Checker(doc)
    scenario = checker.scenario()
    if checker.problems:
        raise ConfigError(checker.problems)
    assert scenario is not None
    return scenario


class _Checker:
    def __init__(self, doc: Located) -> None:
        self.doc = doc
        self.problems: list[Problem] = []

    def err(self, path: Path, message: str, hint: str = "") -> None:
        self.problems.append(self.doc.problem(path, message, hint))

    def keys(self, value: Mapping[str, Any], allowed: tuple[str, ...], path: Path) -> None:
        for key in value:
            if key not in allowed:
                close = close_matches(key, allowed, n=1)
                hint = f"did you mean '{close[0]}'?" if close else "allowed: " + ", ".join(allowed)
                self.err((*path, key), "unknown key", hint)

    def mapping(self, value: Any, path: Path, what: str) -> Mapping[str, Any] | None:
        if not isinstance(value, Mapping):
            self.err(path, f"{what} must be a mapping, got {_kind(value)}")
            return None
        return value

    def string(self, value: Any, path: Path, *, empty_ok: bool = False) -> str | None:
        if not isinstance(value, str) or (not value and not empty_ok):
            self.err(path, f"must be a {'' if empty_ok else 'non-empty '}string")
            return None
        return value

    def scenario(self) -> Scenario | None:
        if self.doc.value is None:
            self.err((), "a scenario must be a mapping, got nothing (an empty file)",
                     "write turns: [...]; see docs/running.md")
            return None
        top = self.mapping(self.doc.value, (), "a scenario")
        if top is None:
            return None
        self.keys(top, TOP_KEYS, ())
        raw_turns = top.get("turns")
        if not isinstance(raw_turns, list) or not raw_turns:
            self.err(("turns",), "must be a non-empty list of turns")
            return None
        turns: list[Turn] = []
        ids: set[str] = set()
        for i, raw in enumerate(raw_turns):
            prev = turns[-1] if turns else None
            turns.append(self.turn(raw, ("turns", i), i + 1, prev, ids))
        description = top.get("description", "")
        return Scenario(tuple(turns), self.doc.file, str(description))

    def turn(self, raw: Any, path: Path, index: int, prev: Turn | None, ids: set[str]) -> Turn:
        line = self.doc.line(path)
        turn = self.mapping(raw, path, "a turn")
        if turn is None:
            return Turn(index, line=line)
        self.keys(turn, TURN_KEYS, path)
        text = None
        if "text" in turn:
            text = self.string(turn["text"], (*path, "text"))
        calls = self.calls(turn.get("tool_calls"), (*path, "tool_calls"), index, ids)
        thinking = None
        if "thinking" in turn:
            thinking = self.string(turn["thinking"], (*path, "thinking"), empty_ok=True)
        stop = None
        if "stop_reason" in turn:
            stop = self.string(turn["stop_reason"], (*path, "stop_reason"))
            if stop is not None and stop not in STOP_REASONS:
                close = close_matches(stop, STOP_REASONS, n=1)
                self.err((*path, "stop_reason"), f"unknown stop reason '{stop}'",
                         f"did you mean '{close[0]}'?" if close
                         else "one of: " + ", ".join(STOP_REASONS))
                stop = None
        if text is None and not calls and thinking is None \
                and not {"text", "tool_calls", "thinking"} & set(turn):
            self.err(path, "a turn needs 'text', 'tool_calls', 'thinking' or some of them")
        expects = self.expects(turn.get("expect_results"), (*path, "expect_results"), prev)
        include, exclude = self.tools(turn.get("expect_tools"), (*path, "expect_tools"))
        delay = self.delay(turn.get("delay", 0), (*path, "delay"))
        return Turn(index, text, calls, expects, include, exclude, line, delay, thinking, stop)

    def delay(self, raw: Any, path: Path) -> float:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) \
                or not 0 <= raw <= MAX_DELAY:
            self.err(path, f"must be a number of seconds from 0 to {MAX_DELAY:g}")
            return 0.0
        return float(raw)

    def calls(self, raw: Any, path: Path, index: int, ids: set[str]) -> tuple[ToolCall, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list) or not raw:
            self.err(path, "must be a non-empty list of {tool: NAME, input: {...}}")
            return ()
        out = []
        for j, item in enumerate(raw):
            cpath = (*path, j)
            call = self.mapping(item, cpath, "a tool call")
            if call is None:
                continue
            self.keys(call, CALL_KEYS, cpath)
            tool = self.string(call.get("tool"), (*cpath, "tool"))
            args = call.get("input", {})
            if not isinstance(args, Mapping):
                self.err((*cpath, "input"), "must be a mapping of arguments",
                         "for another JSON value, or broken JSON, use raw_input: TEXT")
                args = {}
            raw_input = None
            if "raw_input" in call:
                raw_input = self.string(call["raw_input"], (*cpath, "raw_input"),
                                        empty_ok=True)
                if "input" in call:
                    self.err((*cpath, "raw_input"), "give 'input' or 'raw_input', not both")
            call_id = call.get("id", f"toolu_scripted_{index:02d}_{j + 1}")
            if self.string(call_id, (*cpath, "id")) is not None:
                if call_id in ids:
                    self.err((*cpath, "id"), f"duplicate tool call id '{call_id}'")
                ids.add(call_id)
            out.append(ToolCall(tool or "", dict(args), str(call_id), self.doc.line(cpath),
                                raw_input))
        return tuple(out)

    def expects(self, raw: Any, path: Path, prev: Turn | None) -> tuple[Expectation, ...]:
        if raw is None:
            return ()
        if prev is None or not prev.tool_calls:
            self.err(path, "the turn before makes no tool calls, so there are no results to check")
            return ()
        if not isinstance(raw, list) or len(raw) != len(prev.tool_calls):
            self.err(path, f"must be a list with one entry per tool call of turn {prev.index} "
                           f"({len(prev.tool_calls)}), in the same order")
            return ()
        out = []
        for j, (item, call) in enumerate(zip(raw, prev.tool_calls, strict=True)):
            epath = (*path, j)
            exp = self.mapping(item, epath, "an expectation")
            if exp is None:
                continue
            self.keys(exp, EXPECT_KEYS, epath)
            tool = exp.get("tool", call.tool)
            if tool != call.tool:
                self.err((*epath, "tool"), f"turn {prev.index} calls '{call.tool}' at this "
                                           f"position, not '{tool}'")
            out.append(self.expectation(exp, epath, call))
        return tuple(out)

    def expectation(self, exp: Mapping[str, Any], path: Path, call: ToolCall) -> Expectation:
        equals = None
        if "equals" in exp:
            equals = self.string(exp["equals"], (*path, "equals"), empty_ok=True)
        contains_raw = exp.get("contains", [])
        contains_list = contains_raw if isinstance(contains_raw, list) else [contains_raw]
        contains = tuple(s for k, c in enumerate(contains_list)
                         if (s := self.string(c, (*path, "contains", k))) is not None)
        matches = None
        if "matches" in exp and (pattern := self.string(exp["matches"], (*path, "matches"))):
            try:  # RE2: matched against tool output, so it must not backtrack
                matches = regex.compile(pattern)
            except regex.RegexError as exc:
                self.err((*path, "matches"), str(exc))
        is_error = exp.get("is_error", False)
        if not isinstance(is_error, bool):
            self.err((*path, "is_error"), "must be true or false")
            is_error = False
        return Expectation(call.tool, call.id, equals, contains, matches,
                           exp.get("json", _MISSING), is_error, self.doc.line(path))

    def tools(self, raw: Any, path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if raw is None:
            return (), ()
        spec = self.mapping(raw, path, "expect_tools")
        if spec is None:
            return (), ()
        self.keys(spec, TOOLS_KEYS, path)
        lists = []
        for key in TOOLS_KEYS:
            names = spec.get(key, [])
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                self.err((*path, key), "must be a list of tool names")
                names = []
            lists.append(tuple(names))
        return lists[0], lists[1]

"""The scripted model's brain: from a Messages API request body to the scenario's next answer.

Which turn we are at is read from the request itself (the number of assistant messages
already in ``messages``), never from a counter, so a request the CLI retries gets the same
answer and the script cannot drift out of step.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolhost.scripted.scenario import Expectation, Scenario, Turn

__all__ = ["Player", "Reply", "result_text"]


@dataclass(frozen=True)
class Reply:
    """One assistant message to send: content blocks plus the stop reason."""

    turn: int  # 1-based; 0 when the scenario is exhausted
    content: tuple[Mapping[str, Any], ...]
    stop_reason: str
    delay: float = 0.0  # seconds to wait before sending it (the turn's ``delay``)


_REMINDER = re.compile(r"\A<system-reminder>[\s\S]*</system-reminder>\s*\Z")
_TRAILING_REMINDER = re.compile(r"\n{0,2}<system-reminder>[\s\S]*?</system-reminder>\s*\Z")


def result_text(content: Any) -> str:
    """The tool's text in a ``tool_result`` block's content (a string or a list of blocks).

    The CLI appends ``<system-reminder>`` blocks to the last result of a turn (and a newline
    to the text before them); those are removed so that scenarios compare the tool's output.
    """
    if isinstance(content, str):
        text: str = content
        while (cut := _TRAILING_REMINDER.sub("", text)) != text:
            text = cut
        return text
    parts: list[str] = []
    for block in content or ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") != "text":
            parts.append(f"[{block.get('type', 'block')}]")
            continue
        text = str(block.get("text", ""))
        if _REMINDER.match(text):
            if parts and parts[-1].endswith("\n"):
                parts[-1] = parts[-1][:-1]
            continue
        parts.append(text)
    return "\n".join(parts)


def _short(text: str, limit: int = 300) -> str:
    text = repr(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Player:
    """Plays a ``Scenario``; thread-safe (the HTTP server answers from several threads)."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._lock = threading.Lock()
        self._failures: dict[str, str] = {}  # keyed so that a retried request adds nothing
        self._played: set[int] = set()

    # -- public -------------------------------------------------------------------------
    def respond(self, body: Mapping[str, Any]) -> Reply:
        messages = body.get("messages") or []
        done = sum(1 for m in messages if isinstance(m, Mapping) and m.get("role") == "assistant")
        index = done + 1
        turns = self.scenario.turns
        with self._lock:
            self._played.add(index)
        if 1 < index <= len(turns) + 1:
            self._check_answered(turns[index - 2], messages)
        if index > len(turns):
            last = turns[-1]
            self._fail(f"exhausted:{index}",
                       f"{self.scenario.file}: the CLI asked for model turn {index}, but the "
                       f"scenario has only {len(turns)} (turn {last.index} at line {last.line} "
                       f"ends with {'tool calls' if last.tool_calls else 'text'})")
            text = f"[scripted model] The scenario has no turn {index}; stopping."
            return Reply(0, ({"type": "text", "text": text},), "end_turn")
        turn = turns[index - 1]
        self._check_tools(turn, body.get("tools") or [])
        if turn.expect_results:
            self._check_results(turn, _latest_results(messages))
        return Reply(index, _content(turn), turn.stop_reason, turn.delay)

    @property
    def failures(self) -> list[str]:
        """Every assertion that failed so far, in the order found."""
        with self._lock:
            return list(self._failures.values())

    def problems(self) -> list[str]:
        """Failures, plus a note for each scripted turn the CLI never asked for."""
        out = self.failures
        with self._lock:
            played = set(self._played)
        missing = [t for t in self.scenario.turns if t.index not in played]
        if missing:
            first = missing[0]
            out.append(f"{self.scenario.file}:{first.line}: turn {first.index} was never played "
                       f"({len(played & set(range(1, len(self.scenario.turns) + 1)))} of "
                       f"{len(self.scenario.turns)} turns were)")
        return out

    # -- checks -------------------------------------------------------------------------
    def _fail(self, key: str, message: str) -> None:
        with self._lock:
            self._failures.setdefault(key, message)

    def _check_tools(self, turn: Turn, tools: Sequence[Any]) -> None:
        names = {t.get("name") for t in tools if isinstance(t, Mapping)}
        where = f"{self.scenario.file}:{turn.line}: turn {turn.index}"
        for name in turn.tools_include:
            if name not in names:
                self._fail(f"tools+:{turn.index}:{name}",
                           f"{where}: expected the model to be offered tool '{name}'; it was "
                           f"offered {len(names)} tools: {', '.join(sorted(map(str, names)))}")
        for name in turn.tools_exclude:
            if name in names:
                self._fail(f"tools-:{turn.index}:{name}",
                           f"{where}: expected tool '{name}' NOT to be offered, but it was")

    def _check_answered(self, turn: Turn, messages: Sequence[Any]) -> None:
        """Every tool_use of the model's last reply got exactly one tool_result, and no
        result came for a call it did not make: the host never drops (or doubles) a call."""
        uses, results = _answers(messages)
        where = f"{self.scenario.file}:{turn.line}: turn {turn.index}"
        for use_id, name in uses.items():
            got = results.pop(use_id, 0)
            if got != 1:
                self._fail(f"answered:{turn.index}:{use_id}",
                           f"{where}: call {_short(use_id, 80)} ({_short(name, 80)}) got "
                           f"{got} tool results; exactly one was expected")
        for use_id, got in results.items():
            self._fail(f"unasked:{turn.index}:{use_id}",
                       f"{where}: {got} tool result(s) for {_short(use_id, 80)}, a call the "
                       "model did not make")

    def _check_results(self, turn: Turn, results: Mapping[str, tuple[str, bool]]) -> None:
        for exp in turn.expect_results:
            where = (f"{self.scenario.file}:{exp.line}: turn {turn.index}, result of {exp.tool} "
                     f"(call {exp.call_id})")
            got = results.get(exp.call_id)
            if got is None:
                self._fail(f"missing:{exp.call_id}",
                           f"{where}: no tool_result received; results received for: "
                           f"{', '.join(results) or 'none'}")
                continue
            for i, message in enumerate(_mismatches(exp, *got)):
                self._fail(f"result:{exp.call_id}:{i}", f"{where}: {message}")


def _mismatches(exp: Expectation, text: str, is_error: bool) -> list[str]:
    out = []
    if is_error != exp.is_error:
        out.append(f"expected is_error {str(exp.is_error).lower()}, received "
                   f"{str(is_error).lower()} with {_short(text)}")
    if exp.equals is not None and text != exp.equals:
        out.append(f"expected equals {_short(exp.equals)}, received {_short(text)}")
    for part in exp.contains:
        if part not in text:
            out.append(f"expected it to contain {_short(part)}, received {_short(text)}")
    # as with Python's re (and before RE2): `$` also matches before a final newline
    if exp.matches is not None and not (exp.matches.search(text) or (
            text.endswith("\n") and exp.matches.search(text[:-1]))):
        out.append(f"expected a match for /{exp.matches.pattern}/, received {_short(text)}")
    if exp.has_json:
        try:
            value = json.loads(text)
        except ValueError:
            out.append(f"expected JSON equal to {json.dumps(exp.json)}, received non-JSON "
                       f"{_short(text)}")
        else:
            if value != exp.json:
                out.append(f"expected JSON {json.dumps(exp.json)}, received {json.dumps(value)}")
    return out


def _answers(messages: Sequence[Any]) -> tuple[dict[str, str], dict[str, int]]:
    """The tool_use ids (and names) of the last assistant message, and how many tool_result
    blocks came for each id after it; empty when the conversation ends with that message."""
    uses: dict[str, str] = {}
    results: dict[str, int] = {}
    after = False  # a message came after the assistant's
    for message in reversed(messages):
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, Mapping)] \
            if isinstance(content, list) else []
        if message.get("role") == "assistant":
            if after:
                uses = {str(b.get("id")): str(b.get("name")) for b in blocks
                        if b.get("type") == "tool_use"}
            break
        after = True
        for block in blocks:
            if block.get("type") == "tool_result":
                use_id = str(block.get("tool_use_id"))
                results[use_id] = results.get(use_id, 0) + 1
    return uses, results


def _latest_results(messages: Sequence[Any]) -> dict[str, tuple[str, bool]]:
    """tool_use_id -> (text, is_error) of the tool_result blocks after the last assistant turn."""
    out: dict[str, tuple[str, bool]] = {}
    for message in reversed(messages):
        if not isinstance(message, Mapping):
            continue
        if message.get("role") == "assistant":
            break
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                out[str(block.get("tool_use_id"))] = (result_text(block.get("content")),
                                                      bool(block.get("is_error", False)))
    return out


def _content(turn: Turn) -> tuple[Mapping[str, Any], ...]:
    blocks: list[Mapping[str, Any]] = []
    if turn.thinking is not None:
        blocks.append({"type": "thinking", "thinking": turn.thinking,
                       "signature": f"scripted-{turn.index}"})
    if turn.text is not None:
        blocks.append({"type": "text", "text": turn.text})
    for call in turn.tool_calls:
        block: dict[str, Any] = {"type": "tool_use", "id": call.id, "name": call.tool,
                                 "input": dict(call.input)}
        if call.raw_input is not None:
            block["raw_input"] = call.raw_input  # streamed verbatim (server.sse_events)
            try:
                block["input"] = json.loads(call.raw_input)  # a whole message: parsed if it is
            except ValueError:
                block["input"] = call.raw_input
        blocks.append(block)
    return tuple(blocks)

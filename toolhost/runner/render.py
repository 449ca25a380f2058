"""Showing a session: human-readable text, or the raw message stream as JSON lines.

The text form shows assistant text, each tool call with its arguments, each result
(shortened), each permission decision, and a final line with turns, duration and cost.
Each call gets a short tag (``#3``) shown on its call line, its decision line and its result
line, so parallel calls can be told apart whatever order their answers come in. Turns are
counted as the model's replies (one per API response; the CLI's ``num_turns`` counts every
message it split a reply into). Known CLI failures (not logged in, API unreachable, unknown
model) are followed by what to do (``toolhost.runner.diagnose``).
Unknown message types are skipped: the CLI adds new ones often.

Nothing the model, a tool or the CLI wrote reaches the terminal raw: every line goes through
``toolhost.visible`` (escape sequences, carriage returns, bidi controls are shown as escapes;
names exactly), so a result cannot redraw the transcript above it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TextIO, TypeVar

from toolhost.permissions.ask_shown import NAME as NAME_CHARS
from toolhost.permissions.ask_shown import shown_name as _shown_name
from toolhost.permissions.ask_shown import shown_text
from toolhost.permissions.decision import Decision
from toolhost.runner.diagnose import explain, max_turns_hint, retry_hint
from toolhost.runner.fit import columns_of, fit
from toolhost.visible import inert_json, visible

__all__ = [
    "ARGS_SHOWN",
    "ARG_CHARS",
    "NAME_CHARS",
    "JsonRenderer",
    "Renderer",
    "TextRenderer",
    "format_call",
    "make_renderer",
    "shorten",
    "shown_message",
    "shown_name",
]

RESULT_CHARS = 200
ARG_CHARS = 120
ARGS_SHOWN = 20  # arguments on a call line, then how many more
MESSAGE_CHARS = 2000  # of a deny's message on its decision line


def shorten(text: str, limit: int = RESULT_CHARS) -> str:
    """One line, at most ``limit`` characters, saying how much was cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1] + f"… (+{len(flat) - limit + 1} chars)"


def shown_name(name: str) -> str:
    """A tool name (or an argument's name) as the transcript shows it: exactly, safe on a
    terminal, its start and end past ``NAME_CHARS`` characters (counted as shown)."""
    return _shown_name(name).text


def shown_message(text: str) -> str:
    """A message (a deny's) on one line, safe on a terminal, at most about
    ``MESSAGE_CHARS`` characters shown (its start and its end)."""
    return shown_text(text, MESSAGE_CHARS)


def _argument(value: Any) -> str:
    # one line, its start and its end past ARG_CHARS characters as shown
    dumped = json.dumps(value, ensure_ascii=False, default=str)
    return shown_text(" ".join(dumped.split()), ARG_CHARS)


def format_call(name: str, arguments: Any) -> str:
    """``name(key=value, ...)`` on one line, safe on a terminal (``toolhost.visible``), bounded:
    names and values shortened, at most ``ARGS_SHOWN`` arguments (then how many more)."""
    if not isinstance(arguments, Mapping):
        return f"{shown_name(name)}({_argument(arguments)})"
    shown = [f"{shown_name(str(k))}={_argument(v)}"
             for k, v in itertools.islice(arguments.items(), ARGS_SHOWN)]
    if len(arguments) > ARGS_SHOWN:
        shown.append(f"… (+{len(arguments) - ARGS_SHOWN} more)")
    return f"{shown_name(name)}({', '.join(shown)})"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        if isinstance(block, Mapping):
            kind = block.get("type")
            parts.append(str(block.get("text", "")) if kind == "text" else f"[{kind}]")
    return "\n".join(parts)


class Renderer(Protocol):
    def message(self, message: Mapping[str, Any]) -> None: ...
    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None: ...
    def status(self, text: str) -> None: ...
    def close(self) -> None: ...


def styled(stream: TextIO, environ: Mapping[str, str] | None = None) -> tuple[bool, bool]:
    """(color, live) for text written to ``stream``: colors when it is a terminal, unless
    ``NO_COLOR`` is set (https://no-color.org) or ``TERM`` is ``dumb``, empty or unset (as
    git, and as paste marking, ``toolhost.runner.paste.wanted``: nothing says the terminal
    understands escapes); ``FORCE_COLOR`` (not ``0``) turns them on anywhere. ``live``: a
    progress line may be rewritten in place (``\r``, erase line), only on such a terminal
    (or with ``FORCE_COLOR``)."""
    import os

    env = os.environ if environ is None else environ
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        tty = False
    force = env.get("FORCE_COLOR", "").strip().lower() not in ("", "0", "false", "no")
    live = force or (tty and env.get("TERM", "").strip() not in ("", "dumb"))
    return live and not env.get("NO_COLOR"), live


class _Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


MAX_REMEMBERED_CALLS = 4096  # calls whose name and tag are kept (the oldest go first)
_V = TypeVar("_V")


def _remember(table: OrderedDict[str, _V], key: str, value: _V) -> None:
    table[key] = value
    if len(table) > MAX_REMEMBERED_CALLS:  # memory stays bounded over any session
        # the oldest goes in constant time: a plain dict's ``next(iter(...))`` walks past
        # every slot deleted before it (thousands, once a long session is past the bound)
        table.popitem(last=False)


MAX_DECISION_LINES = 256  # decision lines kept formatted (one per rule, or deny message)


class TextRenderer:
    """For people: a compact transcript on ``out``; progress lines on ``err``."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, *,
                 color: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        # colors on the transcript as for ``out``; the progress lines as for ``err``
        err_color, self._live = styled(self.err) if color is None else (color, color)
        self.style = _Style(styled(self.out)[0] if color is None else color)
        self._err_style = _Style(err_color)
        self._status_open = False
        self._shown_init = False
        # tool_use id -> tool name, to label each result
        self._calls: OrderedDict[str, str] = OrderedDict()
        # tool_use id -> its call tag (#1, #2, ...)
        self._tags: OrderedDict[str, int] = OrderedDict()
        # a reused id -> (the names it was given to, the results still to come)
        self._reused: OrderedDict[str, tuple[tuple[str, ...], int]] = OrderedDict()
        # a decision line as shown after its tag, by what it shows (see ``decision``)
        self._decision_lines: dict[tuple[Any, ...], tuple[str, str]] = {}
        # the last decision shown and its line: a rule's decision is one immutable object
        # (the policy builds it once), so the next call of that rule is an identity check
        self._last_decision: tuple[object, tuple[str, str]] = (None, ("", ""))
        self._cost: float | None = None  # the session's cost at the last result
        self._numbered = 0  # tags given so far
        self._replies: set[str] = set()  # the model's replies (message ids) this turn
        self._unnamed = False  # a reply without an id this turn: count the CLI's way
        # text or a call shown for the model's last reply (one of thinking alone: neither)
        self._said = False
        self._last_reply: object = None  # its message id (the CLI splits a reply in several)
        self._api_error: str | None = None  # the CLI's error kind for this turn, if any
        # While a permission question is open (``hold_while`` says so), transcript lines
        # wait and progress lines are dropped: the question owns the terminal, and a line
        # printed into it would land after "Allow? ..." or erase it.
        self.hold_while: Callable[[], bool] | None = None
        self._pending: list[str] | None = None  # lines kept by ``hold_flush``
        self._held: list[str] = []
        # Whether a Ctrl-C interrupted the turn now ending (``run_host`` sets it): its end
        # line says "interrupted", not "failed"
        self.interrupted: Callable[[], bool] | None = None

    def tag(self, tool_use_id: str | None) -> str:
        """``#N `` for a call (numbered in the order first seen), "" without an id."""
        if not tool_use_id:
            return ""
        tags = self._tags
        number = tags.get(tool_use_id)
        if number is None:
            self._numbered = number = self._numbered + 1
            tags[tool_use_id] = number  # (``_remember``, inline: one per decision)
            if len(tags) > MAX_REMEMBERED_CALLS:
                tags.popitem(last=False)
        return f"#{number} "

    def _print(self, text: str) -> None:
        """Print a line made safe already (``visible``; ``style`` adds the only escapes)."""
        if self.hold_while is not None and self.hold_while():
            self._held.append(text)
            return
        if self._status_open:
            self._clear_status()
        held = self._held
        if held:
            self._held = []
            text = "".join(f"{line}\n" for line in held) + text
        if self._pending is not None:  # one read's decisions: written together (hold_flush)
            self._pending.append(text)
            return
        # One write per line (print() writes the text and the newline apart), one flush.
        self.out.write(text + "\n")
        self.out.flush()

    def hold_flush(self, on: bool) -> None:
        """Keep the lines printed from now (``on``), or write what was kept in one write and
        one flush and stop keeping. ``toolhost run`` keeps them while the decisions of one
        read of the CLI's output are answered (the same turn of the event loop), so 32
        decision lines make one ``write`` to stdout, not 32 (stdout is line-buffered there:
        a flush held alone would not save one). A failed write raises ``OSError``; the lines
        kept are dropped (``held_lines`` says how many before the release)."""
        pending, self._pending = self._pending, [] if on else None
        if on or not pending:
            return
        if self.hold_while is not None and self.hold_while():
            # a question opened during the read (its eager task asked): the lines wait for
            # its answer with the others, never printed into it
            self._held.extend(pending)
            return
        self.out.write("".join(f"{line}\n" for line in pending))
        self.out.flush()

    @property
    def held_lines(self) -> int:
        """How many lines ``hold_flush`` keeps now."""
        return len(self._pending) if self._pending else 0

    def _clear_status(self) -> None:
        if self._status_open:
            self._status_open = False  # first: a stderr that fails must not stop the transcript
            with contextlib.suppress(OSError, ValueError):
                self.err.write("\r\x1b[K" if self._live else "\n")
                self.err.flush()

    def status(self, text: str) -> None:
        """A transient progress line (replaced by the next output on a terminal). One that
        cannot be written (stderr full, or its reader gone) is dropped: a progress line is
        never worth the session."""
        if self.hold_while is not None and self.hold_while():
            return
        self._clear_status()
        text = visible(text)
        with contextlib.suppress(OSError, ValueError):
            if self._live:
                self._status_open = True
                # one row at most: ``_clear_status`` erases only the row the cursor is on
                self.err.write(self._err_style("2", fit(f"… {text}", columns_of(self.err))))
            else:
                print(f"… {text}", file=self.err)
            self.err.flush()

    def message(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "system" and message.get("subtype") == "init":
            self._init(message)
        elif kind == "assistant":
            self._assistant(message)
        elif kind == "user":
            self._user(message)
        elif kind == "result":
            self._result(message)
        elif kind == "system" and message.get("subtype") == "api_retry":
            self.status(retry_hint(message.get("attempt"), message.get("max_retries"),
                                   message.get("retry_delay_ms"), message.get("error_status")))
        elif kind == "tool_progress" and message.get("heartbeat"):
            self._print(self.style("2", (
                f"  … {shown_name(str(message.get('tool_name')))} still running "
                f"({visible(str(message.get('elapsed_time_seconds')))[:40]} s)")))

    def _init(self, message: Mapping[str, Any]) -> None:
        self._clear_status()
        if self._shown_init:  # the CLI repeats it every turn
            return
        self._shown_init = True
        servers = [s for s in message.get("mcp_servers") or () if isinstance(s, Mapping)]
        names = ", ".join(f"{s.get('name')} ({s.get('status')})" for s in servers) or "none"
        tools = [t for t in message.get("tools") or () if str(t).startswith("mcp__")]
        self._print(self.style("2", visible(f"session: model {message.get('model')}, MCP "
                                            f"servers {names}, {len(tools)} MCP tools")))

    def _assistant(self, message: Mapping[str, Any]) -> None:
        body = message.get("message")
        if isinstance(body, Mapping) and isinstance(body.get("id"), str):
            self._replies.add(body["id"])
        else:
            self._unnamed = True
        reply = body.get("id") if isinstance(body, Mapping) else None
        if reply is None or reply != self._last_reply:
            self._last_reply, self._said = reply, False
        if isinstance(message.get("error"), str):
            self._api_error = message["error"]
        for block in (body.get("content") or ()) if isinstance(body, Mapping) else ():
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text" and str(block.get("text", "")).strip():
                self._said = True
                self._print(visible(str(block["text"]).strip(), lines=True))
            elif block.get("type") == "tool_use":
                self._said = True
                self._print(self.style("36", self._call_line(block)))

    def _call_line(self, block: Mapping[str, Any]) -> str:
        use_id, name = str(block.get("id")), str(block.get("name"))
        note = ""
        if use_id in self._calls:  # a model reused the id of a call still running: the
            # results come back under one id, in any order, and cannot be told apart
            names, waiting = self._reused.get(use_id, ((self._calls[use_id],), 1))
            names = names if name in names else (*names, name)
            _remember(self._reused, use_id, (names, waiting + 1))
            note = " (the id of an earlier call: their results cannot be told apart)"
        else:
            # the id of a call that has ended (a model reusing ids turn after turn): a call
            # of its own, so a tag of its own, not the ended call's "#1" again
            self._tags.pop(use_id, None)
            _remember(self._calls, use_id, name)
        call = format_call(name, block.get("input"))
        tag = self.tag(use_id) if block.get("id") else ""
        return f"→ {tag}{call}{note}"

    def _label(self, use_id: str) -> str:
        """Whose result this is, as shown: every name its id was given to, until the last
        of their results."""
        names, waiting = self._reused.pop(use_id, ((self._calls.get(use_id, ""),), 1))
        if waiting > 1:
            _remember(self._reused, use_id, (names, waiting - 1))
        else:
            self._calls.pop(use_id, None)
        return " or ".join(shown_name(n) for n in names if n)

    def _user(self, message: Mapping[str, Any]) -> None:
        body = message.get("message")
        content = body.get("content") if isinstance(body, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                text = shorten(_result_text(block.get("content"))) or "(empty)"
                # results of parallel calls arrive in any order: say whose each one is
                use_id = block.get("tool_use_id")
                name = self._label(str(use_id))
                text = visible(text)
                if name:
                    text = f"{name}: {text}"
                tag = self.tag(use_id) if isinstance(use_id, str) else ""
                if block.get("is_error"):
                    self._print(self.style("31", f"  {tag}✗ {text}"))
                else:
                    self._print(self.style("32", f"  {tag}← {text}"))

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        """Show a permission decision under its call (``tool_use_id`` gives its tag)."""
        # Formatted once per rule (and deny message), not once per call: a session's
        # decisions repeat a few rules; only the tag differs from one to the next.
        last = self._last_decision
        if last[0] is decision:
            parts = last[1]
        else:
            key = (decision.behavior, decision.rule, decision.origin, decision.answered_by,
                   decision.updated_input is not None,
                   decision.message if decision.behavior != "allow" else "")
            kept = self._decision_lines.get(key)
            if kept is None:
                kept = self._decision_line(decision)
                if len(self._decision_lines) >= MAX_DECISION_LINES:  # bounded: start over
                    self._decision_lines.clear()
                self._decision_lines[key] = kept
            parts = kept
            self._last_decision = (decision, parts)
        self._print(f"{parts[0]}{self.tag(tool_use_id)}{parts[1]}")

    def _decision_line(self, decision: Decision) -> tuple[str, str]:
        """A decision's line as (what goes before its tag, what goes after)."""
        who = visible(decision.rule or f"default ({decision.answered_by})")
        where = visible(f" at {decision.origin}") \
            if decision.origin is not None and decision.origin.line else ""
        if decision.behavior == "allow":
            note = " (input rewritten)" if decision.updated_input is not None else ""
            line = self.style("2", f"  \0✓ allowed by {who}{where}{note}")
        else:
            line = self.style("33", f"  \0⊘ denied by {who}{where}: "
                                    f"{shown_message(decision.message or '')}")
        before, _, after = line.partition("\0")  # visible() leaves no NUL in who or where
        return before, after

    def _result(self, message: Mapping[str, Any]) -> None:
        ok = message.get("subtype") == "success" and not message.get("is_error")
        # a CLI's odd duration (a string, a list, NaN) is no reason to lose the turn's end
        ms = message.get("duration_ms") or 0
        number = isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms == ms
        seconds = f"{ms / 1000:.1f}" if number else "?"
        cost = message.get("total_cost_usd")
        # no reply at all (the API was never reached): 0, whatever the CLI counted
        turns = len(self._replies) or (message.get("num_turns", "?") if self._unnamed else 0)
        self._replies, self._unnamed = set(), False
        if ok and turns and not self._said:  # the model's last reply said nothing at all
            self._print(self.style("2", "(the model ended the turn with no text: its last "
                                        "reply had none, only thinking or nothing)"))
        self._said, self._last_reply = False, None
        parts = [f"{turns} turn{'' if turns == 1 else 's'}", f"{seconds} s"]
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            # the CLI's total_cost_usd is the session's so far: this turn's is the difference
            before, self._cost = self._cost, float(cost)
            parts.append(f"${cost:.4f}" if before is None or cost < before
                         else f"${cost - before:.4f} (session ${cost:.4f})")
        denials = message.get("permission_denials") or []
        if denials:
            parts.append(f"{len(denials)} denied")
        subtype = message.get("subtype")
        reason = (self._api_error or message.get("terminal_reason")
                  if subtype == "success" else subtype)
        # a turn the person interrupted (Ctrl-C) did not fail: it was stopped, as asked
        stopped = not ok and self.interrupted is not None and self.interrupted()
        head = "done" if ok else f"{'interrupted' if stopped else 'failed'} ({reason or 'error'})"
        self._print(self.style("1" if ok else "1;33" if stopped else "1;31",
                               visible(f"— {head}: " + ", ".join(parts))))
        hint = None if ok else explain(self._api_error, str(message.get("result") or ""))
        if subtype == "error_max_turns" and not stopped:
            hint = max_turns_hint(message.get("errors"))
        self._api_error = None
        if hint:
            self._print(self.style("33", visible(hint, lines=True)))

    def close(self) -> None:
        self._clear_status()
        held, self._held = self._held, []
        for line in held:
            print(line, file=self.out, flush=True)
        # every call shown is answered or said lost: a session a signal, a crash or the
        # CLI's exit ended while calls ran leaves them without a result line
        lost, self._calls = list(self._calls.items()), OrderedDict()
        for use_id, name in lost:
            print(self.style("33", f"  {self.tag(use_id)}✗ {shown_name(name)}: no result came "
                                   "back before the session ended"), file=self.out, flush=True)


class JsonRenderer:
    """For scripts: every conversation message the CLI sent, one JSON object a line."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def message(self, message: Mapping[str, Any]) -> None:
        # the same JSON, with nothing in it a terminal would act on (``inert_json``)
        self.out.write(inert_json(json.dumps(message, ensure_ascii=False)) + "\n")
        self.out.flush()

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        return None  # the CLI's own messages carry the outcome (permission_denials)

    def status(self, text: str) -> None:
        return None

    def close(self) -> None:
        return None


def make_renderer(output: str) -> Renderer:
    if output == "json":
        return JsonRenderer()
    return TextRenderer()

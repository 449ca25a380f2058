"""Showing a session: human-readable text, or the raw message stream as JSON lines.

The text form shows assistant text, each tool call with its arguments, each result
(shortened), each permission decision, and a final line with turns, duration and cost.
Unknown message types are skipped: the CLI adds new ones often.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, Protocol, TextIO

from toolhost.permissions.decision import Decision

__all__ = ["JsonRenderer", "Renderer", "TextRenderer", "make_renderer", "shorten"]

RESULT_CHARS = 200
ARG_CHARS = 120


def shorten(text: str, limit: int = RESULT_CHARS) -> str:
    """One line, at most ``limit`` characters, saying how much was cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1] + f"… (+{len(flat) - limit + 1} chars)"


def format_call(name: str, arguments: Any) -> str:
    if not isinstance(arguments, Mapping):
        return f"{name}({shorten(json.dumps(arguments), ARG_CHARS)})"
    args = ", ".join(f"{k}={shorten(json.dumps(v, ensure_ascii=False), ARG_CHARS)}"
                     for k, v in arguments.items())
    return f"{name}({args})"


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
    def decision(self, tool_name: str, tool_input: Mapping[str, Any],
                 decision: Decision) -> None: ...
    def status(self, text: str) -> None: ...
    def close(self) -> None: ...


class _Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


class TextRenderer:
    """For people: a compact transcript on ``out``; progress lines on ``err``."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, *,
                 color: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        if color is None:
            color = bool(getattr(self.out, "isatty", lambda: False)())
        self.style = _Style(color)
        self._status_open = False
        self._shown_init = False
        self._calls: dict[str, str] = {}  # tool_use id -> tool name, to label each result

    def _print(self, text: str) -> None:
        self._clear_status()
        print(text, file=self.out, flush=True)

    def _clear_status(self) -> None:
        if self._status_open:
            self.err.write("\r\x1b[K" if self.style.enabled else "\n")
            self.err.flush()
            self._status_open = False

    def status(self, text: str) -> None:
        """A transient progress line (replaced by the next output on a terminal)."""
        self._clear_status()
        if self.style.enabled:
            self.err.write(self.style("2", f"… {text}"))
            self._status_open = True
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
        elif kind == "tool_progress" and message.get("heartbeat"):
            self._print(self.style("2", f"  … {message.get('tool_name')} still running "
                                        f"({message.get('elapsed_time_seconds')} s)"))

    def _init(self, message: Mapping[str, Any]) -> None:
        self._clear_status()
        if self._shown_init:  # the CLI repeats it every turn
            return
        self._shown_init = True
        servers = [s for s in message.get("mcp_servers") or () if isinstance(s, Mapping)]
        names = ", ".join(f"{s.get('name')} ({s.get('status')})" for s in servers) or "none"
        tools = [t for t in message.get("tools") or () if str(t).startswith("mcp__")]
        self._print(self.style("2", f"session: model {message.get('model')}, MCP servers "
                                    f"{names}, {len(tools)} MCP tools"))

    def _assistant(self, message: Mapping[str, Any]) -> None:
        body = message.get("message")
        for block in (body.get("content") or ()) if isinstance(body, Mapping) else ():
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text" and str(block.get("text", "")).strip():
                self._print(str(block["text"]).strip())
            elif block.get("type") == "tool_use":
                self._calls[str(block.get("id"))] = str(block.get("name"))
                call = format_call(str(block.get("name")), block.get("input"))
                self._print(self.style("36", f"→ {call}"))

    def _user(self, message: Mapping[str, Any]) -> None:
        body = message.get("message")
        content = body.get("content") if isinstance(body, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                text = shorten(_result_text(block.get("content"))) or "(empty)"
                # results of parallel calls arrive in any order: say whose each one is
                name = self._calls.pop(str(block.get("tool_use_id")), "")
                if name:
                    text = f"{name}: {text}"
                if block.get("is_error"):
                    self._print(self.style("31", f"  ✗ {text}"))
                else:
                    self._print(self.style("32", f"  ← {text}"))

    def decision(self, tool_name: str, tool_input: Mapping[str, Any],
                 decision: Decision) -> None:
        who = decision.rule or f"default ({decision.answered_by})"
        where = f" at {decision.origin}" if decision.origin is not None and decision.origin.line \
            else ""
        if decision.behavior == "allow":
            note = " (input rewritten)" if decision.updated_input is not None else ""
            self._print(self.style("2", f"  ✓ allowed by {who}{where}{note}"))
        else:
            self._print(self.style("33", f"  ⊘ denied by {who}{where}: {decision.message}"))

    def _result(self, message: Mapping[str, Any]) -> None:
        ok = message.get("subtype") == "success" and not message.get("is_error")
        seconds = (message.get("duration_ms") or 0) / 1000
        cost = message.get("total_cost_usd")
        turns = message.get("num_turns", "?")
        parts = [f"{turns} turn{'' if turns == 1 else 's'}", f"{seconds:.1f} s"]
        if isinstance(cost, (int, float)):
            parts.append(f"${cost:.4f}")
        denials = message.get("permission_denials") or []
        if denials:
            parts.append(f"{len(denials)} denied")
        head = "done" if ok else f"failed ({message.get('subtype')})"
        self._print(self.style("1" if ok else "1;31", f"— {head}: " + ", ".join(parts)))

    def close(self) -> None:
        self._clear_status()


class JsonRenderer:
    """For scripts: every conversation message the CLI sent, one JSON object a line."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def message(self, message: Mapping[str, Any]) -> None:
        self.out.write(json.dumps(message, ensure_ascii=False) + "\n")
        self.out.flush()

    def decision(self, tool_name: str, tool_input: Mapping[str, Any],
                 decision: Decision) -> None:
        return None  # the CLI's own messages carry the outcome (permission_denials)

    def status(self, text: str) -> None:
        return None

    def close(self) -> None:
        return None


def make_renderer(output: str) -> Renderer:
    if output == "json":
        return JsonRenderer()
    return TextRenderer()

"""RedactingRenderer's ``plain``: with no secret to hide, a decision is shown without a
redaction call (the run path's decision line), and the line is the one it always was."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

from toolhost.permissions.decision import Decision
from toolhost.runner.live import LiveHost
from toolhost.runner.redact import RedactingRenderer
from toolhost.runner.render import TextRenderer

SECRET = "s3cr3t-value"


class Recording:
    """An inner renderer that keeps what it is shown."""

    def __init__(self) -> None:
        self.decisions: list[tuple[str, Decision, str | None]] = []

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        self.decisions.append((tool_name, decision, tool_use_id))

    def message(self, message: Any) -> None:
        pass

    def status(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


DECISIONS = [
    Decision("allow", rule="mcp__x__y", answered_by="policy"),
    Decision("deny", "not today", rule="mcp__x__*", answered_by="policy"),
    Decision("deny", "no rule allows it", answered_by="default"),
]


def test_a_plain_redaction_is_not_called_and_the_lines_are_the_same() -> None:
    calls: list[str] = []

    def counting(text: str) -> str:
        calls.append(text)
        return text

    plain_out, full_out = io.StringIO(), io.StringIO()
    plain = RedactingRenderer(TextRenderer(plain_out, io.StringIO(), color=False), counting,
                              plain=lambda: True)
    full = RedactingRenderer(TextRenderer(full_out, io.StringIO(), color=False), lambda s: s)
    for i, decision in enumerate(DECISIONS * 2):
        plain.decision("mcp__x__y", decision, tool_use_id=f"toolu_{i}")
        full.decision("mcp__x__y", decision, tool_use_id=f"toolu_{i}")
    assert calls == []
    assert plain_out.getvalue() == full_out.getvalue()
    assert plain_out.getvalue().count("\n") == 6


def test_a_secret_brought_by_a_reload_is_hidden_at_the_next_decision() -> None:
    secrets: set[str] = set()

    def redact(text: str) -> str:
        return text.replace(SECRET, "***") if secrets else text

    inner = Recording()
    shown = RedactingRenderer(inner, redact, plain=lambda: not secrets)
    decision = Decision("deny", f"not with {SECRET}", rule=f"mcp__{SECRET}",
                        answered_by="policy")
    shown.decision(f"mcp__{SECRET}", decision)
    assert inner.decisions[-1] == (f"mcp__{SECRET}", decision, None)  # nothing to hide yet
    secrets.add(SECRET)  # the reload
    shown.decision(f"mcp__{SECRET}", decision, tool_use_id="toolu_2")
    name, seen, use_id = inner.decisions[-1]
    assert (name, seen.message, seen.rule, use_id) == ("mcp__***", "not with ***", "mcp__***",
                                                       "toolu_2")


def test_a_rewritten_input_is_still_masked_when_plain() -> None:
    # mask_arguments hides secret-named keys with or without secrets: never skipped
    inner = Recording()
    shown = RedactingRenderer(inner, lambda s: s, plain=lambda: True)
    shown.decision("mcp__db__q", Decision("allow", rule="mcp__db__q", answered_by="policy",
                                          updated_input={"password": "hunter2", "n": 1}))
    assert inner.decisions[-1][1].updated_input == {"password": "***", "n": 1}


def test_live_host_hides_nothing_only_without_a_secret_in_either_config() -> None:
    def host(*secrets: str) -> Any:
        return SimpleNamespace(config=SimpleNamespace(secrets=frozenset(secrets)))

    live = object.__new__(LiveHost)
    live.started = live.host = host()
    assert live.hides_nothing()
    live.host = host(SECRET)  # a reload brought one
    assert not live.hides_nothing()
    live.started, live.host = host(SECRET), host()  # the first config's: the CLI may echo it
    assert not live.hides_nothing()

"""An ``ask`` under ``toolhost serve``: the person at the MCP client answers it, if it can.

A client that declared the ``elicitation`` capability is sent ``elicitation/create`` with the
tool, its arguments (secrets masked) and where the ask came from; *accept* allows this one
call, *decline* or *cancel* denies it. In the stateless 2026-07-28 revision the question goes
out as ``input_required`` (toolhost.mcp.client_requests.RoundTrip). A client that cannot be
asked (no capability, an HTTP client that accepts JSON only), an answer that does not
come within ``ASK_TIMEOUT``, or any failure is the fallback: a deny that says nobody could be
asked. The audit log records who answered (``person (MCP client)``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.mcp.client_requests import ClientRequestError, current_channel
from toolhost.permissions.decision import Asker, Decision
from toolhost.redaction import scrub
from toolhost.redaction.values import mask_arguments

__all__ = ["ASK_TIMEOUT", "ClientAsker"]

log = logging.getLogger("toolhost.serve")

ASK_TIMEOUT = 300.0  # seconds a person at the client has to answer
_SHOWN = 2000  # characters of the arguments shown in the question
ANSWERED_BY = "person (MCP client)"


class ClientAsker:
    """Asks through the call's MCP client (elicitation); otherwise ``fallback`` answers."""

    def __init__(self, fallback: Asker, redact: Callable[[str], str] = lambda s: s,
                 timeout: float = ASK_TIMEOUT) -> None:
        self.fallback = fallback
        self.redact = redact
        self.timeout = timeout

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        channel = current_channel()
        if channel is None or not channel.supports("elicitation"):
            return await self.fallback.ask(tool_name, tool_input, decision)
        shown = json.dumps(mask_arguments(tool_input, self.redact), indent=2,
                           ensure_ascii=False, default=str)
        if len(shown) > _SHOWN:
            shown = shown[:_SHOWN] + f"\n... ({len(shown) - _SHOWN} more characters)"
        why = (f"rule {decision.rule!r} at {decision.origin}" if decision.rule is not None
               else "no rule matched; the default is ask")
        text = f"toolhost: allow {tool_name}? ({why})\n{shown}"
        if decision.message:
            text += f"\n{decision.message}"
        # The whole question leaves toolhost: a rule's message (or the rule itself) may quote
        # a ${SECRET}, as on the deny path (toolhost.serve.guard)
        text = scrub(self.redact(text))
        from toolhost.mcp.elicit import elicit  # with the first ask, not at start

        try:
            answer = await elicit(channel, text, None, timeout=self.timeout)
        except ClientRequestError as exc:
            log.info("could not ask the client about %s: %s", tool_name, exc)
            return await self.fallback.ask(tool_name, tool_input, decision)
        if answer.accepted:
            return Decision("allow", rule=decision.rule, origin=decision.origin,
                            answered_by=ANSWERED_BY)
        return Decision("deny", f"A person at the MCP client denied {tool_name} "
                        f"({answer.action}).", rule=decision.rule, origin=decision.origin,
                        answered_by=ANSWERED_BY)

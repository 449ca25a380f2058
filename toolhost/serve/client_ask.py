"""An ``ask`` under ``toolhost serve``: the person at the MCP client answers it, if it can.

A client that declared the ``elicitation`` capability is sent ``elicitation/create`` with the
tool, its arguments (secrets masked) and where the ask came from; *accept* allows this one
call, *decline* or *cancel* denies it. In the stateless 2026-07-28 revision the question goes
out as ``input_required`` (toolhost.mcp.client_requests.RoundTrip). A client that cannot be
asked (no capability, an HTTP client that accepts JSON only), an answer that does not
come within ``ASK_TIMEOUT``, or any failure is the fallback: a deny that says nobody could be
asked. The audit log records who answered (``person (MCP client)``).

The question shows the call as ``toolhost run``'s terminal question does
(``toolhost.permissions.ask_shown``): bounded, a long value by its start and its end, and
every character that makes text read as something it is not (a bidi override, a zero-width
or C1 control) written as an escape (``toolhost.visible``). Before, the arguments were cut
after their first 2,000 characters (a model padding one pushed ``; curl ... | sh`` out of
sight) and shown raw (a right-to-left override made the command read backwards).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.mcp.client_requests import ClientRequestError, current_channel
from toolhost.permissions.ask_shown import shown_input, shown_name
from toolhost.permissions.decision import Asker, Decision
from toolhost.redaction import scrub
from toolhost.redaction.values import mask_arguments
from toolhost.visible import visible

__all__ = ["ASK_TIMEOUT", "ClientAsker"]

log = logging.getLogger("toolhost.serve")

ASK_TIMEOUT = 300.0  # seconds a person at the client has to answer
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
        # secrets masked before anything is cut or escaped (a cut never halves one)
        shown = shown_input(mask_arguments(tool_input, self.redact)).text
        why = (f"rule {decision.rule!r} at {decision.origin}" if decision.rule is not None
               else "no rule matched; the default is ask")
        # The whole question leaves toolhost: a rule's message (or the rule itself) may quote
        # a ${SECRET}, as on the deny path (toolhost.serve.guard)
        text = (f"toolhost: allow {shown_name(tool_name).text}? "
                f"({visible(scrub(self.redact(why)))})\n{shown}")
        if decision.message:
            text += f"\n{visible(scrub(self.redact(decision.message)), lines=True)}"
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

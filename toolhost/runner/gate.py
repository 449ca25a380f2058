"""The runner's answer to ``can_use_tool``: the permission gate, then the decision shown;
and the second lock, at ``tools/call``.

``make_gate`` builds the ``PermissionGate`` of a host with ``PermissionGate.from_config``
(the one place the asker is chosen: ``ask_mode``, the terminal, ``--yes``, which it says
loudly on stderr), reusing the host's compiled policy.

The second lock (``toolhost.permissions.second_lock``): each allow answered to
``can_use_tool`` is noted by the model's tool-use id with the input it allowed, and a
``tools/call`` of a toolhost tool (``RunnerGate.guard``) runs as it is only when it comes with
a noted id and that very input. Any other call is decided here, as if the CLI had asked: the
rules, the person for an ask, the audit log; a deny is the call's error.

Decision lines are shown in the order the CLI's requests came (``_InOrder``): a call decided
at once never has its line shown before that of a call read ahead of it whose question is
still open (the control session begins requests in the order read).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from toolhost.backends.base import CallContext
from toolhost.compile.defaults import FillRefused
from toolhost.compile.tool import CompiledTool
from toolhost.host import Host
from toolhost.permissions import PermissionGate
from toolhost.permissions.decision import Asker, Decision
from toolhost.permissions.second_lock import READ_RESOURCE_TOOL, NotedAllows, NotedReads
from toolhost.results import ToolResult
from toolhost.runner.render import Renderer
from toolhost.runner.terminal import ASKING_TAG
from toolhost.serve.guard import decided, judged_input, rules_defaults

__all__ = ["RunnerGate", "make_gate"]

log = logging.getLogger("toolhost.runner")


def make_gate(host: Host, *, yes: bool = False, asker: Asker | None = None) -> PermissionGate:
    """The host's gate: its compiled policy, the asker its config calls for, its audit log."""
    return PermissionGate.from_config(host.config, assume_yes=yes, policy=host.policy,
                                      asker=asker)


class _InOrder:
    """Decision lines shown in the order their requests came: each takes a ticket as it
    comes (``take``) and is shown (``show``) once every earlier ticket was shown or dropped
    (``drop``: a request cancelled before its decision)."""

    def __init__(self) -> None:
        self._next = 0  # the next ticket given
        self._head = 0  # the first ticket not shown yet
        self._ready: dict[int, Callable[[], object] | None] = {}

    def take(self) -> int:
        self._next += 1
        return self._next - 1

    def now(self, ticket: int) -> bool:
        """Whether ``ticket`` may be shown at once (nobody ahead): then it counts as shown."""
        if ticket == self._head and not self._ready:  # the usual one
            self._head += 1
            return True
        return False

    def show(self, ticket: int, show: Callable[[], object]) -> None:
        if self.now(ticket):
            show()
            return
        self._ready[ticket] = show
        self._flush()

    def drop(self, ticket: int) -> None:
        if ticket >= self._head and ticket not in self._ready:
            self._ready[ticket] = None
            self._flush()

    def _flush(self) -> None:
        while self._head in self._ready:
            show = self._ready.pop(self._head)
            self._head += 1
            if show is not None:
                show()


class RunnerGate:
    """The control session's ``PermissionFn``: ask the gate, show the decision."""

    def __init__(self, gate: PermissionGate, renderer: Renderer, *,
                 tag: Callable[[str], str] | None = None) -> None:
        self.gate = gate
        self.renderer = renderer
        self.tag = tag  # a call's "#N " as its call line shows it (TextRenderer.tag)
        self.noted = NotedAllows()  # the allows answered: see the module docstring
        self.reads = NotedReads()  # and the reads allowed (claimed by the read guard)
        self._generation = gate.generation  # the rules the notes were taken under
        # decided by decide_now, shown by after_answer (with their tickets)
        self._unshown: list[tuple[int, str, dict[str, Any], dict[str, Any], Decision]] = []
        self._order = _InOrder()  # decision lines in the order their requests came

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        # a question asked for this call shows its tag (#N), as its call line does
        use_id = request.get("tool_use_id")
        token = ASKING_TAG.set(self.tag(use_id) if self.tag and isinstance(use_id, str)
                               else "")
        judged = rules_defaults(self.gate, tool_name)  # (before a question: see _noted)
        ticket = self._order.take()  # before any pause: in the order the requests came
        try:
            decision = await self.gate.check(tool_name, tool_input, request)
        except BaseException:
            self._order.drop(ticket)
            raise
        finally:
            ASKING_TAG.reset(token)
        self._order.show(ticket, lambda: self._shown(tool_name, tool_input, request,
                                                     decision))
        return self._noted(tool_name, tool_input, request, decision, judged)

    def decide_now(self, tool_name: str, tool_input: dict[str, Any],
                   request: dict[str, Any]) -> Decision | None:
        """The same without a pause, or None for an "ask" (see ``DecideNowFn``).

        The decision is shown just after, by ``after_answer``, which the session calls once
        the CLI's answer is written: the screen is not what the CLI waits for, and no turn
        of the event loop is spent on it."""
        gate = self.gate
        decision = gate.check_now(tool_name, tool_input, request)
        if decision is not None:
            self._unshown.append((self._order.take(), tool_name, tool_input, request,
                                  decision))
            if self._generation != gate.generation:
                self.current()
            if tool_name == READ_RESOURCE_TOOL:
                self.reads.note(tool_name, tool_input, decision)
            self.noted.note(tool_name, tool_input, request.get("tool_use_id"), decision,
                            rules_defaults(gate, tool_name))
        return decision

    def after_answer(self) -> None:
        """Show the decisions ``decide_now`` made and did not show yet (in order)."""
        unshown = self._unshown
        while unshown:
            if len(unshown) == 1:  # the usual one: no shift of the list
                ticket, tool_name, tool_input, request, decision = unshown.pop()
            else:
                ticket, tool_name, tool_input, request, decision = unshown.pop(0)
            if self._order.now(ticket):
                self._shown(tool_name, tool_input, request, decision)
            else:
                self._order.show(ticket, partial(self._shown, tool_name, tool_input, request,
                                                 decision))

    def current(self) -> None:
        """Drop the allows noted under rules a reload has replaced: their calls (and reads)
        are decided again under the rules in force when they come (a call allowed just
        before the team's deny arrived must not run on that allow)."""
        if self._generation != self.gate.generation:
            self._generation = self.gate.generation
            self.noted.clear()
            self.reads.clear()

    def claim_read(self, server: str, uri: str) -> bool:
        """``NotedReads.claim`` under the rules in force (the read guard's ``claim_read``)."""
        self.current()
        return self.reads.claim(server, uri)

    def _noted(self, tool_name: str, tool_input: Mapping[str, Any],
               request: Mapping[str, Any], decision: Decision,
               judged: Mapping[str, Any] | None = None) -> Decision:
        """Note an allow with the defaults the rules filled in (``judged``, as they were when
        the decision was made: an upstream may re-list its tools while a person is asked)."""
        self.current()
        if tool_name == READ_RESOURCE_TOOL:
            self.reads.note(tool_name, tool_input, decision)
        return self.noted.note(tool_name, tool_input, request.get("tool_use_id"), decision,
                               judged)

    async def guard(self, tool: CompiledTool, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        """The second lock (an ``McpServer`` guard): None to run the call as it is, or the
        result to send instead (see the module docstring)."""
        name = ctx.tool or tool.wire_name
        tool_use_id = ctx.tool_use_id
        self.current()
        if self.noted.claim(name, arguments, tool_use_id, tool.defaults):
            return None  # the call the CLI asked about, as it was allowed
        request: dict[str, Any] = {"tool_use_id": tool_use_id} if tool_use_id else {}
        log.debug("tools/call of %s: the CLI did not ask about this call (or this input, "
                  "or the tool's defaults changed since); deciding it here", name)
        # As a can_use_tool is decided (rules, audit line), at once when no one needs asking.
        # An allow is not shown: the CLI's own rules had allowed the call too, and the call
        # and its result are on the screen (a line more would cost every such call a turn of
        # the event loop); a deny is, and an ask shows the question and its answer.
        try:  # judged with the defaults of the very tool that runs
            judged = judged_input(tool, arguments, rules_defaults(self.gate, name))
            args = judged if type(judged) is dict else dict(judged)
        except FillRefused as exc:
            return ToolResult.error(exc.said(name))
        decision = self.gate.check_now(name, args, request)
        if decision is None:
            decision = await self(name, args, request)
            self.noted.forget(tool_use_id)  # noted just now: this is its call
        elif decision.behavior != "allow":
            self._shown(name, args, request, decision)
        elif decision.updated_input is None:
            return None  # (what ``decided`` answers a plain allow, without its coroutine)
        return await decided(decision, tool, arguments, ctx, name)

    def _shown(self, tool_name: str, tool_input: dict[str, Any], request: dict[str, Any],
               decision: Decision) -> Decision:
        tool_use_id = request.get("tool_use_id")
        try:
            self.renderer.decision(tool_name, decision,
                                   tool_use_id=tool_use_id if isinstance(tool_use_id, str)
                                   else None)
        except OSError as exc:  # the screen went away (SIGHUP, a closed pipe): still answer
            log.debug("showing a decision failed: %r", exc)
        return decision

    def close(self) -> None:
        self.gate.close()

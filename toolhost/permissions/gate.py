"""PermissionGate: decide, resolve "ask", write the audit record. What transports call."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from typing import Any

import anyio.to_thread
from anyio import get_cancelled_exc_class

from toolhost.config.model import HostConfig
from toolhost.permissions.ask import (
    FixedAsker,
    TerminalAsker,
    TerminalHungUp,
    no_terminal_asker,
    terminal_available,
)
from toolhost.permissions.ask_order import AskOrder
from toolhost.permissions.audit import AuditLog
from toolhost.permissions.decision import Asker, Decision, Policy
from toolhost.permissions.policy import compile_policy
from toolhost.permissions.reading_dirs import reading_dirs
from toolhost.redaction import Redactor, active

__all__ = ["PermissionGate", "reloaded_meanwhile"]

log = logging.getLogger("toolhost.permissions")


def declared_tool_names(config: HostConfig) -> list[str]:
    """The wire names of every tool the config declares."""
    return [tool.wire_name for server in config.servers.values()
            for tool in server.tools.values()]


def declared_defaults(config: HostConfig) -> dict[str, Mapping[str, Any]]:
    """The top-level defaults each tool's config declares (``params`` or ``input_schema``),
    by wire name: what ``permissions test`` and ``check`` fill in for an argument a case
    leaves out, as ``run`` and ``serve`` do. A default only a python tool's signature gives
    is not known here (its module is not imported to judge a case)."""
    from toolhost.compile.declared import declared_defaults
    from toolhost.compile.schema import merge_input_schema

    out: dict[str, Mapping[str, Any]] = {}
    for server in config.servers.values():
        for tool in server.tools.values():
            found = declared_defaults(merge_input_schema({}, tool))
            if found:
                out[tool.wire_name] = found
        out.update(_imported_defaults(server.name, server.upstream))
    return out


def _imported_defaults(server: str, upstream: Any) -> dict[str, Mapping[str, Any]]:
    """The ``defaults:`` the config gives the tools of an imported MCP server, by the wire
    name each is shown under: what is known of their defaults without starting the upstream
    (its own schema's defaults are not; ``permissions check`` says so)."""
    reshape = getattr(upstream, "reshape", None)
    if not isinstance(reshape, Mapping):
        return {}
    return {f"mcp__{server}__{item.name or name}": dict(item.defaults)
            for name, item in reshape.items() if getattr(item, "defaults", None)}


def _redacted(hide: Redactor, text: str) -> str:
    """``hide.redact(text)``; a short text's kept (a record's rule, origin, answered_by and
    tool name repeat, and each search costs ~50 us however short the text)."""
    return _short(hide, text) if len(text) <= _SHORT else hide.redact(text)


_SHORT = 256


@functools.lru_cache(maxsize=1024)
def _short(hide: Redactor, text: str) -> str:
    return hide.redact(text)


def _config_of(redact: Callable[[str], str]) -> HostConfig | None:
    """The config whose own redaction (``HostConfig.redact``) ``redact`` is, else None."""
    owner = getattr(redact, "__self__", None)
    if type(owner) is HostConfig and getattr(redact, "__func__", None) is HostConfig.redact:
        return owner
    return None


def _hides_nothing(redact: Callable[[str], str]) -> bool:
    """Whether ``redact`` is a config's own (``HostConfig.redact``) and that config has no
    secret: then it returns every text as it is. Anything else may hide something."""
    config = _config_of(redact)
    return config is not None and not config.secrets


def _reads_of(policy: Policy) -> Callable[[str, Mapping[str, Any]], bool] | None:
    """The policy's ``reads_files``, if it has one (looked up once per policy, not per call)."""
    reads = getattr(policy, "reads_files", None)
    return reads if callable(reads) else None


def reloaded_meanwhile(tool_name: str, answered: Decision, now: Decision) -> Decision:
    """A call decided (a person asked) while a reload brought new rules, whose decision is
    ``now``: a deny of the new rules wins over any answer, their allow decides an allowed
    call (their rewrite too), and otherwise (they ask, the person said no) ``answered``
    stands. ``toolhost run --watch`` and ``toolhost serve --watch`` alike."""
    if now.behavior == "deny":
        why = (now.message or f"{tool_name} is denied.").rstrip()
        return Decision("deny", f"{why} (the config was reloaded while the question was "
                        "open: its rules deny this call)", rule=now.rule, origin=now.origin,
                        answered_by="policy (reloaded)", error=now.error)
    if now.behavior == "allow" and answered.behavior == "allow":
        return now
    return answered


class PermissionGate:
    """The one place a tool call is permitted: ``await gate.check(name, input)`` -> Decision.

    The returned decision is always ``allow`` or ``deny`` (an "ask" is resolved by the asker;
    an asker that fails or answers "ask" again is a deny). Use ``decision.to_control_response()``
    for the CLI's ``can_use_tool`` answer, and ``decision.updated_input`` (when set) as the
    arguments the tool receives.
    """

    def __init__(self, policy: Policy, asker: Asker, audit: AuditLog | None = None,
                 redact: Callable[[str], str] = lambda s: s) -> None:
        self._policy = policy
        self._reads = _reads_of(policy)
        # One more each time a reload installs rules (``policy = ...``): an allow decided
        # under earlier rules and not yet used (toolhost.runner.gate) is decided again
        self.generation = 0
        self.asker = asker
        self.audit = audit
        # What the asker and audit log that from_config builds hide; a reload replaces it
        # (with ``policy``) when the config's secrets change.
        self.redact = redact
        # Why a question still open will not be answered (the audit line says it), when the
        # host is ending, e.g. "toolhost is stopping (SIGTERM)"; else "cancelled" is all.
        self.ending: str | None = None
        self._order = AskOrder()  # questions asked in the order the checks began

    @property
    def policy(self) -> Policy:
        """The rules every check uses; a reload (``toolhost run --watch``) sets new ones."""
        return self._policy

    @policy.setter
    def policy(self, policy: Policy) -> None:
        self._policy = policy
        self._reads = _reads_of(policy)
        self.generation += 1

    def unanswered(self, tool_name: str) -> str:
        """Why a question about ``tool_name`` ended unanswered: the deny's message, in the
        audit log and (``toolhost run`` stopping) in the CLI's answer alike."""
        why = self.ending or "the request was cancelled"
        return f"Nobody answered the question about {tool_name}: {why}."

    async def check(self, tool_name: str, tool_input: Mapping[str, Any],
                    request: Mapping[str, Any] | None = None) -> Decision:
        """Decide one call. ``request`` is the CLI's can_use_tool request body, if any."""
        policy = self._policy
        order = self._order
        ticket = order.take()  # before any pause: questions go in the order checks began
        try:
            if self._reads_files(tool_name, tool_input):  # (git run in a slow repository
                # held every other call, a cancel and a signal, up to 10 s a read)
                decision = await anyio.to_thread.run_sync(policy.decide, tool_name,
                                                          tool_input)
            else:
                decision = policy.decide(tool_name, tool_input)
        except BaseException:
            order.passed(ticket)
            raise
        if decision.behavior != "ask":
            order.passed(ticket)
        else:
            try:
                try:  # (a check ahead of this one may still decide in a thread)
                    await order.turn(ticket)
                finally:  # the asker's lock keeps the order from here on
                    order.passed(ticket)
                decision = await self.asker.ask(tool_name, tool_input, decision)
            except get_cancelled_exc_class():  # the question ended unanswered: still recorded
                self._recorded(tool_name, tool_input, Decision(
                    "deny", self.unanswered(tool_name),
                    rule=decision.rule, origin=decision.origin,
                    answered_by="nobody (question ended)"), request)
                raise
            except TerminalHungUp:  # nobody is there (not a person's Ctrl-D): said as the
                # stop the hang-up began says it to the CLI
                decision = Decision("deny", f"Nobody answered the question about {tool_name}: "
                                    f"{self.ending or 'the terminal closed'}.",
                                    rule=decision.rule, origin=decision.origin,
                                    answered_by="nobody (terminal closed)")
            except Exception as exc:  # nobody could answer: fail closed
                log.warning("asking about %s failed: %s", tool_name, exc)
                decision = Decision("deny", f"{tool_name} needs a person's approval, and asking "
                                    f"failed ({type(exc).__name__}: {exc}).",
                                    rule=decision.rule, origin=decision.origin,
                                    answered_by="error")
            if decision.behavior == "ask":
                decision = Decision("deny", decision.message or f"{tool_name} needs a "
                                    "person's approval, and nobody answered.",
                                    rule=decision.rule, origin=decision.origin,
                                    answered_by=decision.answered_by)
            if self._policy is not policy:
                decision = self._reloaded_meanwhile(tool_name, tool_input, decision)
        return self._recorded(tool_name, tool_input, decision, request)

    def _reloaded_meanwhile(self, tool_name: str, tool_input: Mapping[str, Any],
                            answered: Decision) -> Decision:
        """The person's answer to a question the rules of a reload no longer ask: a rule that
        now denies the call denies it (a "yes" given after the team's deny arrived must not
        run it), one that now allows it decides it (its rewrite too); a deny stands."""
        return reloaded_meanwhile(tool_name, answered, self._policy.decide(tool_name,
                                                                           tool_input))

    def check_now(self, tool_name: str, tool_input: Mapping[str, Any],
                  request: Mapping[str, Any] | None = None) -> Decision | None:
        """``check`` without a pause: the decision (recorded), or None if the policy says
        "ask" (then ``await check(...)``, which asks; nothing was recorded), or when deciding
        may read files or run git (``check`` decides it off the event loop)."""
        reads = self._reads
        if reads is not None and reads(tool_name, tool_input):
            return None
        decision = self._policy.decide(tool_name, tool_input)
        if decision.behavior == "ask":
            return None
        return self._recorded(tool_name, tool_input, decision, request)

    def _reads_files(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        reads = self._reads
        return bool(reads(tool_name, tool_input)) if reads is not None else False

    def _recorded(self, tool_name: str, tool_input: Mapping[str, Any], decision: Decision,
                  request: Mapping[str, Any] | None) -> Decision:
        if self.audit is not None:
            tool_use_id = request.get("tool_use_id") if request else None
            try:
                self.audit.record(tool_name, tool_input, decision,
                                  tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None)
            except OSError as exc:  # an unwritable log must not let calls through unrecorded
                log.error("cannot write the audit log %s: %s", self.audit.path, exc)
                return Decision("deny", f"The permission audit log cannot be written ({exc}), "
                                "so no call is allowed.", rule=decision.rule,
                                origin=decision.origin, answered_by="error")
        return decision

    def close(self) -> None:
        """Close the audit log, if any."""
        if self.audit is not None:
            self.audit.close()

    @classmethod
    def from_config(cls, config: HostConfig, *, interactive: bool | None = None,
                    assume_yes: bool = False, policy: Policy | None = None,
                    asker: Asker | None = None) -> PermissionGate:
        """Build the gate a host uses: compiled policy, the asker ``ask_mode`` and the terminal
        call for, and the audit log if configured.

        ``interactive``: None detects a controlling terminal; True/False forces it.
        ``assume_yes`` (``--yes``) makes every "ask" an allow, and says so on stderr.
        ``policy``: an already compiled policy (``Host.policy``) instead of compiling the
        config's rules again. ``asker``: who answers "ask" (overrides the choice above).
        """
        perms = config.permissions

        # The audit log hides what the gate's current redaction hides (across reloads) and
        # every secret the process remembers: one a reload dropped is still hidden on the
        # screen (``ScrubbingStream``), and the log must not show what the screen hides.
        def redact(text: str) -> str:
            hide, own = active(), gate.redact
            config = _config_of(own)
            if config is None:  # a redaction set by hand: it, then the process's
                return hide.redact(own(text)) if hide else own(text)
            if not config.secrets:
                return _redacted(hide, text) if hide else text
            # one pass of one Redactor with both sets (cached), not two passes: each pass
            # costs a span search (~0.1-0.2 ms a string, ~7 strings a record)
            return _redacted(hide.union(config.secrets), text)

        def plain() -> bool:  # whether that redaction hides nothing now (see AuditLog)
            return _hides_nothing(gate.redact) and not active()

        if policy is None:
            policy = compile_policy(perms, tool_names=declared_tool_names(config),
                                    cwd=config.run.cwd, files=config.files,
                                    reading_dirs=reading_dirs(config, rules_dir=config.run.cwd))
        if asker is not None:
            pass
        elif assume_yes or perms.ask_mode == "allow":
            source = "--yes" if assume_yes else "ask_mode: allow"
            log.warning("%s: every permission 'ask' is answered ALLOW without asking anyone; "
                        "deny rules still apply", source)
            asker = FixedAsker("allow", answered_by=source)
        elif perms.ask_mode == "deny":
            asker = FixedAsker("deny", answered_by="ask_mode: deny")
        elif interactive or (interactive is None and terminal_available()):
            asker = TerminalAsker(redact=redact)
        else:
            asker = no_terminal_asker()
        if isinstance(asker, FixedAsker) and asker.behavior == "deny":
            from toolhost.permissions.unanswered import unanswered_note

            note = unanswered_note(config, "", nobody=True)
            if note is not None:  # once, at start: every such call is denied without a word
                log.warning("%s", note)
        audit = (AuditLog(perms.audit_log, redact=redact, plain=plain) if perms.audit_log
                 else None)
        gate = cls(policy, asker, audit, redact=config.redact)
        return gate

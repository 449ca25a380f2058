"""The second lock: a toolhost tool runs unasked only when its allow was answered for that call.

The Claude CLI asks ``can_use_tool`` before it calls a tool, unless something of its own
allowed the tool first (a settings file's ``permissions.allow`` or ``defaultMode``, a
permission mode, a flag, a hook): toolhost would then never hear of the call, and a deny or
ask rule would not hold. So each allow answered to ``can_use_tool`` is noted here by the
model's tool-use id with the input it allowed (``NotedAllows.note``), and when the
``tools/call`` of a toolhost tool arrives (its ``_meta["claudecode/toolUseId"]`` is
``CallContext.tool_use_id``) ``NotedAllows.claim`` says whether it is that very call, with
that very input. Any other call is decided by the caller there, as if the CLI had asked.

Used by ``toolhost run`` (``toolhost.runner.gate.RunnerGate``) and the SDK adapter
(``toolhost.sdk.SdkHost``).

A resource read is the same: the CLI asks ``can_use_tool`` about ``ReadMcpResourceTool``
``{server, uri}``, then sends ``resources/read``, which toolhost decides again (its read
guard). Without a tool-use id to pair them, ``NotedReads`` notes each allow by server and
URI, and the read of that very URI on that server claims one: one decision (one question
for an ``ask``, one audit line) per read, not two.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from toolhost.permissions.decision import Decision
from toolhost.permissions.sameness import same_json

__all__ = ["MAX_NOTED", "MAX_TOOL_USE_ID", "NotedAllows", "NotedReads"]

# Allows noted and not yet called for: a CLI that asks and never calls cannot grow this (the
# oldest goes first; its call, if it ever comes, is then decided again).
MAX_NOTED = 4096
# A tool-use id longer than this is not noted (the CLI's are ~30 characters): its call is
# decided again when it arrives, and 4096 huge ids cannot fill the memory.
MAX_TOOL_USE_ID = 256
# A URI longer than this is not noted: its read is decided again.
MAX_NOTED_URI = 4096
READ_RESOURCE_TOOL = "ReadMcpResourceTool"


class NotedAllows:
    """Allows answered to ``can_use_tool`` and not yet called for, by tool-use id."""

    def __init__(self) -> None:
        # tool-use id -> (tool name, the input allowed, the defaults the rules filled in)
        self._allowed: OrderedDict[str, tuple[str, Mapping[str, Any], Any]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._allowed)

    def ids(self) -> list[str]:
        """The noted tool-use ids, oldest first."""
        return list(self._allowed)

    def note(self, tool_name: str, tool_input: Mapping[str, Any], tool_use_id: object,
             decision: Decision, defaults: Mapping[str, Any] | None = None) -> Decision:
        """Remember an allow of a toolhost (``mcp__``) tool for the call ``tool_use_id``
        names, with the input it allowed (the rewritten one, if the rule rewrote it) and
        ``defaults``, the tool's defaults the rules filled in when they decided it.
        Anything else (a deny, a built-in tool, an id that is not a short non-empty string)
        is not noted, so its call, if one comes, is decided again. Returns ``decision``."""
        if decision.behavior == "allow" and type(tool_use_id) is str \
                and 0 < len(tool_use_id) <= MAX_TOOL_USE_ID \
                and type(tool_name) is str and tool_name.startswith("mcp__"):
            allowed = self._allowed
            size = len(allowed)
            allowed[tool_use_id] = (tool_name, decision.updated_input
                                    if decision.updated_input is not None else tool_input,
                                    defaults)
            if len(allowed) == size:  # an id noted before: it moves to the newest end
                allowed.move_to_end(tool_use_id)
            while len(allowed) > MAX_NOTED:
                allowed.popitem(last=False)
        return decision

    def claim(self, tool_name: str, arguments: Mapping[str, Any], tool_use_id: object,
              defaults: Mapping[str, Any] | None = None) -> bool:
        """Whether this ``tools/call`` is the call an allow was noted for, with the input
        allowed: the same JSON value, types included (``1`` is not the ``true`` allowed; any
        doubt decides the call again), and a tool filling in the ``defaults`` it was judged
        with (an upstream that re-listed its tools in between may have changed them: the
        call would run with defaults no rule saw). The note is used up either way: an id
        allows one call."""
        if type(tool_use_id) is not str or not tool_use_id:
            return False
        noted = self._allowed.pop(tool_use_id, None)
        return noted is not None and noted[0] == tool_name \
            and same_json(dict(noted[1]), dict(arguments)) \
            and (noted[2] is defaults or (not noted[2] and not defaults)
                 or same_json(noted[2] or {}, defaults or {}))

    def clear(self) -> None:
        """Drop every note (the rules changed: each call is decided again when it comes)."""
        self._allowed.clear()

    def forget(self, tool_use_id: object) -> None:
        """Drop the note for ``tool_use_id``, if any (an allow decided at the call itself)."""
        if type(tool_use_id) is str:
            self._allowed.pop(tool_use_id, None)


class NotedReads:
    """Allows of ``ReadMcpResourceTool`` answered to ``can_use_tool``, by (server, URI)."""

    def __init__(self) -> None:
        # (server, uri) -> allows not yet read
        self._allowed: OrderedDict[tuple[str, str], int] = OrderedDict()

    def __len__(self) -> int:
        return len(self._allowed)

    def note(self, tool_name: str, tool_input: Mapping[str, Any], decision: Decision) -> None:
        """Remember an allow of reading ``{server, uri}`` exactly (the rewritten input, if a
        rule rewrote it); any other input, or any other decision, is not noted."""
        if tool_name != READ_RESOURCE_TOOL or decision.behavior != "allow":
            return
        asked = decision.updated_input if decision.updated_input is not None else tool_input
        if not isinstance(asked, Mapping) or set(asked) != {"server", "uri"}:
            return
        server, uri = asked["server"], asked["uri"]
        if type(server) is not str or type(uri) is not str or len(uri) > MAX_NOTED_URI:
            return
        allowed = self._allowed
        allowed[(server, uri)] = allowed.get((server, uri), 0) + 1
        allowed.move_to_end((server, uri))
        while len(allowed) > MAX_NOTED:
            allowed.popitem(last=False)

    def clear(self) -> None:
        """Drop every note (the rules changed: each read is decided again)."""
        self._allowed.clear()

    def claim(self, server: str, uri: str) -> bool:
        """Whether a read of ``uri`` (as it is read: no other spelling of it is decided) on
        ``server`` was allowed and not yet read; the allow is used up."""
        left = self._allowed.get((server, uri))
        if not left:
            return False
        if left == 1:
            del self._allowed[(server, uri)]
        else:
            self._allowed[(server, uri)] = left - 1
        return True

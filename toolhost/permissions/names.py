"""Tool-name patterns: ``mcp__server``, ``mcp__server__*``, ``mcp__s__get_*``, ``Bash``, ``Edit``.

A pattern compiles to one of three shapes so a policy can index it: a set of exact names, a
whole server (every ``mcp__<server>__...`` tool), or a glob (a regex over the whole name, where
``*`` is any run of characters and ``?`` one character).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolhost.permissions.wildcard import Matcher

__all__ = ["FAMILIES", "NamePattern", "parse_name_pattern", "split_wire_name", "wire_readings"]

# Claude Code applies Edit rules to every built-in tool that edits files, and Read rules (best
# effort) to every built-in tool that reads them; toolhost does the same for bare names too.
# The sub-agent tool has two names (``Task``, and ``Agent`` since CLI 2.1.63, which is what
# the CLI reports): a rule naming either names both. A glob naming a family's head (``Rea?``,
# ``Edi*``, ``T*``) names the whole family too.
# The CLI reads a rule naming a tool's older name as naming the tool (its legacy names
# table, 2.1.330) and reports calls by the current name: a rule naming either names both
# (before, ``deny: KillShell`` or ``allow: Eval`` never met a call: it says TaskStop, REPL).
_OLD_NAMES: dict[str, tuple[str, ...]] = {
    "Agent": ("Task",), "TaskStop": ("KillShell", "KillBash"), "ListAgents": ("ListPeers",),
    "SendUserMessage": ("Brief",), "ListMcpResourcesTool": ("ListMcpResources",),
    "ReadMcpResourceTool": ("ReadMcpResource",),
    "ReadMcpResourceDirTool": ("ReadMcpResourceDir",), "SetGoal": ("ProposeGoal",),
    "REPL": ("Eval",),
}
FAMILIES: dict[str, tuple[str, ...]] = {
    "Edit": ("Edit", "Write", "MultiEdit", "NotebookEdit"),
    "Read": ("Read", "Grep", "Glob", "LS", "NotebookRead"),
    **{name: (name, *olds) for name, olds in _OLD_NAMES.items()},
    **{old: (old, name, *(o for o in olds if o != old))
       for name, olds in _OLD_NAMES.items() for old in olds},
}
# the families a glob naming the head names whole (an old name is matched as written)
_GLOB_HEADS = ("Edit", "Read", "Task", "Agent")

_NAME_CHARS = re.compile(r"[A-Za-z0-9_.\-*?]+")
# The Claude CLI names an MCP tool mcp__<server>__<tool> with every character of both names
# outside [A-Za-z0-9_-] replaced by "_" (its normalizeMcpServerName), so no wire name it asks
# about has another character: a rule naming one could never fire.
_WIRE_UNSAFE = re.compile(r"[^A-Za-z0-9_\-*?]")


def split_wire_name(tool_name: str) -> tuple[str, str] | None:
    """``mcp__git__log`` -> ("git", "log"); None for a name that is not an MCP tool. The split
    is at the first ``__`` (as the CLI and ``toolhost call`` read it); see ``wire_readings``."""
    if not tool_name.startswith("mcp__"):
        return None
    server, sep, tool = tool_name[5:].partition("__")
    if not sep or not server or not tool:
        return None
    return server, tool


def wire_readings(tool_name: str) -> list[tuple[str, str]]:
    """Every (server, tool) a wire name could be: ``mcp__git___log`` is ("git", "_log") or
    ("git_", "log"), ``mcp__a__b__c`` is ("a", "b__c") or ("a__b", "c"). More than one reading
    makes the name ambiguous: deny and ask rules naming any of the servers match it, allow
    rules naming a server do not (only its exact full name does)."""
    if not tool_name.startswith("mcp__"):
        return []
    rest = tool_name[5:]
    out: list[tuple[str, str]] = []
    k = rest.find("__", 1)  # one scan, at most 16 readings: linear in a hostile name's length
    while 0 < k < len(rest) - 2 and len(out) < 16:
        out.append((rest[:k], rest[k + 2:]))
        k = rest.find("__", k + 1)
    return out


@dataclass(frozen=True)
class NamePattern:
    """A compiled tool-name pattern."""

    source: str
    exact: frozenset[str] = frozenset()  # names matched exactly
    server: str | None = None  # every tool of this MCP server
    glob: Matcher | None = None

    def matches(self, tool_name: str, *, strict: bool = False) -> bool:
        """Whether the pattern names ``tool_name``. An ambiguous wire name (see
        ``wire_readings``) matches a server or glob pattern loosely when any reading does,
        strictly (allow rules) never."""
        if tool_name in self.exact:
            return True
        # Every pattern, not only mcp__ ones: an allow "*__log" must not reach mcp__git___log
        readings = wire_readings(tool_name)
        if strict and len(readings) > 1:
            return False
        # a malformed MCP name (no tool: mcp__git, mcp__git__) is still its server's, loosely
        bare = not readings and not strict and tool_name.startswith("mcp__")
        if self.server is not None:
            if bare and (tool_name == f"mcp__{self.server}"
                         or tool_name.startswith(f"mcp__{self.server}__")):
                return True
            return any(server == self.server for server, _ in readings)
        if self.glob is None:
            return False
        return bool(self.glob.fullmatch(tool_name) or (
            bare and not tool_name.endswith("__") and self.glob.fullmatch(tool_name + "__")))

    @property
    def is_mcp(self) -> bool:
        return self.source.startswith("mcp__")


def _glob_regex(pattern: str) -> Matcher:
    # linear in the name's length (toolhost.permissions.wildcard)
    from toolhost.permissions.wildcard import compile_wildcard

    return compile_wildcard(pattern)


def parse_name_pattern(text: str) -> NamePattern:
    """Compile a tool-name pattern. Raises ValueError saying what is wrong."""
    if not text:
        raise ValueError("empty tool pattern")
    if not _NAME_CHARS.fullmatch(text):
        bad = sorted({c for c in text if not _NAME_CHARS.fullmatch(c)})
        raise ValueError(f"tool pattern {text!r} has characters a tool name cannot have: "
                         + " ".join(repr(c) for c in bad))
    wild = "*" in text or "?" in text
    if text.startswith("mcp__"):
        if _WIRE_UNSAFE.search(text):
            raise ValueError(
                f"{text!r} can never match: the Claude CLI names MCP tools with only letters, "
                "digits, '_' and '-' (it replaces every other character by '_'), so write "
                f"{_WIRE_UNSAFE.sub('_', text)!r}")
        rest = text[5:]
        server, sep, tool = rest.partition("__")
        if not server:
            raise ValueError(f"{text!r} names no server (expected mcp__<server> or "
                             "mcp__<server>__<tool>)")
        if sep and not tool:
            raise ValueError(f"{text!r} ends with '__' but names no tool "
                             f"(use mcp__{server} or mcp__{server}__* for the whole server)")
        if "*" not in server and "?" not in server and (not sep or tool == "*"):
            return NamePattern(text, server=server)
        if not wild:
            return NamePattern(text, exact=frozenset({text}))
        if not sep:  # "mcp__git*": servers by glob, any tool
            return NamePattern(text, glob=_glob_regex(text + "__*"))
        return NamePattern(text, glob=_glob_regex(text))
    if not wild:
        return NamePattern(text, exact=frozenset(FAMILIES.get(text, (text,))))
    glob = _glob_regex(text)
    family = frozenset(n for head in _GLOB_HEADS if glob.fullmatch(head)
                       for n in FAMILIES[head])
    return NamePattern(text, exact=family, glob=glob)

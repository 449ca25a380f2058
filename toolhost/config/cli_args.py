"""Which arguments for the Claude CLI a config or the command line may add: an allowlist.

Under ``toolhost run`` the config's rules reach the CLI through its permission prompt: the
CLI asks toolhost (``can_use_tool``) before a tool runs. Many of the CLI's options can make it
decide by itself or bring their own decisions: a permission mode that does not ask, tools
allowed up front, another prompt handler, a settings file (allow rules, hooks), a plugin
(``--plugin-dir``, ``--plugin-url``: hooks that approve), agents with their own permission
mode (``--agents``, ``--agent``), other settings sources, more MCP servers, more directories
(``--add-dir``: reads there need no asking, and their skills may allow tools). So the list is
one of options known to leave the decisions to the rules (``ALLOWED``), each with how many
values it takes, parsed as the CLI's own parser (Commander) parses them; anything else is
refused with its index and why: a known option that takes decisions away, an option this
list does not know (a newer CLI's: fail closed), a bare word (the CLI reads it as a prompt or
a command), an option spelt another way (``-dp``, ``--verbose=1``, an abbreviation).

Checked wherever arguments come from: ``run.cli_args`` of any layer (a located problem, so
``toolhost validate`` reports it), the command line after ``--``, and ``SdkHost.options``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

__all__ = ["ALLOWED", "ASKING_MODES", "own_decisions", "weakening"]

# Permission modes in which the CLI still asks before a tool runs (or refuses by itself)
ASKING_MODES = frozenset({"default", "manual", "plan", "dontAsk"})

# option -> its values: "" none, "1" exactly one (after "=", or the next argument, which
# must not look like an option), "?" one if the next argument is not an option, "+" one or more
ALLOWED: dict[str, str] = {
    "--verbose": "", "--include-partial-messages": "", "--include-hook-events": "",
    "--no-session-persistence": "", "--exclude-dynamic-system-prompt-sections": "",
    "--forward-subagent-text": "", "--disable-slash-commands": "", "--strict-mcp-config": "",
    "--bare": "", "--safe-mode": "", "--restricted": "", "--no-chrome": "",
    "--debug-to-stderr": "", "-c": "", "--continue": "", "--fork-session": "",
    "--model": "1", "--fallback-model": "1", "--system-prompt": "1",
    "--append-system-prompt": "1", "--max-turns": "1", "--effort": "1",
    "--max-budget-usd": "1", "--json-schema": "1", "--session-id": "1", "--name": "1",
    "-n": "1", "--system-prompt-snapshot": "1", "--autocompact": "1",
    "--permission-mode": "1", "--permission-prompts": "1",
    "--debug": "?", "-d": "?", "--resume": "?", "-r": "?",
    "--disallowedTools": "+", "--disallowed-tools": "+", "--tools": "+", "--betas": "+",
}
_VALUED = {"--permission-mode": ASKING_MODES, "--permission-prompts": frozenset({"host"})}

_SETTINGS = "a settings file or JSON may carry allow rules, hooks or a permission mode"
_REFUSED = {
    "--dangerously-skip-permissions": "it turns every permission check off",
    "--allow-dangerously-skip-permissions": "it lets the session turn every permission "
                                            "check off",
    "--allowedTools": "the CLI would run the tools it names without asking toolhost",
    "--allowed-tools": "the CLI would run the tools it names without asking toolhost",
    "--permission-prompt-tool": "toolhost answers the CLI's permission prompts itself",
    "--settings": _SETTINGS,
    "--setting-sources": "it chooses which settings files load (" + _SETTINGS + ")",
    "--plugin-dir": "a plugin's hooks can approve tool calls without asking toolhost",
    "--plugin-url": "a plugin's hooks can approve tool calls without asking toolhost",
    "--agents": "an agent may carry its own permission mode, tools and hooks",
    "--agent": "an agent may carry its own permission mode, tools and hooks",
    "--mcp-config": "what runs is what the config declares: declare servers in it",
    "--add-dir": "the skills and settings of its directories may allow tools",
    "--debug-file": "the CLI's debug log is written outside toolhost's redaction",
}
_HOW = ("toolhost passes the CLI only the options it knows leave every decision to its "
        "rules (docs/running.md); use the config's run: keys or leave it out")


def weakening(args: Sequence[str]) -> tuple[int, str] | None:
    """The first argument of ``args`` that is not on the allowlist or would let the CLI
    decide permissions without toolhost, as (its index, why), or None when all are fine."""
    index = 0
    while index < len(args):
        arg = args[index]
        flag, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        arity = ALLOWED.get(flag)
        if arity is None:
            return index, _why(flag, arg)
        if eq and arity == "":
            return index, f"{flag} takes no value ({arg!r} is not allowed)"
        index += 1
        if arity == "1" and not eq:
            if index >= len(args):
                return index - 1, f"{flag} without a value is not allowed"
            value = args[index]
            if _option(value):  # the CLI takes it as the value; another parser might not
                return index, (f"{flag} followed by {_shown(value)!r} is not allowed: write "
                               f"{flag}={_shown(value)} for a value that starts with '-'")
            index += 1
        elif arity == "?" and not eq and index < len(args) and not _option(args[index]):
            index += 1
        elif arity == "+" and not eq:
            if index >= len(args) or _option(args[index]):
                return index - 1, f"{flag} without a value is not allowed"
            while index < len(args) and not _option(args[index]):
                index += 1
        if flag == "--max-turns" and not (value.isascii() and value.isdigit()
                                          and int(value) >= 1):
            # the CLI takes 0 as no limit at all: toolhost's default of 100 (a model that
            # never stops calling tools) was gone, said nowhere
            return index - (1 if eq else 2), (
                f"--max-turns {_shown(value)!r} is not allowed: the turn limit is a whole "
                "number of at least 1 (the CLI takes 0 as no limit at all)")
        allowed = _VALUED.get(flag)
        if allowed is not None and value not in allowed:
            modes = ", ".join(sorted(allowed))
            return index - (1 if eq else 2), (
                f"{flag} {value!r} is not allowed: the CLI would decide permissions "
                f"without asking toolhost (allowed: {modes})")
    return None


def _option(arg: str) -> bool:
    """What the CLI's parser reads as an option rather than a value (Commander)."""
    return len(arg) > 1 and arg.startswith("-")


def _shown(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _why(flag: str, arg: str) -> str:
    shown = _shown(flag)
    if flag in _REFUSED:
        return f"{flag} is not allowed: {_REFUSED[flag]}"
    if arg == "--":
        return "'--' is not allowed: the CLI would read what follows as a prompt or command"
    if not _option(arg):
        return (f"{shown!r} is not an option: the CLI would read it as a prompt or a "
                f"command; {_HOW}")
    return f"{shown!r} is not an option toolhost knows to be safe: {_HOW}"


_DECIDING_KEYS = ("hooks", "defaultMode", "allow", "additionalDirectories", "enabledPlugins",
                  "apiKeyHelper", "disableAllHooks")


def own_decisions(directory: str) -> list[str]:
    """What in ``directory`` would let the CLI started there decide without toolhost: its
    ``.claude/settings*.json`` with hooks, allow rules, a mode or plugins, and its skills,
    agents and commands (which may allow tools). Names relative to ``directory``; [] when
    there is none (or it cannot be read: the CLI would not read it either)."""
    found: list[str] = []
    base = os.path.join(directory, ".claude")
    for name in ("settings.json", "settings.local.json"):
        path = os.path.join(base, name)
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read(1 << 20)
        except (OSError, UnicodeDecodeError):
            continue
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        keys = _keys(data)
        deciding = [k for k in _DECIDING_KEYS if k in keys]
        if deciding or data is None:
            why = ", ".join(deciding) if deciding else "not JSON this check can read"
            found.append(f".claude/{name} ({why})")
    for name in ("skills", "agents", "commands"):
        path = os.path.join(base, name)
        try:
            if os.path.isdir(path) and os.listdir(path):
                found.append(f".claude/{name}/")
        except OSError:
            continue
    return found


def _keys(data: object) -> set[str]:
    if not isinstance(data, dict):
        return set()
    keys = set(data)
    permissions = data.get("permissions")
    if isinstance(permissions, dict):
        keys |= {k for k in ("allow", "defaultMode", "additionalDirectories")
                 if permissions.get(k)}
    if not data.get("hooks"):
        keys.discard("hooks")
    return keys

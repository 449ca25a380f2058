"""The settings toolhost gives the Claude CLI (``--settings``): ask about every tool call.

The CLI decides some calls by itself before it would ask toolhost (``can_use_tool``): a
read inside the working directory or an ``--add-dir`` directory (``Read``, read-only Bash
such as ``cat`` or ``grep -r``), a WebFetch of one of its pre-approved hosts, a tool it
deems harmless (``Monitor`` runs a command), and whatever an allow rule in the user's or
the project's settings files names. A whole-tool *ask* rule is checked before all of
those, and before allow rules from any settings file, so toolhost passes one for every
tool: ``*`` (every tool the CLI has, including tools a later CLI version adds), and each
built-in tool and MCP server by name, for a CLI that would not take ``*``. Then every call
reaches toolhost's rules, the audit log and, for an ask, the person (docs/running.md).

The CLI's bookkeeping tools (TodoWrite, EnterPlanMode, CronCreate, TaskStop, ...) are
asked about too: the config's rules decide them like any other tool (under
``default: deny``, allow the ones a session needs: ``allow: [TodoWrite]``).

``toolhost run`` also turns hooks off (``disableAllHooks``): the hooks of the user's and
the project's settings files and of installed plugins, and the statusLine command, run
commands the config never declared, so under ``run`` none runs. The CLI lets these
settings beat the user's, the project's and the local settings (a project's
``"disableAllHooks": false`` included); only an organization's managed settings beat them,
and their hooks still run (``toolhost.runner.managed_hooks`` says so at start). The SDK
adapter's settings leave hooks alone: a program's own hooks are its author's.

Both turn off the shell lines of skills and custom slash commands
(``disableSkillShellExecution``): the CLI runs a skill's ``!`command``` and `````!`` lines
when the skill loads, judged by its own settings and the skill's ``allowed-tools`` only,
never asking toolhost (the ask rules above make every such line fail, and the whole skill
with it). With the setting, each line is replaced by the CLI's placeholder
``[shell command execution disabled by policy]`` and the skill loads as text: a Skill or
SlashCommand call runs nothing the Bash rules did not judge, so the rules' default may
decide it (``permissions.unread_tools``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from toolhost.permissions.builtin_names import LATER_BUILTINS

__all__ = ["ASKED_BUILTINS", "KEEP_START_DIR", "SKILL_SHELL_OFF", "ask_everything",
           "settings_json"]

# Without it the CLI's Bash keeps a ``cd`` for the next call (inside the project), while
# the rules read repositories, patches, archives and relative paths from the start folder:
# every call starts there, so a rule never judges a directory the command will not run in.
KEEP_START_DIR = {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1"}

# The CLI ranks these settings (``--settings``) above the user's and the project's, so a
# project's ``"disableSkillShellExecution": false`` does not turn the lines back on
SKILL_SHELL_OFF = "disableSkillShellExecution"

# The CLI's tools that act outside its own session state (files, commands, the network,
# sub-agents, skills, MCP resources, worktrees, other sessions), named one by one for a
# CLI that does not take the ``*`` rule; ``*`` covers them and every other tool as well.
ASKED_BUILTINS: tuple[str, ...] = (
    "Bash", "BashOutput", "KillShell", "KillBash", "Monitor", "Read", "NotebookRead",
    "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS", "WebFetch",
    "WebSearch", "Task", "Agent", "Skill", "SlashCommand", "Workflow", "SendMessage",
    "EnterWorktree", "ExitWorktree", "ListMcpResourcesTool", "ReadMcpResourceTool",
    "TaskOutput", "TaskStop",
    # and the rest of the bundled CLI's tools (PowerShell runs commands, RemoteTrigger and
    # others reach the network or other sessions)
    *LATER_BUILTINS,
)


def ask_everything(servers: Iterable[str] = (), *, hooks: bool = True) -> dict[str, Any]:
    """The settings object: a whole-tool ask rule for ``*``, every name in
    ``ASKED_BUILTINS`` and ``mcp__<server>`` for each MCP server (toolhost's and external);
    ``hooks=False`` adds ``"disableAllHooks": true`` (no settings or plugin hook runs), and
    ``"disableSkillShellExecution": true`` is always there (no skill's shell line runs).
    Its ``env`` (``KEEP_START_DIR``) starts every Bash call in the start folder: these
    settings beat the user's and the project's ``env``."""
    rules = ["*", *ASKED_BUILTINS, *(f"mcp__{name}" for name in servers)]
    settings: dict[str, Any] = {"permissions": {"ask": list(dict.fromkeys(rules))},
                                "env": dict(KEEP_START_DIR), SKILL_SHELL_OFF: True}
    if not hooks:
        settings["disableAllHooks"] = True
    return settings


def settings_json(servers: Iterable[str] = (), *, hooks: bool = True) -> str:
    """``ask_everything(servers, hooks=hooks)`` as the JSON text ``--settings`` takes."""
    return json.dumps(ask_everything(servers, hooks=hooks), separators=(",", ":"))

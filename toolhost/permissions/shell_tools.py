"""Built-in tools other than Bash that run a shell command: the Bash rules judge it too.

The CLI's ``Monitor`` runs ``command`` in the shell Bash uses and streams its output, and the
CLI checks that command against its Bash rules (a ``Bash(rm:*)`` deny stops
``Monitor {"command": "rm -rf ~"}``). Named by its own tool name, such a call met none of
toolhost's Bash rules, so ``deny: Bash(rm:*)`` beside ``default: allow`` (or ``allow:
Monitor``) let it run any command. So the command is judged as a Bash call is, deny and ask
rules, unprovable commands and the decision budget included, with ``allow`` in place of the
default: a deny there denies the call, an ask asks unless the tool's own rules deny it, and
anything else leaves the call to the tool's own rules and the default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.permissions.decision import Decision

__all__ = ["SHELL_TOOLS", "judged_as_shell", "shell_command"]

# The built-in tools that run their ``command`` argument in the shell (a WebSocket
# ``Monitor``, ``{"ws": {...}}`` without a command, runs none)
SHELL_TOOLS = frozenset({"Monitor"})


def shell_command(tool_name: str, tool_input: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Bash input a shell-running call amounts to (None: it runs no command). A command
    that is no string is passed on as it is: the Bash rules fail closed on it."""
    if tool_name not in SHELL_TOOLS or "command" not in tool_input:
        return None
    return {"command": tool_input["command"]}


def judged_as_shell(tool_name: str, own: Decision, shell: Decision) -> Decision:
    """One decision from the tool's own rules (``own``) and the Bash rules' on its command
    (``shell``, decided with ``allow`` as the default): the stricter one."""
    if shell.behavior == "deny":
        return Decision("deny", f"{tool_name} runs its command in the shell, and the Bash "
                        f"rules deny it: {shell.message}".rstrip(": "),
                        rule=shell.rule, origin=shell.origin, error=shell.error)
    if own.behavior == "deny" or shell.behavior != "ask":
        return own
    return Decision("ask", f"{tool_name} runs its command in the shell, and the Bash rules "
                    f"ask about it. {shell.message}".strip(), rule=shell.rule,
                    origin=shell.origin, answered_by=shell.answered_by)

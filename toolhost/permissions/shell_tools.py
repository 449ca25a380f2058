"""Built-in tools other than Bash and WebFetch that run a shell command or open a connection:
the Bash rules judge the command, the WebFetch rules the address.

The CLI's ``Monitor`` runs ``command`` in the shell Bash uses and streams its output, and the
CLI checks that command against its Bash rules (a ``Bash(rm:*)`` deny stops
``Monitor {"command": "rm -rf ~"}``). Named by its own tool name, such a call met none of
toolhost's Bash rules, so ``deny: Bash(rm:*)`` beside ``default: allow`` (or ``allow:
Monitor``) let it run any command. So the command is judged as a Bash call is, deny and ask
rules, unprovable commands and the decision budget included, with ``allow`` in place of the
default: a deny there denies the call, an ask asks unless the tool's own rules deny it, and
anything else leaves the call to the tool's own rules and the default. Under a ``deny`` or
``ask`` default, Bash allow rules are an allow list: the command is judged with that default
(``allow: [Monitor, Bash(tail:*)]`` does not let Monitor run ``rm -rf ~``).

Its WebSocket form (``{"ws": {"url": "wss://..."}}``) opens a connection a
``WebFetch(domain:...)`` deny names as it names a fetch: the URL is judged as a WebFetch call
the same way. A call holding both is judged both ways (the CLI runs the WebSocket).

The CLI's workspace tools (``mcp__workspace__bash``, ``mcp__workspace__web_fetch``: the
shell and the fetch of a desktop session's workspace, which the CLI's own Bash and WebFetch
denies cover) are judged the same way: their ``command`` by the Bash rules, their ``url`` by
the WebFetch rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.permissions.decision import Decision

__all__ = ["SHELL_TOOLS", "WORKSPACE_BASH", "WORKSPACE_FETCH", "judged_as_shell", "judged_with"]

# The tools that run their ``command`` argument in the shell, open ``ws.url`` or fetch
# ``url``, and the CLI's names they go by
WORKSPACE_BASH, WORKSPACE_FETCH = "mcp__workspace__bash", "mcp__workspace__web_fetch"
SHELL_TOOLS = frozenset({"Monitor", WORKSPACE_BASH, WORKSPACE_FETCH})

_WHAT = {"Bash": "runs its command in the shell, and the Bash rules",
         "WebFetch": "opens a WebSocket to its ws.url, and the WebFetch rules",
         "fetch": "fetches its url, and the WebFetch rules"}


def judged_with(tool_input: Mapping[str, Any],
                tool_name: str = "Monitor") -> list[tuple[str, dict[str, Any]]]:
    """The Bash and WebFetch calls a call of ``tool_name`` amounts to (none: it runs
    nothing), each as (``_WHAT`` key, call). A command that is no string, a ``ws`` that is no
    object or a url that is no string is passed on as it is: those rules fail closed on it."""
    if tool_name == WORKSPACE_FETCH:  # (all of it: a call without a url fails closed too)
        return [("fetch", dict(tool_input))]
    if tool_name == WORKSPACE_BASH:
        return [("Bash", {"command": tool_input.get("command")})]
    out: list[tuple[str, dict[str, Any]]] = []
    if "command" in tool_input:
        out.append(("Bash", {"command": tool_input["command"]}))
    if "ws" in tool_input and tool_input["ws"] is not None:
        ws = tool_input["ws"]
        out.append(("WebFetch", {"url": _as_fetch(ws.get("url") if isinstance(ws, Mapping)
                                                  else ws)}))
    return out


# as a URL parser reads it (urls.url_host): tabs and newlines anywhere dropped, C0 controls
# and spaces around it trimmed
_DROPPED = re.compile(r"[\t\n\r]")
_AROUND = "".join(map(chr, range(0x21)))
_WS = re.compile(r"(wss?):", re.IGNORECASE)


def _as_fetch(url: Any) -> Any:
    """A ``ws:``/``wss:`` URL as the ``http:``/``https:`` URL of the same host (the WebFetch
    rules read those schemes' hosts alone); anything else as it is."""
    if not isinstance(url, str):
        return url
    text = _DROPPED.sub("", url).strip(_AROUND)
    match = _WS.match(text)
    if match is None:
        return url
    return ("https" if len(match.group(1)) == 3 else "http") + text[match.end(1):]


def judged_as_shell(tool_name: str, other: str, own: Decision, said: Decision) -> Decision:
    """One decision from the tool's own rules (``own``) and what the ``other`` tool's rules
    (a ``_WHAT`` key) say of what it runs (``said``, decided with ``allow`` as the default):
    the stricter."""
    if said.behavior == "deny":
        return Decision("deny", f"{tool_name} {_WHAT[other]} deny it: "
                        f"{said.message}".rstrip(": "),
                        rule=said.rule, origin=said.origin, error=said.error)
    if own.behavior == "deny" or said.behavior != "ask":
        return own
    return Decision("ask", f"{tool_name} {_WHAT[other]} ask about it. "
                    f"{said.message}".strip(), rule=said.rule,
                    origin=said.origin, answered_by=said.answered_by)

"""Tools whose calls the engine cannot read: an allow needs a rule that names them.

The CLI's ``PowerShell`` tool runs ``command`` in PowerShell, a language toolhost does not
parse, and the CLI judges it by PowerShell rules only: toolhost's ``Bash(...)`` rules never
see it. So under ``default: allow`` beside ``deny: Bash(rm:*)`` (or an ``allow: "*"``) it
ran ``Remove-Item -Recurse ~``. Its kin run code or commands just as unread: ``REPL`` (and
its older names ``Eval``, ``JavaScript``) runs JavaScript, ``Workflow`` a workflow script,
``RemoteTrigger`` starts agents on claude.ai that no local rule judges. Such a call is
allowed only by an allow rule naming the tool by its exact name (``allow: PowerShell``, or
a ``when``/``expr`` rule on it): the default and a glob do not allow it. Otherwise the first
Bash deny rule denies it (what it runs could dodge that rule), the first Bash ask rule
asks, and without either a person must approve.

``Skill`` and ``SlashCommand`` are not among them: a skill's or command file's text goes to
the model, and the CLI toolhost starts runs none of its shell lines (``!`cmd```: the
settings of ``toolhost.runner.cli_settings`` turn them off), so what the skill asks for
comes back as calls the rules judge.

A tool name that is neither a built-in the engine knows, nor an MCP tool, nor a tool the
config declares (a tool a later CLI adds: what it does is unknown) is not allowed by the
default either: a rule naming it (a glob included) may allow it; otherwise it is asked.
"""

from __future__ import annotations

from collections.abc import Container

from toolhost.permissions.builtin_names import BUILTIN_TOOLS
from toolhost.permissions.decision import Decision
from toolhost.permissions.rules import CompiledRule

__all__ = ["UNREAD_TOOLS", "held_unread", "hidden_with_bash", "names_exactly"]

# Built-in tools (the bundled CLI's, 2.1.330, and older names) that run code or commands the
# Bash rules cannot read, with what each runs
UNREAD_TOOLS: dict[str, str] = {
    "PowerShell": "runs a command", "REPL": "runs code", "Eval": "runs code",
    "JavaScript": "runs code", "Workflow": "runs a workflow script",
    "RemoteTrigger": "starts remote agents whose commands",
}


def names_exactly(rule: CompiledRule | None, tool_name: str) -> bool:
    """Whether ``rule`` names ``tool_name`` by its exact name (no glob, no server)."""
    return (rule is not None and rule.names.glob is None and rule.names.server is None
            and tool_name in rule.names.exact)


def held_unread(tool_name: str, decision: Decision, rule: CompiledRule | None,
                bash_rules: tuple[CompiledRule, ...], default: str,
                declared: Container[str]) -> Decision | None:
    """What becomes of an ``allow`` of a tool whose calls cannot be read (None: it stands).
    ``rule``: the allow rule behind ``decision`` (None: the default allowed it);
    ``bash_rules``: the rules that name Bash, in evaluation order."""
    if decision.behavior != "allow":
        return None
    what = UNREAD_TOOLS.get(tool_name)
    if what is not None:
        if names_exactly(rule, tool_name):
            return None
        by = (f"rule {rule.text!r} ({rule.origin}), a glob," if rule is not None
              else "the default (allow)")
        why = (f"{tool_name} {what} the Bash rules cannot read, so only an allow "
               f"rule naming {tool_name} itself can allow it ({by} does not)")
        guard = next((r for r in bash_rules if r.effect == "deny"), None)
        if guard is not None:
            return Decision("deny", f"Denied: {why}; it could dodge Bash rule "
                            f"{guard.text!r} ({guard.origin}).", rule=guard.text,
                            origin=guard.origin)
        if default == "deny":
            return Decision("deny", f"Denied: {why}, and the default is deny.",
                            answered_by="default")
        ask = next((r for r in bash_rules if r.effect == "ask"), None)
        if ask is not None:
            return Decision("ask", f"{why}: a person must approve it.", rule=ask.text,
                            origin=ask.origin)
        return Decision("ask", f"{why}: a person must approve it.", answered_by="default")
    if (rule is None and decision.answered_by == "default" and not tool_name.startswith("mcp__")
            and tool_name not in BUILTIN_TOOLS and tool_name not in declared):
        return Decision("ask", f"toolhost does not know the tool {tool_name[:200]!r}, so the "
                        "default (allow) does not cover it: a person must approve it (a rule "
                        "naming it can allow it).", answered_by="default")
    return None


def hidden_with_bash(rules: tuple[CompiledRule, ...]) -> list[str]:
    """The tools of ``UNREAD_TOOLS`` a policy denying Bash whole denies whatever their
    input: no allow rule names one exactly and no ask rule names it (the CLI hides them
    from the model with Bash, as it hides PowerShell with a managed ``Bash`` deny)."""
    return [name for name in UNREAD_TOOLS
            if not any(names_exactly(r, name) if r.effect == "allow"
                       else r.effect == "ask" and r.names.matches(name) for r in rules)]

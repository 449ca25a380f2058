"""The decisions the policy gives when no single rule's own decision fits (a search that may
reach a held path, a command that cannot be proven, a rewrite that fails or leads around a
deny): what they say, in one place."""

from __future__ import annotations

from toolhost.permissions.decision import Decision
from toolhost.permissions.rules import CompiledRule

__all__ = ["FORMS_CUT_REASON", "each_way", "held_search", "moved", "rewrite_failed",
           "rewritten_around", "unevaluated", "unproven"]

# Why a Bash command read in more ways than ``bash.forms`` tries is not provable: every deny
# and ask rule meets it, so the decision says this rather than naming the first such rule
# as if it had matched.
FORMS_CUT_REASON = ("one of its commands can be read in too many ways (nested wrappers and "
                    "their options) to check them all: split it into shorter commands")


def held_search(rule: CompiledRule) -> Decision:
    """A Grep/Glob/LS of a directory that may hold a path a deny or ask rule names: it cannot
    be proven to stay off it, so a person must approve it (no rule or default allows it)."""
    return Decision("ask", f"This search covers a directory that may hold a path rule "
                    f"{rule.text!r} ({rule.origin}) keeps from being read, so a person must "
                    "approve it (search a directory that does not hold it to avoid asking).",
                    rule=rule.text, origin=rule.origin)


def unproven(rule: CompiledRule, reason: str) -> Decision:
    """A Bash command whose programs cannot be proven, while Bash deny ``rule`` exists."""
    return Decision("deny", f"Denied: this command cannot be checked against the Bash deny "
                    f"rules ({reason}), so it could dodge rule {rule.text!r} "
                    f"({rule.origin}) or another; write it with plain program names.",
                    rule=rule.text, origin=rule.origin)


def moved(decision: Decision, rule: CompiledRule) -> Decision:
    """EnterWorktree switches the session into another folder: later Bash calls run
    there while the rules read scripts, repositories and patches in the start folder,
    and path rules anchored there name none of the worktree's files, so
    with such a deny or ask rule it is denied."""
    if decision.behavior == "deny":
        return decision
    return Decision("deny", "Denied: EnterWorktree moves the session into another folder, "
                    "while the rules judge commands and paths in the start folder, so "
                    f"later calls could dodge rule {rule.text!r} ({rule.origin}) or another.",
                    rule=rule.text, origin=rule.origin)


def unevaluated(rule: CompiledRule, exc: Exception) -> Decision:
    """A rule that could not be evaluated: fail closed."""
    return Decision("deny", f"Permission rule {rule.text!r} ({rule.origin}) could "
                    f"not be evaluated, so the call is denied: {exc}",
                    rule=rule.text, origin=rule.origin, error=str(exc))


def rewrite_failed(rule: CompiledRule, exc: Exception) -> Decision:
    """An allow rule whose rewrite of the input failed."""
    return Decision("deny", f"Permission rule {rule.text!r} ({rule.origin}) "
                    f"allows this call only with a rewrite that failed: {exc}",
                    rule=rule.text, origin=rule.origin)


def rewritten_around(rule: CompiledRule, stricter: CompiledRule) -> Decision:
    """An allow rule rewriting the input into a call a deny or ask rule meets."""
    verb = "denies" if stricter.effect == "deny" else "asks about"
    return Decision("deny", f"Permission rule {rule.text!r} ({rule.origin}) "
                    f"rewrites the input into a call that rule "
                    f"{stricter.text!r} ({stricter.origin}) {verb}, so the call "
                    "is denied.", rule=stricter.text, origin=stricter.origin)


def each_way(tool_name: str, decisions: list[Decision]) -> Decision:
    """One decision for a call judged in each way its upstream may fill it in (an object
    several branches of a union fit, with other defaults): the first deny, else a deny when
    any rewrites the call (the rewritten input of one way is not the others'), else the
    first ask, else the first allow."""
    for decision in decisions:
        if decision.behavior == "deny":
            return decision
    rewriting = next((d for d in decisions if d.updated_input is not None), None)
    if rewriting is not None:
        return Decision("deny", f"{tool_name}'s arguments give an object that more than one "
                        "branch of a oneOf/anyOf fits, and the rule that rewrites the call "
                        f"({rewriting.rule}) would rewrite what one of them fills in: "
                        "refused (name the branch, or give the values its defaults fill)",
                        rule=rewriting.rule, origin=rewriting.origin)
    return next((d for d in decisions if d.behavior == "ask"), decisions[0])

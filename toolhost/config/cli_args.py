"""Arguments for the Claude CLI that would take permission decisions away from toolhost.

Under ``toolhost run`` the config's rules reach the CLI through its permission prompt: the
CLI asks toolhost (``can_use_tool``) before a tool runs. An argument that makes the CLI
decide by itself -- a permission mode that does not ask, tools allowed up front, another
prompt handler, a settings file that may carry allow rules -- would quietly switch the rules
off. Such arguments are refused wherever they come from: ``run.cli_args`` of any layer (a
located problem, so ``toolhost validate`` reports it) and the command line after ``--``.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ASKING_MODES", "weakening"]

# Permission modes in which the CLI still asks before a tool runs (or refuses by itself)
ASKING_MODES = frozenset({"default", "manual", "plan", "dontAsk"})

_REFUSED = {
    "--dangerously-skip-permissions": "it turns every permission check off",
    "--allow-dangerously-skip-permissions": "it lets the session turn every permission "
                                            "check off",
    "--allowedTools": "the CLI would run the tools it names without asking toolhost",
    "--allowed-tools": "the CLI would run the tools it names without asking toolhost",
    "--permission-prompt-tool": "toolhost answers the CLI's permission prompts itself",
    "--settings": "a settings file or JSON may carry allow rules or a permission mode that "
                  "let the CLI run tools without asking toolhost",
}
_VALUED = {"--permission-mode": ASKING_MODES, "--permission-prompts": frozenset({"host"})}


def weakening(args: Sequence[str]) -> tuple[int, str] | None:
    """The first argument of ``args`` that would let the CLI decide permissions without
    toolhost, as (its index, why), or None when there is none."""
    for index, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in _REFUSED:
            return index, f"{flag} is not allowed: {_REFUSED[flag]}"
        allowed = _VALUED.get(flag)
        if allowed is None:
            continue
        if not eq:
            value = args[index + 1] if index + 1 < len(args) else ""
        if value not in allowed:
            modes = ", ".join(sorted(allowed))
            return index, (f"{flag} {value!r} is not allowed: the CLI would decide permissions "
                           f"without asking toolhost (allowed: {modes})")
    return None

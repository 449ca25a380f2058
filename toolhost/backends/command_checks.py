"""Load-time checks of a command tool: what the config says must be what runs.

Each check returns ``(message, key, hint)`` triples; ``CommandKind.bind`` turns them into
located problems, so ``validate`` reports them all at once.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from toolhost.backends.argv import ArgvPlan, Element, always_needed, compile_argv
from toolhost.backends.code_args import Token, code_slots
from toolhost.config.model import HostConfig, ToolConfig
from toolhost.errors import Problem

__all__ = ["check_plan", "option_notes", "plan_tokens"]

Found = tuple[str, str, str]


def plan_tokens(plan: ArgvPlan) -> list[Token]:
    """argv as the code scan sees it: `if` groups inline, `each` groups as values."""
    tokens = [Token(".argv[0]", plan.program, False)]

    def add(elements: Iterable[Element], repeated: bool) -> None:
        for element in elements:
            if element.group:
                add(element.group, repeated or element.each is not None)
            else:
                tokens.append(Token(element.key, element.source,
                                    repeated or not element.literal_only))

    add(plan.elements, False)
    return tokens


def check_plan(plan: ArgvPlan, tool: ToolConfig, names: set[str],
               opts: Mapping[str, Any]) -> list[Found]:
    """Every load-time problem of the argv (empty when it is sound)."""
    found: list[Found] = []
    known = names | set(tool.params)
    for i, name in enumerate(opts.get("allow_dash") or ()):
        if name not in known:
            found.append((f"allow_dash names '{name}', which no template of this tool uses",
                          f".allow_dash[{i}]", "list params that the argv prints"))
    required = set(tool.required) if tool.required is not None else set(names)
    for name, key in always_needed(plan).items():
        schema = tool.params.get(name)
        if schema is None or name in required or "default" in schema:
            continue
        found.append((f"'{name}' is optional with no default, but this argument always "
                      "needs it: left out, it would be an empty argument",
                      key, f"put it in a group present only when given: "
                           f"{{if: {name}, argv: [...]}}, or give '{name}' a default"))
    if not opts.get("unsafe_code_placeholders"):
        for slot in code_slots(plan_tokens(plan)):
            found.append(_code_problem(slot.key, slot.program, slot.what, plan))
    return found


def _code_problem(key: str, program: str, what: str, plan: ArgvPlan) -> Found:
    if what == "the program to run":
        return (f"a value chooses the program that {program} runs: the model would choose "
                "what runs", key, "write the program literally")
    if what == "a script file":
        return (f"a value is the script file {program} runs: the model would choose the code",
                key, "write the script path literally and pass values as arguments after it")
    safe = ""
    if program in ("sh", "bash", "zsh", "dash", "ksh"):
        safe = f"[{program}, -c, 'echo \"$1\"', {program}, \"{{{{ v }}}}\"]"
    elif program.startswith("python"):
        safe = f"[{program}, -c, 'import sys; print(sys.argv[1])', \"{{{{ v }}}}\"]"
    hint = ("pass the value as a separate argument the code reads"
            + (f", e.g. {safe}" if safe else " (as $1, sys.argv, ARGV, process.argv)")
            + "; or set unsafe_code_placeholders: true if you have checked it")
    return (f"a placeholder inside code that {program} runs: a value would become code "
            f"({shlex.quote(plan.program)} ...)", key, hint)


def option_notes(config: HostConfig) -> list[Problem]:
    """``validate``'s notes: each argv position where a value starts an argument with no
    ``--`` before it and no ``allow_dash``, so the program may read it as an option (such
    values are refused at call time when they start with '-')."""
    notes: list[Problem] = []
    for server in config.servers.values():
        for tool in server.tools.values():
            if tool.backend.kind != "command":
                continue
            opts = tool.backend.options
            try:
                plan = compile_argv(list(opts.get("argv") or ()), opts.get("allow_dash") or ())
            except Exception:  # reported as an error by the compile step
                continue
            for element, names in _option_elements(plan):
                if all(n in plan.allow_dash for n in names):
                    continue
                first = names[0]
                notes.append(tool.backend.origin.problem(
                    f"note: {element.source!r} starts an argument with no '--' before it: "
                    f"{plan.program} may read it as an option, so a value starting with '-' "
                    "is refused here",
                    key=element.key,
                    hint=f"put a literal '--' before it if {plan.program} supports that, or "
                         f"allow_dash: [{first}] if this position never reads options"))
    return notes


def _option_elements(plan: ArgvPlan) -> list[tuple[Element, list[str]]]:
    """Elements where a value starts an argument with no ``--`` before it, with the params
    they print (``item`` read as its ``each`` list)."""
    out: list[tuple[Element, list[str]]] = []

    def walk(elements: Iterable[Element], each: str | None) -> None:
        for element in elements:
            if element.group:
                walk(element.group, element.each or each)
            elif not element.literal_only and not element.after_dashdash \
                    and not element.literal_prefix:
                out.append((element, sorted({each if n == "item" and each else n
                                             for n in element.outputs})))

    walk(plan.elements, None)
    return out

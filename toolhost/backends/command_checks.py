"""Load-time checks of a command tool: what the config says must be what runs.

Each check returns ``(message, key, hint)`` triples; ``CommandKind.bind`` turns them into
located problems, so ``validate`` reports them all at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolhost.backends import templating
from toolhost.backends.argv import (
    OPTION_CHARS_TEXT,
    ArgvPlan,
    Element,
    always_needed,
    compile_argv,
    printed_names,
)
from toolhost.backends.code_args import Token, code_slots, program_name, run_programs
from toolhost.backends.code_env import chooses_code
from toolhost.backends.code_filters import safe_form
from toolhost.backends.code_operands import code_operand_slots
from toolhost.backends.code_opt_table import ROUTE, SSH_SENDS
from toolhost.backends.code_opts import OPTION, PLUS, program_family
from toolhost.backends.code_redis import REDIS, stdin_is_code
from toolhost.backends.file_slots import sent_file_slots, written_file_slots
from toolhost.backends.install_slots import install_problems
from toolhost.backends.make_values import MAKES
from toolhost.backends.stdin_args import (
    arg_file_value,
    split_env_s,
    stdin_code_file,
    xargs_problems,
)
from toolhost.config.model import HostConfig, ToolConfig
from toolhost.errors import Problem

__all__ = ["check_plan", "option_notes", "plan_tokens"]

Found = tuple[str, str, str]


def plan_tokens(plan: ArgvPlan) -> list[Token]:
    """argv as the code scan sees it: `if` groups inline, `each` groups as values."""
    tokens = [Token(".argv[0]", plan.program, False)]
    _add_tokens(tokens, plan.elements, False)
    return tokens


def _add_tokens(tokens: list[Token], elements: Iterable[Element], repeated: bool) -> None:
    # a module function, not a closure: a closure that calls itself is a reference cycle,
    # garbage only the cyclic collector frees (one per tool of a load)
    for element in elements:
        if element.group:
            _add_tokens(tokens, element.group, repeated or element.each is not None)
        else:
            tokens.append(Token(element.key, element.source,
                                repeated or not element.literal_only))


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
    for element in plan.elements:
        if element.when is not None and element.when not in tool.params:
            found.append((f"'{element.when}' is not a declared param, so it is a required "
                          "string and the group would always be there", f"{element.key}.if",
                          f"declare it, optional: params: {{{element.when}: "
                          "{type: string, required: false}}"))
    tokens = plan_tokens(plan)
    if not opts.get("unsafe_code_placeholders"):
        for slot in code_slots(tokens):
            if slot.what == PLUS and _numbers_only(plan, slot.key, tool):
                continue  # vim "+{{ line }}" with an integer: a line number, never a command
            found.append(_code_problem(slot.key, slot.program, slot.what, plan))
        found.extend(_code_channels(plan, opts))
        found.extend(install_problems(tokens, dash_ok=bool(plan.allow_dash)))
        found.extend((f"a value names the file {program} writes with {option} and another "
                      "value its text: the model would write any text into any file you "
                      "can write (a shell's rc file, a git hook: code that runs later)", key,
                      "write the file (or its directory) or the format in the config; or set "
                      "unsafe_code_placeholders: true if you have checked it")
                     for key, program, option, text in written_file_slots(tokens) if text)
    stdin = opts.get("stdin")
    if isinstance(stdin, str) and (printed := printed_names(stdin)):
        found.extend(xargs_problems(tokens, printed <= plan.allow_dash,
                                    code=not opts.get("unsafe_code_placeholders")))
    if (file_key := arg_file_value(tokens)) is not None:
        found.extend(xargs_problems(tokens, False, key=file_key,
                                    code=not opts.get("unsafe_code_placeholders")))
    return found


# programs that read their program from stdin when given none (no script operand, no -c/-e)
_STDIN_CODE = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "rbash", "tcsh", "csh",
    "python", "pypy", "perl", "ruby", "irb", "node", "deno", "bun", "php", "lua", "luajit",
    "osascript", "pwsh", "powershell", "tclsh", "wish", "expect", "guile", "rscript", "r",
    "julia", "jshell", "ghci", "sbcl", "clisp", "racket", "ocaml", "scala", "groovysh", "erl",
    "iex", "dc", "m", "crontab", "mongo", "mongosh",
})
# programs that read commands from stdin whatever their operands (the file to edit, debug)
_SHELL_NAMES = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish",
                          "rbash", "tcsh", "csh"})
_STDIN_COMMANDS = frozenset({"bc", "ed", "red", "ex", "vi", "vim", "nvim", "gdb", "lldb", "at",
                             "batch", "ftp", "sftp", "lftp",
                             # Ghostscript runs PostScript from stdin ('-', or no file)
                             "gs", "gsc", "gsx", "ghostscript", "gswin32c", "gswin64c"})
# SQL shells: their stdin is statements (sqlite3's ".shell" runs a program) unless a flag
# or an operand gives them; "COPY ... FROM STDIN" data after -c stays allowed
_STDIN_SQL = frozenset({"psql", "mysql", "mariadb", "sqlite", "duckdb", "sqlcmd"})
_SQL_GIVEN = ("-c", "--command", "-e", "--execute", "-f", "--file", "-i", "-Q", "-q")


def _code_channels(plan: ArgvPlan, opts: Mapping[str, Any]) -> list[Found]:
    """Values reaching code another way: an env variable a program runs or loads, or the
    stdin of a program that reads its program or commands from stdin (through wrappers:
    ``env``, ``timeout 5``, ``nice`` ...)."""
    found: list[Found] = []
    env = opts.get("env") or {}
    # make reads every environment variable as a variable it expands
    argv = plan_tokens(plan) if env else []
    makes = any(program_name(argv[at].text) in MAKES for at in run_programs(argv)) \
        if argv else False
    for key, value in env.items():
        if chooses_code(str(key)) and printed_names(str(value)):
            found.append((f"a placeholder in env {key}: the value would choose code or a "
                          "library the program loads (or where its traffic goes)", f".env.{key}",
                          "write it literally; pass values as arguments"))
        elif makes and printed_names(str(value)):
            found.append((f"a placeholder in env {key}: make reads every environment variable "
                          "as a variable it expands ($(shell CMD) runs a command; a recipe "
                          "may run it)", f".env.{key}",
                          "write it literally; or set unsafe_code_placeholders: true if the "
                          "Makefile never expands it"))
    stdin = opts.get("stdin")
    if not (isinstance(stdin, str) and printed_names(stdin)):
        return found
    tokens = split_env_s(plan_tokens(plan))
    for start in run_programs(tokens):  # an empty list: a value chooses it, refused elsewhere
        problem = _stdin_code(tokens[start:])
        if problem is not None:
            found.append(problem)
            break
    else:
        slot = stdin_code_file(tokens)
        if slot is not None:  # `curl -K -`, `sed -f /dev/stdin`: the stdin is that file
            found.append((f"a placeholder in the stdin, which {slot.program} reads as "
                          f"{slot.what.removeprefix(OPTION)} (the argv names the stdin there): "
                          "a value would become code", ".stdin",
                          "pass the value as data (an argument the code reads), or write the "
                          "file in the config"))
    return found


def _stdin_code(tokens: list[Token]) -> Found | None:
    """The problem of a placeholder in the stdin of ``tokens[0]``, if it reads code there."""
    name = program_name(tokens[0].text)
    stem = name.rstrip("0123456789.")
    what = None
    if (name in REDIS and stdin_is_code(tokens)) or name in _STDIN_COMMANDS \
            or stem in _STDIN_COMMANDS \
            or ((name in _STDIN_SQL or stem in _STDIN_SQL) and _sql_from_stdin(tokens)):
        what = "commands"
    elif (name in _STDIN_CODE or stem in _STDIN_CODE) and _reads_program_from_stdin(tokens):
        what = "program"
    if what is None:
        return None
    return (f"a placeholder in the stdin of {tokens[0].text}, which reads its {what} from "
            "stdin: a value would become code", ".stdin",
            "give the program as an argument (a script file or -c) and pass values as "
            "arguments after it")


def _sql_from_stdin(tokens: list[Token]) -> bool:
    """No -c/-e/-f flag and at most one operand (the database): statements come on stdin."""
    operands = 0
    for token in tokens[1:]:
        text = token.text
        if text.split("=", 1)[0] in _SQL_GIVEN or token.value:
            return False
        if not text.startswith("-"):
            operands += 1
    return operands <= 1


def _reads_program_from_stdin(tokens: list[Token]) -> bool:
    """No script operand and no -c/-e style flag: the interpreter reads its program from
    stdin (or is told to with '-' / -s)."""
    shell = program_name(tokens[0].text) in _SHELL_NAMES
    k = 1
    while k < len(tokens):
        token, text = tokens[k], tokens[k].text
        k += 1
        if token.value:
            return False
        if text in ("-", "-s"):
            return True
        if shell and text in ("-o", "+o", "-O", "+O"):
            k += 1  # -o pipefail
            continue
        if not text.startswith("-"):
            return False
        if shell:
            if not text.startswith("--") and "c" in text[1:]:
                return False  # -c, -ec: the code is an argument (sh -e is errexit)
            continue
        if text.lstrip("-")[:1] in ("c", "e", "E", "m", "r", "p"):
            return False
    return True


def _numbers_only(plan: ArgvPlan, key: str, tool: ToolConfig) -> bool:
    """Whether the element at ``key`` prints only integer or number params."""
    stack = list(plan.elements)
    while stack:
        element = stack.pop()
        stack.extend(element.group)
        if element.key == key:
            types = [(tool.params.get(n) or {}).get("type") for n in element.outputs]
            return bool(types) and all(t in ("integer", "number") for t in types)
    return False


def _code_problem(key: str, program: str, what: str, plan: ArgvPlan) -> Found:
    if what.startswith(OPTION) or what == PLUS:
        kind = "a command (+CMD)" if what == PLUS else what[len(OPTION):]
        hint = "write it literally"
        if what == PLUS:
            hint = "declare the param as an integer (a line number), or write it literally"
        elif program_family(program) in ("git", "ssh", "scp", "sftp"):
            hint = ("write the option literally; a value may follow a literal KEY= that runs "
                    "nothing (git -c user.name={{ name }}, ssh -o User={{ user }})")
        if kind in (SSH_SENDS, ROUTE):  # no code runs: the model would choose what is exposed
            return (f"a value is an option's argument that {program} reads as {kind}: the "
                    "model would choose where the connection goes or what it opens or sends",
                    key, hint + "; or set unsafe_code_placeholders: true if you have checked it")
        return (f"a value is an option's argument that {program} runs or reads as {kind}: "
                "the model would choose the program or code that runs", key,
                hint + "; or set unsafe_code_placeholders: true if you have checked it")
    if what == "the program to run":
        return (f"a value chooses the program that {program} runs: the model would choose "
                "what runs", key, "write the program literally")
    if what == "a script file":
        return (f"a value is the script file {program} runs: the model would choose the code",
                key, "write the script path literally and pass values as arguments after it")
    safe = safe_form(program) or ""
    if program in ("sh", "bash", "zsh", "dash", "ksh"):
        safe = f"[{program}, -c, 'echo \"$1\"', {program}, \"{{{{ v }}}}\"]"
    elif program.startswith("python"):
        safe = f"[{program}, -c, 'import sys; print(sys.argv[1])', \"{{{{ v }}}}\"]"
    from shlex import quote  # only for this message (shlex compiles a pattern at import)

    hint = ("pass the value as a separate argument the code reads"
            + (f", e.g. {safe}" if safe else " (as $1, sys.argv, ARGV, process.argv)")
            + "; or set unsafe_code_placeholders: true if you have checked it")
    return (f"a placeholder inside code that {program} runs: a value would become code "
            f"({quote(plan.program)} ...)", key, hint)


def option_notes(config: HostConfig) -> list[Problem]:
    """``validate``'s notes: each argv position where a value starts an argument with no
    ``--`` before it and no ``allow_dash``, so the program may read it as an option (such
    values are refused at call time when they start with '-', '+' or '@'); and each
    ``{each}`` group whose items may be lists or objects (each passed as one JSON
    argument)."""
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
            if opts.get("allow_remote") is True:
                notes.append(tool.backend.origin.problem(
                    "note: allow_remote: true lets a value name another host's file "
                    "('host:path' in scp, rsync or tar operands): the model chooses the host "
                    "these programs connect to with your ssh keys", key=".allow_remote",
                    hint="remove it unless the model must choose the host"))
            for key, program, option, _ in written_file_slots(plan_tokens(plan)):
                notes.append(tool.backend.origin.problem(
                    f"note: a value names the file {program} truncates and writes with "
                    f"{option}: the model chooses which of your files is replaced", key=key,
                    hint="bound the param with a permission rule (when: {PARAM: {path_under: "
                         "DIR}}), or write the file or its directory in the config"))
            for key, program, option in sent_file_slots(plan_tokens(plan)):
                notes.append(tool.backend.origin.problem(
                    f"note: a value names the file {program} reads and sends with {option}: "
                    "the model chooses which of your files leaves the machine", key=key,
                    hint="bound the param with a permission rule (when: {PARAM: {path_under: "
                         "DIR}}), or write the file or its directory in the config"))
            for key, program, what in code_operand_slots(plan_tokens(plan)):
                notes.append(tool.backend.origin.problem(
                    f"note: a value names what `{program}` {what}: the model chooses which "
                    "code runs, from any directory it can write to", key=key,
                    hint="bound the param with a permission rule (when: {PARAM: {path_under: "
                         "DIR}}), or write the directory in the config"))
            notes.extend(_nested_item_notes(plan, tool))
            notes.extend(_list_notes(plan, tool))
            for element, names in _option_elements(plan):
                if all(n in plan.allow_dash for n in names):
                    continue
                listed = ", ".join(n for n in names if n not in plan.allow_dash)
                notes.append(tool.backend.origin.problem(
                    f"note: {element.source!r} starts an argument with no '--' before it: "
                    f"{plan.program} may read it as an option, so a value starting with "
                    f"{OPTION_CHARS_TEXT} is refused here",
                    key=element.key,
                    hint=f"put a literal '--' before it if {plan.program} supports that, or "
                         f"allow_dash: [{listed}] if this position never reads options"))
    return notes


def _option_elements(plan: ArgvPlan) -> list[tuple[Element, list[str]]]:
    """Elements where a value starts an argument with no ``--`` before it, with the params
    they print (``item`` read as its ``each`` list)."""
    out: list[tuple[Element, list[str]]] = []

    def walk(elements: Iterable[Element], each: str | None) -> None:
        for element in elements:
            if element.group:
                walk(element.group, element.each or each)
            elif element.value_starts and not element.after_dashdash:
                out.append((element, sorted({each if n == "item" and each else n
                                             for n in element.outputs})))

    walk(plan.elements, None)
    return out


def _nested_item_notes(plan: ArgvPlan, tool: ToolConfig) -> list[Problem]:
    """An ``{each}`` over a declared list whose items' schema admits lists or objects."""
    notes: list[Problem] = []
    for element in plan.elements:
        schema = tool.params.get(element.each or "")
        if not isinstance(schema, Mapping) or not _admits_containers(schema.get("items")):
            continue
        notes.append(tool.backend.origin.problem(
            f"note: the items of '{element.each}' may be lists or objects: such an item is "
            "passed as one JSON argument, never spread over several", key=f"{element.key}.each",
            hint=f"if '{element.each}' is a list of plain values, say so: "
                 "items: {type: string}"))
    return notes


def _list_notes(plan: ArgvPlan, tool: ToolConfig) -> list[Problem]:
    """A list param printed with text around it (one JSON argument, not one per item), and
    an exact list placeholder right after an option (an empty list leaves the option to read
    the next argument, a second item is an operand)."""
    notes: list[Problem] = []
    for sequence in (plan.elements, *(e.group for e in plan.elements if e.group)):
        before: Element | None = None
        for element in sequence:
            simple = templating.simple_variable(element.source) if not element.group else None
            if simple is not None and _admits_array(tool.params.get(simple[1])) \
                    and element.expand is None:
                notes.append(tool.backend.origin.problem(
                    f"note: {element.source!r} has text around '{{{{ {simple[1]} }}}}': a list "
                    "value renders as one JSON argument, not one argument per item",
                    key=element.key, hint=f"write exactly '{{{{ {simple[1]} }}}}' (no spaces) "
                    "for one argument per item"))
            if element.expand is not None and before is not None and before.literal_only \
                    and _takes_value(before.source) \
                    and _admits_array(tool.params.get(element.expand)):
                name = element.expand
                notes.append(tool.backend.origin.problem(
                    f"note: the list '{name}' follows {before.source!r}: an empty list leaves "
                    f"{before.source!r} to read the next argument as its value (a '--' after "
                    "it no longer protects the values after that), and a second item is an "
                    "operand, not another value of the option",
                    key=element.key, hint=f"one option per item: {{each: {name}, argv: "
                    f"[{before.source}, \"{{{{ item }}}}\"]}}; if {before.source} takes no "
                    "value, put '--' before the list"))
            before = element
    return notes


def _takes_value(text: str) -> bool:
    return text.startswith("-") and text not in ("-", "--") and "=" not in text


def _admits_array(schema: Any) -> bool:
    """Whether a declared param's schema lets its value be a list."""
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind is None:
        alternatives = [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
        return any(_admits_array(sub) for sub in alternatives)
    return "array" in ([kind] if isinstance(kind, str) else list(kind))


def _admits_containers(items: Any) -> bool:
    """Whether an ``items`` schema lets an item be an array or object."""
    if items is None or items is True or items == {}:
        return True
    if not isinstance(items, Mapping) or "enum" in items or "const" in items:
        return False
    kind = items.get("type")
    if kind is None:  # untyped admits anything, unless its alternatives say otherwise
        alternatives = [*(items.get("anyOf") or ()), *(items.get("oneOf") or ())]
        return not alternatives or any(_admits_containers(sub) for sub in alternatives)
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return "array" in kinds or "object" in kinds


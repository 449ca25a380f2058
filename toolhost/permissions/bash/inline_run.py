"""Interpreter code that can run a command is not provable.

The deny rules try every string literal of an interpreter's inline code (``python3 -c``,
``perl -e``, ``awk '...'``) and of a program it reads from its input as a command line. That
sees ``os.system("rm x")``, but not a command the code builds (``"r" + "m x"``,
``chr(114)``, awk's ``"r" "m x"``, a literal spelled ``r${X}m x`` that the shell expands, a
module loaded by name): a differential run under bash found each of them running ``rm``
while ``deny: Bash(rm:*)`` with ``allow: Bash`` allowed the line. What such code runs
cannot be read from the line, so code that names a way to run a command or to run code
(``system``, ``exec``, ``popen``, ``spawn``, ``subprocess``, ``eval``, ``__import__``,
``getattr``, ``require``, backticks, ``qx``, ``%x``, awk's ``|``, a pipe ``open``) makes the
line not provable: never allowed, denied where a Bash deny rule exists. Code naming none
(``print(1)``, ``json.dumps(...)``, awk's ``{print $1}``) is decided as before.
"""

from __future__ import annotations

import re

from toolhost.permissions.bash.interpreters import (
    _AWKS,
    _INLINE_CODE,
    _VERSIONED,
    base,
    inline_codes,
    reads_program_from_stdin,
)

__all__ = ["inline_run_reason"]

# a name or token through which code of perl, python, ruby, node, php, lua, R, julia, tcl,
# osascript or emacs lisp runs a command or more code (fail closed: substrings, any case)
_RUNS = re.compile(
    r"system|exec|popen|spawn|subprocess|\bpty\b|fork|eval|__import__|import_module|"
    r"getattr|ctypes|\bcompile\b|child_process|require|shell|passthru|proc_open|readpipe|"
    r"\bqx\b|%x|`|\bIO\b|open3|\bkernel\b|\bsend\b|__send__|\bmethod\b|load|dofile|"
    r"\bFunction\b|\bvm\b|binding|globals|builtins|__dict__|\bdo shell script\b|"
    r"\bcall-process|\bprocess-|\bsh\b|\bbash\b|\brun\(|\bcmd\b|os\.execute|\bsyscall\b",
    re.IGNORECASE)
_PIPE_OPEN = re.compile(r"\bopen\b", re.IGNORECASE)


def _runs(code: str, awk: bool) -> str | None:
    if awk:  # awk runs a command through system() and a `|` to or from a string
        return "system" if "system" in code else "|" if "|" in code else None
    m = _RUNS.search(code)
    if m is not None:
        return m.group(0)
    if "|" in code and _PIPE_OPEN.search(code):  # perl/ruby open(F, "|cmd"), open("|cmd")
        return "open with |"
    return None


def inline_run_reason(forms: list[tuple[str, ...]], command: str) -> str | None:
    """Why interpreter code among ``forms`` (those of ``command``) may run a command the
    rules cannot read (None: none does)."""
    for form in forms:
        if not form:
            continue
        name = base(form[0])
        if name in ("mlr", "miller") and any("system" in w or "exec" in w for w in form):
            return (f"the code {name} runs names 'system' or 'exec' (Miller's DSL runs a "
                    "command line), which may be built at run time: the rules cannot read it")
        awk = name in _AWKS
        interpreter = name in _INLINE_CODE or _VERSIONED.fullmatch(name) is not None
        if not (awk or interpreter):
            continue
        if awk:  # (its program, or an option's value, or a file: any word, fail closed)
            codes = [" ".join(form[1:])]
            if reads_program_from_stdin(form):  # awk -f - <<< '...', awk -f /dev/stdin
                codes.append(command)
        else:
            codes = inline_codes(name, form)
            if not codes and reads_program_from_stdin(form):
                codes = [command]  # its program is fed: anything on the line may be code
        for code in codes:
            found = _runs(code, awk)
            if found is not None:
                return (f"the code {name} runs names {found!r}: a command it runs may be "
                        "built at run time, which the rules cannot read")
    return None

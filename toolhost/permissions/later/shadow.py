"""A module of the current directory that python imports in place of the one it names.

``python -m MOD``, ``python -c CODE`` and python reading its program from its input put the
current directory first on ``sys.path``: a ``json.py`` or ``venv/__init__.py`` an earlier
call wrote there runs in place of the standard library's (``python3 -m json.tool f.json``,
``python3 -c 'import json'``: checked with python itself), and a ``pip.py`` in place of pip.
Where a deny or ask Bash rule exists, such a run is not provable when the directory holds a
module named as the one ``-m`` runs or as a module of the standard library (any of which
the code may import), or after a ``cd`` on the line (the directory is then not known).
``-I`` and ``-P`` leave the directory off ``sys.path``. A script file (``python3 tools/x.py``)
puts its own directory first instead: a ``tools/json.py`` runs in place of the standard
library's when ``x.py`` imports json (checked with python 3.11), so that directory is looked
at for modules named as the standard library's (its other modules are the script's own).
"""

from __future__ import annotations

import os
import sys
import time

from toolhost.permissions.bash.forms import command_forms
from toolhost.permissions.bash.fresh_files import may_write
from toolhost.permissions.bash.interpreters import reads_program_from_stdin
from toolhost.permissions.bash.python_args import python_run
from toolhost.permissions.later.judge import Judge
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["modules_in", "shadow_reason"]

_STDLIB = frozenset(sys.stdlib_module_names)
_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")
_LISTED = 4096  # entries of the directory looked at (fail closed past them)


def shadow_reason(forms: list[tuple[str, ...]], cwd: str, judge: Judge,
                  parsed: ParsedCommand | None = None) -> str | None:
    """Why a python run among ``forms`` may import a module of ``cwd`` in place of the one
    it means (None: none may, or no deny or ask Bash rule exists)."""
    wanted: set[str] = set()
    scripts: list[str] = []
    if parsed is not None:  # the runs as they happen: "python3 -I x.py" is not "python3 x.py"
        forms = [f for words in parsed.segments + parsed.nested
                 for f in command_forms(words, options=False)]
    for form in forms:
        mode = _mode(form)
        if mode is not None:
            wanted.add(mode)
        elif (script := _script(form)) is not None:
            scripts.append(script)
    if not (wanted or scripts) or not judge([None]):
        return None
    if any(f[0] in MOVES for f in forms if f):
        return "after a cd, the directory python imports modules from first is not known"
    if parsed is not None and may_write(parsed, _program(forms)):
        return ("the line may write a module into the directory python imports from first "
                "(it is looked at before the line runs)")
    if wanted:
        hits = modules_in(cwd, wanted)
        if hits is None:
            return (f"python puts {cwd!r} first on sys.path, and it holds too many entries "
                    "to look for a module there")
        if hits:
            return (f"python puts the current directory first on sys.path, and its "
                    f"{hits[0]!r} (an earlier call may have written it) is imported in place "
                    "of the module of that name")
    for script in scripts:
        if (why := _script_dir_reason(script, cwd)) is not None:
            return why
    return None


def _script(form: tuple[str, ...]) -> str | None:
    """The script file a python form runs (``python3 tools/x.py``: ``tools/x.py``), None:
    none, ``-I``/``-P`` (the script's directory is not put on sys.path), or not python."""
    run = python_run(form)
    return None if run is None or run.isolated else run.script


def _script_dir_reason(script: str, cwd: str) -> str | None:
    """Why the directory of ``script`` (first on ``sys.path``: as written, and with its
    links resolved, as python resolves them) may put a module in place of the standard
    library's one of that name."""
    if any(c in script for c in "$`*?[{~"):
        return None  # (a script not named before the line runs: it is the program, as is)
    path = os.path.join(cwd, script)
    if not os.path.isfile(path):
        return None  # (no script there: python stops before it imports anything)
    folders = dict.fromkeys([os.path.dirname(path) or cwd,
                             os.path.dirname(os.path.realpath(path))])
    for folder in folders:
        hits = modules_in(folder, set())
        if hits is None:
            return (f"python puts the script's directory {folder!r} first on sys.path, and "
                    "it holds too many entries to look for a module there")
        if hits:
            return (f"python puts the script's directory first on sys.path, and its "
                    f"{hits[0]!r} (an earlier call may have written it) is imported in place "
                    "of the standard library's module of that name")
    return None


def _program(forms: list[tuple[str, ...]]) -> str:
    """The name of the python program among ``forms`` (``python3``), for ``may_write``."""
    return next((f[0].rsplit("/", 1)[-1] for f in forms if _mode(f) is not None), "python")


def _mode(form: tuple[str, ...]) -> str | None:
    """The top-level module ``python -m`` runs, ``""`` for ``-c`` or a program on its input,
    None: a script file, ``-I``/``-P``, or not python."""
    run = python_run(form)
    if run is None or run.isolated or run.script is not None:
        return None
    if run.module is not None:
        return run.module.split(".", 1)[0]
    return "" if run.code or reads_program_from_stdin(form) else None


def modules_in(cwd: str, wanted: set[str]) -> list[str] | None:
    """The modules of the standard library or of ``wanted`` a directory holds (``x.py``,
    ``x.cpython-312.so``, a ``x/__init__.py`` package), sorted; None: too many entries."""
    stems = _entries(cwd)
    if stems is None:
        return None
    out = []
    for stem in sorted((_STDLIB & stems.keys()) | (wanted & stems.keys())):
        for name in stems[stem]:
            if name.endswith(_SUFFIXES) or ("." not in name and (  # (a package: looked at
                    os.path.exists(os.path.join(cwd, name, "__init__.py")) or  # each time:
                    os.path.exists(os.path.join(cwd, name, "__init__.pyc")))):  # its folder
                out.append(stem)  # may not change when its __init__.py is made)
                break
    return out


# (path, dev, ino, mtime_ns, ctime_ns) -> the entries by stem: a folder still for 2 s is
# listed once (/tmp here: 1,400 entries, ~4 ms a listing); an entry made or removed changes
# its mtime, and ctime catches a time put back (as package_files' rc look-ups)
_LISTINGS: dict[tuple[str, int, int, int, int], dict[str, tuple[str, ...]] | None] = {}
_STILL_NS = 2_000_000_000


def _entries(cwd: str) -> dict[str, tuple[str, ...]] | None:
    try:
        st = os.stat(cwd)
    except OSError:
        return {}  # (no directory: nothing there to import)
    key = (cwd, st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    if key in _LISTINGS:
        return _LISTINGS[key]
    try:
        with os.scandir(cwd) as it:
            names = [entry.name for _, entry in zip(range(_LISTED + 1), it, strict=False)]
    except OSError:
        return {}
    stems: dict[str, tuple[str, ...]] | None = None
    if len(names) <= _LISTED:
        grouped: dict[str, list[str]] = {}
        for name in names:
            grouped.setdefault(name.split(".", 1)[0], []).append(name)
        stems = {k: tuple(v) for k, v in grouped.items()}
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _STILL_NS:
        if len(_LISTINGS) >= 64:
            _LISTINGS.clear()
        _LISTINGS[key] = stems
    return stems

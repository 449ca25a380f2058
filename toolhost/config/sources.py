"""Where config text comes from: reading a file by its suffix, and resolving ``extends`` entries.

An ``extends`` entry has a *form*, and ``RESOLVERS`` maps each form to a function turning the
entry into a local file path::

    "./team/base.yaml"               form "path": relative to the file that names it
    "pkg:toolhost_team/base.yaml"    form "pkg":  a file shipped in an installed package
    {repo: ..., rev: ..., path: ...} form "git":  a file in a pinned git repository

This module provides "path"; other forms are added by registering one function each in
``RESOLVERS`` (a string entry ``scheme:rest`` uses the resolver registered as ``scheme``; a
mapping entry with ``repo`` uses ``git``). A resolver raises ``ConfigError`` when it cannot
resolve, naming ``origin``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolhost.config.checks import describe
from toolhost.config.limits import read_bounded
from toolhost.config.model import SUFFIXES, Origin
from toolhost.config.repotree import escapes
from toolhost.config.tree import Doc
from toolhost.errors import ConfigError, Problem
from toolhost.excerpt import cut

__all__ = ["RESOLVERS", "Resolver", "entry_form", "read_doc", "resolve_extends"]

Resolver = Callable[..., Path]  # (entry, *, base_dir: Path, origin: Origin) -> Path
# (text: compiled at its first use, kept in re's cache; not at every start)
_SCHEME = r"^([a-z][a-z0-9+.-]+):(?!//)"


def _problem(origin: Origin, message: str, hint: str = "") -> ConfigError:
    return ConfigError([origin.problem(message, hint=hint)])


def resolve_path(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    """A local file, relative to the directory of the file that names it."""
    # a URL, or git's scp-like form (git@host:team/config.yaml), which is no file either
    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*://", str(entry)) or (  # (a path: "https:/x")
            re.match(r"[\w.-]+@[a-zA-Z0-9.-]+:(?!/)", str(entry))
            and not os.path.lexists(base_dir / str(entry))):
        raise _problem(origin, f"extends: {cut(str(entry), 200)} is a URL, and extends names "
                       "files: toolhost fetches no config from a URL",
                       "a shared config is a pinned git repository: "
                       "{repo: URL, rev: TAG-OR-COMMIT, path: FILE} (docs/sharing.md)")
    path = Path(os.path.expanduser(str(entry)))
    if not path.is_absolute():
        path = base_dir / path
    try:
        os.stat(path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:  # a name too long, a symlink loop, a NUL byte
        raise _problem(origin, f"extends: cannot read {cut(str(path), 200)}: "
                       f"{getattr(exc, 'strerror', None) or exc}") from None
    if not path.exists():
        raise _problem(origin, f"extends: no such file: {cut(str(path), 200)}",
                       _meant(str(entry), path) or ("" if os.path.isabs(os.path.expanduser(
                           str(entry))) else "paths are relative to the file that names them"))
    if not path.is_file():
        raise _problem(origin, f"extends: not a regular file: {cut(str(path), 200)}")
    outside = escapes(origin.file, path)
    if outside is not None:  # neither pinned nor reviewed: a repository extends only itself
        raise _problem(origin, f"extends: {cut(str(entry), 200)} leaves the repository "
                       f"checked out in {outside} (it resolves to "
                       f"{cut(os.path.realpath(path), 200)})",
                       "a file in a shared repository extends only files of that "
                       "repository, through no symlink or '..' out of it; or name another "
                       "one with {repo, rev, path}")
    return path


def _meant(entry: str, path: Path) -> str:
    """The file a missing entry probably meant: a close name beside it (``bsae.yaml``,
    ``base.yml``, ``Base.yaml``), or the same name in a close directory (``sbu/base.yaml``),
    written as the entry was; "" when none is close or the directory cannot be read."""
    from toolhost.typos import close_matches

    def near(folder: Path, word: str, files: bool) -> str | None:
        # (a directory's name is short: a swap of two letters in three is 0.67)
        try:
            with os.scandir(folder) as listing:  # a huge directory: its first 1000 only
                names = [e.name for _, e in zip(range(1000), listing, strict=False)
                         if (e.is_file() and e.name.endswith(tuple(SUFFIXES))
                             if files else e.is_dir())]
        except (OSError, ValueError):
            return None
        found = close_matches(word, [n for n in names if n != word], n=1,
                              cutoff=0.7 if files else 0.6)
        return found[0] if found else None

    written_dir, name = os.path.split(entry)
    if path.parent.is_dir():
        found = near(path.parent, name, True)
        return f"did you mean {os.path.join(written_dir, found)}?" if found else ""
    above, missing = os.path.split(written_dir.rstrip("/\\"))
    found = near(path.parent.parent, missing, False) if missing else None
    if found and (path.parent.parent / found / name).is_file():
        return f"did you mean {os.path.join(above, found, name)}?"
    beside = "" if os.path.isabs(os.path.expanduser(entry)) else " beside the file that names it"
    return f"there is no directory {written_dir}{beside}"


def resolve_pkg_entry(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    # imported when an entry needs it: importlib.metadata and packaging are ~15 ms
    from toolhost.config.pkgdata import resolve_pkg_entry as resolve

    return resolve(entry, base_dir=base_dir, origin=origin)


def resolve_git_entry(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    from toolhost.config.gitrepos import resolve_git_entry as resolve

    return resolve(entry, base_dir=base_dir, origin=origin)


RESOLVERS: dict[str, Resolver] = {
    "path": resolve_path,
    "pkg": resolve_pkg_entry,
    "git": resolve_git_entry,
}


def entry_form(entry: Any) -> str:
    """Which resolver handles ``entry`` (``"path"``, a scheme like ``"pkg"``, or ``"git"``)."""
    if isinstance(entry, str):
        found = re.match(_SCHEME, entry)
        if found and found[1] in RESOLVERS:
            return found[1]
        return "path"
    if isinstance(entry, dict) and "repo" in entry:
        return "git"
    return type(entry).__name__


def resolve_extends(entry: Any, *, base_dir: Path, origin: Origin) -> Path:
    """Turn one ``extends`` entry into the local path of the file to merge."""
    form = entry_form(entry)
    if isinstance(entry, str) and not entry.strip():
        raise _problem(origin, "extends: empty entry")
    resolver = RESOLVERS.get(form)
    if resolver is None:
        if form == "git":
            raise _problem(origin, "extends: git entries need the git source "
                           "(toolhost.config.gitrepos), which is not available")
        got = ("a mapping without `repo` (a git entry is {repo: URL, rev: TAG, path: "
               "FILE})" if form == "dict" else describe(entry))
        raise _problem(origin, f"extends: expected a path string or {{repo, rev, path}}, "
                       f"got {got}")
    return resolver(entry, base_dir=base_dir, origin=origin)


def _configs_in(folder: str) -> list[str]:
    """Up to five files of ``folder`` to name as its config, written as a path from here:
    the ones that set ``toolhost:`` first, toolhost.* first among them (a policy test, a
    scenario or a CI workflow is no config). At most 1,000 entries are looked at."""
    from toolhost.cli_suggest import is_config

    try:
        with os.scandir(folder) as listing:
            names = [e.name for _, e in zip(range(1000), listing, strict=False)
                     if e.name.lower().endswith(tuple(SUFFIXES)) and e.is_file()]
    except OSError:
        return []
    where = [os.path.join(folder, n) if folder not in (".", "./") else n for n in names]
    configs = sorted(where, key=lambda p: (not is_config(p),
                                           not os.path.basename(p).startswith("toolhost."), p))
    return configs[:5]


def read_doc(path: Path | str, layer: str, problems: list[Problem],
             origin: Origin | None = None) -> Doc | None:
    """Read and parse one file; problems (unreadable, bad syntax) go to ``problems``.

    ``origin`` is the ``extends`` entry that named the file, if one did: a refusal of the
    whole file (too large, cannot be read, not UTF-8) is located there, naming the file, so
    the person sees which line pulled it in (a syntax error stays at the file's own line).
    """
    name = str(path)
    if not name:
        problems.append(Problem("no config file named (an empty path)", "''",
                                hint="e.g. toolhost validate toolhost.yaml"))
        return None
    kind = SUFFIXES.get(Path(path).suffix.lower())
    if kind is None:
        if os.path.isdir(name):  # `toolhost validate .`: the project, not its config file
            inside = _configs_in(name)
            problems.append(Problem("is a directory, not a config file", name,
                                    hint="name the config file in it" + (
                                        f": {', '.join(inside)}" if inside else
                                        " (`toolhost init` writes toolhost.yaml)")))
            return None
        # `toolhost validate toolhost` where toolhost.yaml is: the file meant, named
        near = [name + s for s in (".yaml", ".yml", ".toml") if os.path.isfile(name + s)]
        problems.append(Problem(f"unknown config format '{Path(path).suffix}'", name,
                                hint=f"did you mean {near[0]}?" if near
                                else "use .yaml, .yml or .toml"))
        return None
    refused: list[Problem] = []
    text = read_bounded(name, refused, locate=lambda whole, at: _path_at(kind, whole, at))
    if text is None:
        problems.extend(refused if origin is None else (_pulled_by(p, origin) for p in refused))
        return None
    if kind == "yaml":  # each parser loads with its first file of that kind
        from toolhost.config.yaml_source import parse_yaml

        return parse_yaml(text, name, layer, problems)
    from toolhost.config.toml_source import parse_toml

    return parse_toml(text, name, layer, problems)


def _path_at(kind: str, text: str, at: int) -> str:
    """The key path at offset ``at`` of a text of ``kind`` that could not be read whole."""
    if kind == "yaml":
        from toolhost.config.yaml_source import path_at
    else:
        from toolhost.config.toml_source import path_at
    return path_at(text, at)


def _pulled_by(problem: Problem, origin: Origin) -> Problem:
    """``problem`` of a whole fragment, located at the ``extends`` entry that named it."""
    where = problem.file
    if problem.line:
        where += f":{problem.line}" + (f":{problem.column}" if problem.column else "")
    if problem.key_path:  # where in the fragment (the key path of the bad byte, say)
        where += f": {cut(problem.key_path, 200)}"
    return origin.problem(f"extends: {cut(where, 400)}: {problem.message}", hint=problem.hint)

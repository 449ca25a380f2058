"""Paths a shared repository's command tool names in its argv: the repository's own files.

A command tool declared in a file of a cached team repository (``extends: [{repo, rev,
path}]``) runs what its argv names, and a relative path there means a file of that
repository, pinned by its commit like the fragment itself:

- the program, when it is a path (``./scripts/x.sh``, ``scripts/x.sh``, ``../x``): relative
  to the tool's ``cwd`` when it has one (the OS resolves it there), else to the file that
  declares the tool (a fragment cannot know the directory toolhost is started in). It must
  be a file of the repository;
- a literal argument that names a file of the repository (``[python3, scripts/x.py]``,
  ``[bash, run.sh]``), resolved the same way;
- with a ``cwd`` inside the repository, no literal argument may lead out of it (``../..``, a
  symlink): the program would open what lies outside, which is neither pinned nor reviewed.
  A ``cwd`` written as a directory of the machine (absolute, outside the checkout) is the
  config's explicit choice, like an absolute program: its relative paths are left alone.

Such a path is made absolute, so the program reads the repository's file wherever toolhost
runs, and must stay inside the checkout (symlinks resolved) and outside its ``.git`` and
toolhost's own metadata file: every other file of a checkout is exactly its commit's, since
the checkout is compared with it before the config is used
(``toolhost.config.repotree.clean_or_refetch``). Anything else is a problem located at the
argv element. Files of the config's own project are not touched: an argument that names no
file of the repository is passed as written (``[grep, -rn, TODO, src/]`` searches the
user's ``src/``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from toolhost.backends.argv import ArgvPlan, Element, _element
from toolhost.config.repotree import META, checkout_root
from toolhost.excerpt import cut

__all__ = ["repo_command", "repo_paths", "repo_values"]

Problem = tuple[str, str, str]  # (message, key, hint)
_TAGS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_HINT = ("a path in a shared repository's file names a file of that repository (relative to "
         "the tool's cwd, else to the file), and nothing outside it: what lies outside is "
         "neither pinned nor reviewed")


def repo_paths(plan: ArgvPlan, declaring: str, cwd: str | None
               ) -> tuple[ArgvPlan, list[Problem]]:
    """``plan`` with the repository paths of its literal elements made absolute, and the
    problems found; ``plan`` itself when ``declaring`` is in no cached checkout."""
    if not _candidates(plan):  # most tools: no path at all, and no realpath to pay for
        return plan, []
    root = checkout_root(declaring)
    if root is None or _elsewhere(root, cwd):
        return plan, []
    walk = _Walk(root, cwd or os.path.dirname(os.path.abspath(declaring)), cwd is not None)
    program = walk.program(plan.program)
    elements = tuple(walk.element(element) for element in plan.elements)
    if program == plan.program and elements == plan.elements:
        return plan, walk.problems
    return dataclasses.replace(plan, program=program, elements=elements), walk.problems


def repo_command(argv: Sequence[str], declaring: str, cwd: str | None
                 ) -> tuple[list[str], list[Problem]]:
    """The same for a literal command line (an imported MCP server's ``command``); each
    problem's key is the element's index."""
    root = checkout_root(declaring) if argv else None
    if root is None or _elsewhere(root, cwd):
        return list(argv), []
    walk = _Walk(root, cwd or os.path.dirname(os.path.abspath(declaring)), cwd is not None)
    out = [walk.program(argv[0], "0")]
    out += [walk.argument(text, str(i)) for i, text in enumerate(argv[1:], start=1)]
    return out, walk.problems


def repo_values(plan: ArgvPlan, declaring: str, cwd: str | None,
                params: Mapping[str, Mapping[str, object]]) -> list[Problem]:
    """Problems for a value the shared repository's file itself gives a param (its
    ``default``, ``const`` or ``enum``) that names a file of the repository, where that param
    is a whole argument (``[python3, "{{ script }}"]``) of a tool that runs outside the
    repository: the value is resolved in the directory toolhost runs in, so another file of
    that name, or none, would run instead of the checkout's. A value the caller gives is
    theirs to choose and is not checked."""
    whole = _whole_values(plan.elements, {})
    if not whole or cwd is not None:  # with a cwd, values resolve there (inside: the
        return []  # repository's files; an absolute directory outside: the config's choice)
    root = checkout_root(declaring)
    if root is None:
        return []
    base = os.path.dirname(os.path.abspath(declaring))
    problems: list[Problem] = []
    for name, key in whole.items():
        schema = params.get(name)
        for what, value in _own_values(schema if isinstance(schema, Mapping) else {}):
            resolved = os.path.normpath(os.path.join(base, value))
            real = os.path.realpath(resolved)
            if not (_path_like(value) and os.path.lexists(resolved)
                    and (real == str(root) or real.startswith(f"{root}{os.sep}"))):
                continue
            problems.append((
                f"param {name!r}: its {what} {cut(value, 200)!r} names a file of the "
                f"repository, but the argument {{{{ {name} }}}} is resolved in the directory "
                "toolhost runs in, where another file of that name (or none) would be used",
                key, "give the tool a cwd inside the repository (cwd: .) so that values are "
                f"read there, or write the path as an argument of its own ({{if: PARAM, argv: "
                f"[{cut(value, 80)}]}})"))
            break
    return problems


def _whole_values(elements: Sequence[Element], found: dict[str, str]) -> dict[str, str]:
    """param -> the key of an element that prints it whole (``{{ name }}``), groups too."""
    for element in elements:
        if element.group:
            _whole_values(element.group, found)
        elif element.expand:
            found.setdefault(element.expand, element.key)
    return found


def _own_values(schema: Mapping[str, object]) -> list[tuple[str, str]]:
    found = [(what, schema[what]) for what in ("default", "const") if what in schema]
    enum = schema.get("enum")
    found += [("enum value", v) for v in enum] if isinstance(enum, list) else []
    return [(what, v) for what, v in found if isinstance(v, str)]


def _elsewhere(root: Path, cwd: str | None) -> bool:
    """A ``cwd`` the config wrote as a directory of the machine, outside the checkout (an
    absolute path): relative paths there are that directory's, as an absolute program
    (``/usr/bin/git``) is the machine's, and not the repository's business."""
    if cwd is None:
        return False
    real = os.path.realpath(cwd)
    return real != str(root) and not real.startswith(f"{root}{os.sep}")


class _Walk:
    def __init__(self, root: Path, base: str, runs_inside: bool) -> None:
        self.root, self.base, self.runs_inside = str(root), base, runs_inside
        self.problems: list[Problem] = []

    def program(self, program: str, key: str = ".argv[0]") -> str:
        if os.sep not in program or os.path.isabs(program):
            return program  # a name looked up in PATH, or a program of the machine
        resolved = os.path.normpath(os.path.join(self.base, program))
        why = self._outside(resolved) or self._not_file(resolved)
        if why:
            self.problems.append((f"the program {cut(program, 200)!r} {why}", key, _HINT))
            return program
        return resolved

    def element(self, element: Element) -> Element:
        if element.group:
            group = tuple(self.element(sub) for sub in element.group)
            return element if group == element.group else dataclasses.replace(element,
                                                                               group=group)
        if "{" in element.source:
            self.flagged(element)
            return element
        if not element.literal_only:
            return element
        text = self.argument(element.source, element.key)
        return element if text == element.source else _element(text, element.key,
                                                                 element.after_dashdash)

    def flagged(self, element: Element) -> None:
        """A literal path inside a template (``{% if v %}x.py{% endif %}``,
        ``scripts/{{ name }}.py``) cannot be made absolute: refused when it names what the
        repository has or (run inside it) leads out."""
        for piece in _TAGS.split(element.source):
            piece = piece.strip()
            if not _path_like(piece):
                continue
            resolved = os.path.normpath(os.path.join(self.base, piece))
            outside = self._outside(resolved)
            if (self.runs_inside and outside) or (not outside and os.path.lexists(resolved)):
                self.problems.append((
                    f"the argument {cut(element.source, 200)!r} writes the path "
                    f"{cut(piece, 200)!r} inside a template, where it cannot be checked as "
                    "the repository's file",
                    element.key, "write it as an argument of its own, in a group when it is "
                    f"optional ({{if: PARAM, argv: [{cut(piece, 80)}]}}), or give the tool a "
                    "cwd inside the repository (cwd: .) so that it is read there"))
                return

    def argument(self, text: str, key: str) -> str:
        """``text`` (a literal argument), or the absolute path of the repository's file it
        names (``--config=conf/x.ini``: the value after an option's ``=``); a problem is
        recorded when it leads where it may not."""
        option, eq, value = text.partition("=")
        if text.startswith("-") and eq and option[1:].lstrip("-") and _path_like(value):
            path = self.argument(value, key)
            return text if path == value else f"{option}={path}"
        if not _path_like(text):
            return text
        resolved = os.path.normpath(os.path.join(self.base, text))
        if self.runs_inside and (why := self._outside(resolved)):
            self.problems.append((f"the argument {cut(text, 200)!r} {why}", key, _HINT))
            return text
        if not os.path.isfile(resolved) or self._outside(resolved):
            return text  # not a file of the repository: a path of the user's, or a word
        if self._git_own(resolved):
            self.problems.append((f"the argument {cut(text, 200)!r} names "
                                  f"{cut(resolved, 200)}, which is not a file of the "
                                  "repository's commit", key, _HINT))
            return text
        return resolved

    def _outside(self, resolved: str) -> str | None:
        real = os.path.realpath(resolved)
        if real != self.root and not real.startswith(self.root + os.sep):
            return (f"leads out of the repository checked out in {self.root} (it resolves "
                    f"to {cut(real, 200)})")
        return None

    def _not_file(self, resolved: str) -> str | None:
        if self._git_own(resolved):
            return f"names {cut(resolved, 200)}, which is not a file of the repository's commit"
        if not os.path.isfile(resolved):
            return (f"is not a file of the repository checked out in {self.root} (no file "
                    f"{cut(resolved, 200)})")
        return None

    def _git_own(self, resolved: str) -> bool:
        rel = os.path.relpath(os.path.realpath(resolved), self.root)
        first = rel.split(os.sep, 1)[0]
        return first in (".git", META) or "__pycache__" in rel.split(os.sep)


def _candidates(plan: ArgvPlan) -> bool:
    """Whether any element of ``plan`` may be a path of the repository."""
    if os.sep in plan.program and not os.path.isabs(plan.program):
        return True
    stack = list(plan.elements)
    while stack:
        element = stack.pop()
        stack.extend(element.group)
        if (element.literal_only or "{" in element.source) and _has_path(element.source):
            return True
    return False


@functools.lru_cache(maxsize=8192)
def _has_path(source: str) -> bool:
    """Whether an element's source writes something path-like, literally (as an option's
    value too) or between its template tags (cached: a big config repeats its elements)."""
    if "{" not in source:
        return _path_like(source) or _path_like(source.partition("=")[2])
    return any(_path_like(piece.strip()) for piece in _TAGS.split(source))


def _path_like(text: str) -> bool:
    """A literal argument that may name a file: not an option, not a URL, relative, and
    either with a directory part or a file suffix (``x.py``); ``log`` in ``[git, log]`` is
    a word."""
    if not text or text.startswith(("-", "~")) or os.path.isabs(text) or "://" in text:
        return False
    if os.sep in text or text == "..":
        return True
    stem, dot, suffix = text.rpartition(".")
    return bool(stem) and bool(dot) and suffix.isalnum()

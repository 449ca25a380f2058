"""Make's text functions (``$(wildcard ...)``, ``$(foreach ...)``, ``$(patsubst ...)``...)
computed as make computes them, so the recipe text they build is judged as it runs
(``later.make``). A function not here (``$(call ...)``, ``$(or ...)``...) is not provable;
those that run something (``shell``, ``eval``, ``file``) never reach here (``later.makefile``
refuses the Makefile)."""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections.abc import Callable

from toolhost.permissions.later.makefile import Unknown

__all__ = ["ARITY", "apply", "split_args"]

_MAX_WORDS = 512  # a wildcard matching more is not followed
_MAX_LISTED = 20_000  # directory entries a wildcard may read before it is not followed
# how many comma-separated arguments each function takes (the last one takes the rest)
ARITY = {"wildcard": 1, "dir": 1, "notdir": 1, "strip": 1, "sort": 1, "firstword": 1,
         "lastword": 1, "words": 1, "basename": 1, "suffix": 1, "abspath": 1, "info": 1,
         "warning": 1, "error": 1, "addprefix": 2, "addsuffix": 2, "filter": 2,
         "filter-out": 2, "word": 2, "subst": 3, "patsubst": 3, "foreach": 3, "if": 3}


def split_args(text: str, count: int) -> list[str]:
    """``text`` cut at its top-level commas into at most ``count`` arguments."""
    out: list[str] = []
    level = start = 0
    for i, ch in enumerate(text):
        if ch in "({":
            level += 1
        elif ch in ")}":
            level -= 1
        elif ch == "," and level == 0 and len(out) < count - 1:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _pattern(pattern: str) -> Callable[[str], re.Match[str] | None]:
    head, pct, tail = pattern.partition("%")
    if not pct:
        return re.compile(re.escape(pattern)).fullmatch
    return re.compile(re.escape(head) + "(.*)" + re.escape(tail), re.S).fullmatch


def _patsubst(pattern: str, repl: str, words: list[str]) -> str:
    match = _pattern(pattern)
    out = []
    for word in words:
        found = match(word)
        if found is None:
            out.append(word)
        elif "%" in pattern:
            out.append(repl.replace("%", found.group(1), 1) if "%" in repl else repl)
        else:
            out.append(repl)
    return " ".join(out)


def apply(name: str, args: list[str], where: str) -> str:
    """The text ``$(name args...)`` becomes (``where``: the directory make runs in)."""
    words = args[-1].split()
    if name == "wildcard":
        found: list[str] = []
        for pattern in words:
            pattern = os.path.expanduser(pattern)  # (make's wildcard reads ~ as home)
            _affordable(pattern, where)
            hits = sorted(glob.glob(pattern, root_dir=where))
            found += hits
            if len(found) > _MAX_WORDS:
                raise Unknown(f"$(wildcard {pattern}) matches too many files to follow")
        return " ".join(found)
    if name in ("dir", "notdir", "basename", "suffix", "abspath"):
        return " ".join(_path(name, w, where) for w in words)
    if name == "strip":
        return " ".join(words)
    if name == "sort":
        return " ".join(sorted(set(words)))
    if name in ("firstword", "lastword"):
        return (words[0] if name == "firstword" else words[-1]) if words else ""
    if name == "words":
        return str(len(words))
    if name in ("info", "warning", "error"):
        return ""
    if name in ("addprefix", "addsuffix"):
        return " ".join(args[0] + w if name == "addprefix" else w + args[0] for w in words)
    if name in ("filter", "filter-out"):
        tests = [_pattern(p) for p in args[0].split()]
        keep = name == "filter"
        return " ".join(w for w in words if any(t(w) for t in tests) == keep)
    if name == "word":
        n = args[0].strip()
        if not n.isdigit() or int(n) < 1:
            raise Unknown(f"$(word {n},...): make stops")
        return words[int(n) - 1] if int(n) <= len(words) else ""
    if name == "subst":
        return args[2].replace(args[0], args[1]) if args[0] else args[2]
    if name == "patsubst":
        return _patsubst(args[0].strip(), args[1].strip(), args[2].split())
    raise Unknown(f"a make function in a recipe ($({name} ...))")


def _affordable(pattern: str, where: str) -> None:
    """Raise :class:`Unknown` before globbing ``pattern`` would read more than
    ``_MAX_LISTED`` directory entries or follow more than ``_MAX_WORDS`` directories at one
    level (``*/*/*/...`` through a symlink loop, ``/*/*/*/*``: a walk of the whole disk)."""
    bases = ["/" if pattern.startswith("/") else where]
    listed = 0
    parts = [p for p in pattern.split("/") if p]
    for part in parts[:-1]:
        if not glob.has_magic(part):
            bases = [os.path.join(b, part) for b in bases]
            continue
        nxt: list[str] = []
        for base in bases:
            try:
                names = os.listdir(base)
            except OSError:
                continue
            listed += len(names)
            nxt += [os.path.join(base, n) for n in fnmatch.filter(names, part)
                    if os.path.isdir(os.path.join(base, n))]
            if listed > _MAX_LISTED or len(nxt) > _MAX_WORDS:
                raise Unknown(f"$(wildcard {pattern[:60]}) reads too many directories to follow")
        bases = nxt


def _path(name: str, word: str, where: str) -> str:
    if name == "dir":
        return word[:word.rfind("/") + 1] if "/" in word else "./"
    if name == "notdir":
        return word.rsplit("/", 1)[-1]
    if name == "abspath":
        return os.path.normpath(os.path.join(where, word))
    last = word.rsplit("/", 1)[-1]
    dot = last.rfind(".")
    if name == "basename":
        return word if dot < 0 else word[:len(word) - len(last) + dot]
    return "" if dot < 0 else last[dot:]

"""A patch applied to a file a later command runs.

``git apply x.patch``, ``git am x.mbox`` and ``patch -p1 < x.patch`` write whatever files the
patch names: one creating ``.husky/pre-commit`` holding ``rm -rf y`` arms the next ``git
commit`` while the line names no such file (``later.files`` reads the words only). The patch
is a file beside the command, so it is read when the command is decided (8 MiB at most,
never blocking): a patch naming a run-later file (``diff --git``, ``---``/``+++``, ``rename
to``, ``copy to``, ``Index:`` and context-diff ``***`` paths) is not provable, and so is a
patch that cannot be read (gone, a FIFO, a directory, too big) or is fed by a pipe (not on
the line). A patch naming none is decided as before.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from toolhost.permissions.fileread import read_regular
from toolhost.permissions.later.files import past_wrappers
from toolhost.permissions.later.where import made_before, places
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["patched_later"]

_MAX_PATCH = 8 * 1024 * 1024
_PATCH_PATH = re.compile(
    r"^(?:diff --git (?P<pair>.+)|(?:\+\+\+|---|\*\*\*) (?P<side>[^\t\n]+)"
    r"|(?:rename|copy) (?:from|to) (?P<moved>.+)|Index: (?P<index>.+))", re.MULTILINE)
# git's global options and apply/am's and patch's options that take the next word
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_APPLY_VALUED = frozenset({"-p", "-C", "--directory", "--exclude", "--include",
                           "--whitespace", "--patch-format", "--resolvemsg", "-S"})
_PATCH_VALUED = frozenset({"-p", "-d", "--directory", "-D", "--ifdef", "-F", "--fuzz",
                           "-o", "--output", "-r", "--reject-file", "-B", "--prefix",
                           "-V", "--version-control", "-Y", "--basename-prefix", "-z",
                           "--suffix", "-g", "--get", "--quoting-style"})


def patched_later(parsed: ParsedCommand, command: str, cwd: str,
                  later: Callable[[str], bool]) -> str | None:
    """Why a patch applier in ``parsed`` cannot be proven (None: none, or its patches name
    no file ``later`` says a later command runs)."""
    everything = parsed.words + parsed.nested_words
    for k, words in enumerate(everything):
        values = [w.value for w in words[past_wrappers(words):]]  # (sudo patch ...)
        found = _patches(values)
        if found is None:
            continue
        files, base = found
        fed = parsed.fed[k] if k < len(parsed.fed) else ""
        if not files and fed == "|" and k > 0 and (producer := [
                w.value for w in everything[k - 1]])[:1] == ["cat"] and all(
                w.plain for w in everything[k - 1]) and len(producer) > 1:
            files = [v for v in producer[1:] if v == "-" or not v.startswith("-")]  # cat x | patch
        elif not files:
            if fed == "|":
                return (f"{values[0]!r} applies a patch fed by a pipe, which the rules cannot "
                        "see (it may write a git hook or a shell startup file)")
            if fed != "<":
                continue
            files = _redirected(command)
        for name in files:
            paths = places(parsed, k, cwd, name)
            if paths is not None and base:  # git -C DIR / patch -d DIR: from DIR too
                paths += places(parsed, k, cwd, os.path.join(base, name)) or [""]
            why = ("cannot be located (an earlier cd goes where the rules cannot see)"
                   if paths is None else _judged(name, paths, later,
                                                 made_before(parsed, k, name)))
            if why is not None:
                return f"{values[0]!r} applies the patch {name!r}, which {why}"
    return None


def _patches(values: list[str]) -> tuple[list[str], str] | None:
    """The patch files a ``git apply``/``git am``/``patch`` names (and a directory it
    changes to first), or None when the words are no patch applier."""
    name = values[0].rsplit("/", 1)[-1] if values else ""
    if name == "git":
        k, base = 1, ""
        while k < len(values) and values[k].startswith("-"):
            if values[k] in _GIT_VALUED and k + 1 < len(values):
                base = values[k + 1] if values[k] == "-C" else base
                k += 1
            k += 1
        if k >= len(values) or values[k] not in ("apply", "am"):
            return None
        return _operands(values[k + 1:], _APPLY_VALUED), base
    if name not in ("patch", "gpatch"):
        return None
    rest, files, base = values[1:], [], ""
    for k, v in enumerate(rest):
        if v in ("-i", "--input") and k + 1 < len(rest):
            files.append(rest[k + 1])
        elif v.startswith("--input="):
            files.append(v.partition("=")[2])
        elif v.startswith("-i") and len(v) > 2 and not v.startswith("--"):
            files.append(v[2:])
        elif v in ("-d", "--directory") and k + 1 < len(rest):
            base = rest[k + 1]
    operands = _operands(rest, _PATCH_VALUED | {"-i", "--input"})
    return files + operands[1:2], base  # patch [ORIGINAL [PATCHFILE]]


def _operands(values: list[str], valued: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for k, v in enumerate(values):
        if skip:
            skip = False
        elif v == "--":
            return out + values[k + 1:]
        elif v.startswith("-") and v != "-":
            skip = v in valued
        else:
            out.append(v)
    return out


def _redirected(command: str) -> list[str]:
    """The files redirected to a command's stdin (``< x.patch``, ``0<x.patch``)."""
    return [m.group(1).strip("'\"") for m in _STDIN.finditer(command)]


_STDIN = re.compile(r"(?<![<0-9])0?<(?![<&(])\s*([^\s;&|<>()]+)")


def _judged(name: str, paths: list[str], later: Callable[[str], bool],
            made: bool) -> str | None:
    """Why the patch ``name`` (at one of ``paths``) cannot be proven: it names a run-later
    file, cannot be read whole, or is missing where an earlier command of the line may make
    it (``made``: ``curl -o x.patch ... && git apply x.patch``; else a missing patch only
    makes the command fail)."""
    if name == "-":
        return "is read from its input, which the rules cannot see"
    unread = "cannot be read whole (not a regular file, over 8 MiB, or made by the line)"
    seen = False
    for path in paths:
        text = _read(path)
        if text is None:
            return unread
        if text is _GONE:
            continue
        seen = True
        assert isinstance(text, str)
        for found in _paths(text):
            if later(found):
                return f"writes {found!r}, which a later command runs"
    return None if seen or not made else unread


_GONE = object()


def _read(path: str) -> str | object | None:
    read = read_regular(path, _MAX_PATCH)
    if read.kind == "missing":
        return _GONE
    if read.kind != "file" or read.too_long:
        return None
    return read.data.decode("utf-8", "replace")


def _paths(text: str) -> list[str]:
    out: list[str] = []
    for m in _PATCH_PATH.finditer(text):
        if m.group("pair"):
            out += m.group("pair").split(" ")
        else:
            out.append((m.group("side") or m.group("moved") or m.group("index")).strip())
    return [p.strip('"') for p in out if p and p != "/dev/null"]

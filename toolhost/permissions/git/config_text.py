"""git's own files as git reads them: the repository a folder is in (its work tree, git dir
and common dir) and the settings of a config file's text."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from toolhost.permissions.fileread import read_regular

__all__ = ["common_dir", "repository", "settings"]

_SECTION = re.compile(r"\s*\[\s*([A-Za-z0-9.-]+)(?:\s+\"(?:[^\"\\]|\\.)*\")?\s*\]\s*(.*)")
_SETTING = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?")


def repository(where: str) -> tuple[str, str, str] | None:
    """(work tree, git dir, common dir) of the repository ``where`` is in (None: none)."""
    here = where
    while True:
        dot = os.path.join(here, ".git")
        if os.path.isdir(dot):
            return here, dot, common_dir(dot)
        if os.path.isfile(dot):
            read = read_regular(dot, 4096)
            text = read.data.decode("utf-8", "replace").strip()
            if read.kind == "file" and text.startswith("gitdir:"):
                gitdir = os.path.join(here, text[7:].strip())
                return here, gitdir, common_dir(gitdir)
            return here, dot, dot
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def common_dir(gitdir: str) -> str:
    """A linked work tree's common directory (its ``commondir``), else ``gitdir``."""
    read = read_regular(os.path.join(gitdir, "commondir"), 4096)
    if read.kind != "file":
        return gitdir
    return os.path.normpath(os.path.join(gitdir, read.data.decode("utf-8", "replace").strip()))


@lru_cache(maxsize=64)
def settings(text: str) -> tuple[tuple[str, str], ...]:
    """Each (``section[.sub].key`` lower case, value) of a git config's text; a continued
    line joined, quotes taken off (what git hands the shell). Remembered by the text: every
    git decision reads the files again (a stat would go stale), but parses a text once."""
    out: list[tuple[str, str]] = []
    section = ""
    lines = text.replace("\\\n", "").split("\n")
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        head = _SECTION.match(line)
        if head is not None and line.startswith("["):
            sub = re.search(r"\"((?:[^\"\\]|\\.)*)\"", line.split("]", 1)[0])
            section = head.group(1).lower() + (f".{sub.group(1)}" if sub else "")
            line = head.group(2).strip()
            if not line:
                continue
        found = _SETTING.match(line)
        if found is None:
            continue
        value = _unquote(found.group(2) or "")
        out.append((f"{section}.{found.group(1).lower()}", value))
    return tuple(out)


def _unquote(value: str) -> str:
    """A config value as git reads it: ``"..."`` taken off, ``\\"`` ``\\\\`` unescaped, a
    ``#`` or ``;`` outside quotes ends it."""
    out, quoted, i = [], False, 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()

"""What a lock file's values may be, checked when it is read.

A lock is committed and reviewed, and read by every load; its values reach git's command line
(the locked commit is fetched to show a diff), messages and the terminal. So a value is what
``toolhost lock`` writes, or the lock is refused with the line that holds it: a repository's
commit is a full commit id (40 or 64 hex digits), a file's hash and a document's digest are
``sha256:`` and 64 hex digits, a file is a relative path inside its source, and a version or a
name holds no control character. A lock left with a merge's conflict markers (``<<<<<<<``) is
said as such: ``toolhost lock`` (which accepts) writes an unreadable lock anew.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.jsontext import key_position

__all__ = ["conflict_problem", "unknown_keys", "value_problems"]

_COMMIT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# control characters, line and paragraph separators, bidi controls, zero-width characters
# and lone surrogates (a JSON "\ud800"): nothing `toolhost lock` writes holds one
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff"
                      r"\ud800-\udfff]")
_MARKER = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(?: |$)", re.MULTILINE)
_FIX = ("a lock is written, not edited: `toolhost lock CONFIG` writes it anew from what the "
        "config pulls in")


def conflict_problem(path: Path, text: str) -> Problem | None:
    """The problem of a lock holding a merge's conflict markers, at the first one."""
    found = _MARKER.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    return Problem(f"the lock holds merge conflict markers ({found[1]}): two branches changed "
                   "it", str(path), line, 1,
                   hint="merge the config, then run `toolhost lock CONFIG`: it writes the "
                   "lock anew from what the merged config pulls in")


class _Pinned(Protocol):  # a lock's LockedFile, as far as its values are checked
    @property
    def pin(self) -> str: ...
    @property
    def files(self) -> Mapping[str, str]: ...


def value_problems(path: Path, text: str, sources: Mapping[str, _Pinned],
                   plugins: Mapping[str, str],
                   written: Mapping[str, str] | None = None) -> list[Problem]:
    """Each value of a lock's ``sources`` and ``plugins`` (read from ``text``) that
    ``toolhost lock`` would never write, located at its line. ``written``: each source's
    key as the text writes it (an old lock's held a URL's password), by its key here."""
    found: list[Problem] = []
    raw = written or {}

    def bad(key: str, value: str, why: str, *at: str) -> None:
        # located by its keys, not by its text: a value written with other escapes than
        # json.dumps writes ("\u0000", "\u202e") was found nowhere, a line-less problem
        line, column = key_position(text, *at)
        found.append(Problem(f"{cut(repr(value), 80)} is not {why}", str(path), line, column,
                             key, _FIX))

    for key, source in sources.items():
        where = f"sources.{cut(key, 120)}"
        at = ("sources", raw.get(key, key))
        if _CONTROL.search(key):
            bad("sources", key, "a source key (it holds a control character)", *at)
            continue
        if key.startswith("repo:"):
            if not _COMMIT.fullmatch(source.pin):
                bad(f"{where}.commit", source.pin, "a commit id (40 or 64 hex digits)", *at,
                    "commit")
        elif key.startswith("openapi:"):
            if not _DIGEST.fullmatch(source.pin):
                bad(f"{where}.digest", source.pin, "a digest (sha256: and 64 hex digits)", *at,
                    "digest")
        elif _CONTROL.search(source.pin) or not source.pin:
            bad(f"{where}.version", source.pin, "a version", *at, "version")
        for rel, digest in source.files.items():
            if not _relative(rel):
                bad(f"{where}.files", rel, "a relative path inside the source", *at, "files",
                    rel)
            elif not _DIGEST.fullmatch(digest):
                bad(f"{where}.files.{cut(rel, 80)}", digest,
                    "a file hash (sha256: and 64 hex digits)", *at, "files", rel)
    for name, version in plugins.items():
        if _CONTROL.search(name) or not name:
            bad("plugins", name, "a distribution name", "plugins", name)
        elif _CONTROL.search(version) or not version:
            bad(f"plugins.{cut(name, 80)}", version, "a version", "plugins", name)
    return found


_KEYS = frozenset({"toolhost_lock", "sources", "plugins", "upstreams"})
_NEWER = ("upgrade toolhost to the version your team uses (the README's 'Install it into your "
          "project'); a key added by hand: remove it (`toolhost lock` does not drop what it "
          "cannot check)")


def unknown_keys(path: Path, text: str, data: dict[str, Any]) -> list[Problem]:
    """A key of the lock that this toolhost's format has not (at the top or in a source):
    a newer toolhost's, or a hand edit. It may pin what this version cannot check, so it is
    refused, never ignored (and never dropped by a rewrite)."""
    found: list[Problem] = []

    def bad(key: str, where: str, *at: str) -> None:
        line, column = key_position(text, *at)
        found.append(Problem(f"{cut(repr(key), 80)} is not a key of a toolhost lock of format "
                             f"{data.get('toolhost_lock')}: a newer toolhost wrote it, or it "
                             "was added by hand", str(path), line, column, where, _NEWER))

    for key in data:
        if key not in _KEYS:
            bad(key, key, key)
    sources = data.get("sources")
    for name, entry in sources.items() if isinstance(sources, dict) else ():
        pin = ("digest" if str(name).startswith("openapi:")
               else "commit" if str(name).startswith("repo:") else "version")
        for key in entry if isinstance(entry, dict) else ():
            if key not in (pin, "files"):
                bad(key, f"sources.{cut(str(name), 120)}", "sources", name, key)
    return found


def _relative(rel: str) -> bool:
    if not rel or _CONTROL.search(rel) or "\\" in rel:
        return False
    pure = PurePosixPath(rel)
    return not pure.is_absolute() and ".." not in pure.parts and pure.parts[:1] != (".git",)

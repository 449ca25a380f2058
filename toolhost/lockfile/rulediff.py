"""What a moved pin changes in the POLICY, not only in the files: the reviewer's summary.

When ``toolhost update`` (or a rev edited by hand) moves a team repository, ``toolhost lock``
printed the ``~`` line and each changed file's diff; whether the move added an ``allow``,
dropped a ``deny``, widened ``Bash(git *)`` to ``Bash(*)`` or turned ``permissions.default``
from ``deny`` to ``allow`` had to be read out of YAML hunks. Each config file of the source
that changed is read at the old commit and at the new one (both as fragments, nothing run)
and what it brings (``contents``: rules, settings, servers, tools) is compared:

    rule added: allow Bash(*) (wide.yaml:4)
    rule removed: deny Read(./secrets/**) (wide.yaml)
    rule changed: allow Bash(git *) -> allow Bash(*) (wide.yaml:4)
    setting changed: permissions.default = deny -> allow (wide.yaml:2)
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["policy_changes"]

_WHERE = re.compile(r" \(([^()]*?)(?::(\d+))?\)$")  # contents' "(file:line)" ending
MAX_CHANGES = 50  # lines under one source, as contents lists


def policy_changes(root: Path, old_commit: str, old_files: Mapping[str, str],
                   new_files: Mapping[str, str]) -> list[str]:
    """The rules, settings, servers and tools added, removed or changed in the config files
    of the checkout at ``root`` from ``old_commit`` (its files ``old_files``) to what is
    checked out now (``new_files``); a note when the old files cannot be read."""
    from toolhost.config.gitobjects import local_git
    from toolhost.config.model import SUFFIXES

    # a lock is a file a pull request can edit: only plain paths inside the checkout
    old_files = {rel: digest for rel, digest in old_files.items() if _plain(rel)}
    changed = sorted(rel for rel in set(old_files) | set(new_files)
                     if old_files.get(rel) != new_files.get(rel)
                     and Path(rel).suffix.lower() in SUFFIXES)
    if not changed:
        return []
    with tempfile.TemporaryDirectory(prefix="toolhost-rules-") as tmp:
        old_root = Path(tmp)
        for rel in old_files:  # every file the old pin used: its fragments' own extends
            text = local_git(root, ["show", f"{old_commit}:{rel}"])
            if text is None:
                if rel in changed:
                    return [f"(the rules at {old_commit[:12]} cannot be read to compare)"]
                continue
            target = old_root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        before: list[str] = []
        after: list[str] = []
        unread: list[str] = []
        for rel in changed:
            was = _brought(old_root, rel) if rel in old_files else []
            now = _brought(root, rel) if rel in new_files else []
            if was is None or now is None:  # one side only would read as all added/removed
                at = old_commit[:12] if was is None else "the new commit"
                unread.append(f"({rel} at {at} does not load as a fragment: its diff below)")
                continue
            before += was
            after += now
    lines = [*_compare(before, after), *unread]
    if len(lines) > MAX_CHANGES:
        return [*lines[:MAX_CHANGES], f"... and {len(lines) - MAX_CHANGES} more policy changes"]
    return lines


def _plain(rel: str) -> bool:
    """``rel`` names a file under a folder: relative, no ``..``, no ``.git``, no NUL."""
    parts = rel.split("/")
    return (bool(rel) and "\0" not in rel and "\\" not in rel and not rel.startswith("/")
            and all(part not in ("", ".", "..") and part.casefold() != ".git"
                    for part in parts))


def _brought(root: Path, rel: str) -> list[str] | None:
    """What ``rel`` itself (not the files it extends) brings, read as a fragment under
    ``root``: no lock beside it is consulted, no plugin imported, nothing started."""
    from toolhost.backends.registry import builtin_kinds
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError
    from toolhost.lockfile import LockGuard
    from toolhost.lockfile.contents import item_lines

    try:
        base = root.resolve()
        loaded = load_config(base / rel, kinds=builtin_kinds(), layers=False, fragment=True,
                             lock=LockGuard(None, base / ".toolhost-rules.lock", verify=False),
                             problems=[])
    except (ConfigError, OSError, RuntimeError):
        return None  # a file that does not parse (or extends what is not there)
    return [line for line in item_lines(loaded, base, detail=True) if _where(line)[0] == rel]


def _where(line: str) -> tuple[str, str]:
    """(file, line) a contents line names."""
    match = _WHERE.search(line)
    return (match.group(1), match.group(2) or "") if match else ("", "")


def _what(line: str) -> str:
    """A contents line without where it is written: what is compared."""
    match = _WHERE.search(line)
    return line[:match.start()] if match else line


def _compare(before: list[str], after: list[str]) -> list[str]:
    """Removed, added and changed items, a rule or setting changed in place paired."""
    gone = list(before)
    came = []
    for line in after:
        same = next((old for old in gone if _what(old) == _what(line)), None)
        if same is not None:
            gone.remove(same)  # the same item, at most moved to another line
        else:
            came.append(line)
    lines: list[str] = []
    for line in list(came):
        pair = next((old for old in gone if _pairs(old, line)), None)
        if pair is None or not (_alone(line, came) and _alone(pair, gone)):
            continue
        gone.remove(pair)
        came.remove(line)
        kind, _, now = _what(line).partition(": ")
        was = _what(pair).partition(": ")[2]
        if kind == "setting":
            name, _, value = now.partition(" = ")
            now = f"{name} = {was.partition(' = ')[2]} -> {value}"
        else:
            now = f"{was} -> {now}"
        lines.append(f"{kind} changed: {now}{_shown_where(line)}")
    removed = [f"{_what(line).replace(': ', ' removed: ', 1)}{_shown_where(line, False)}"
               for line in gone]
    added = [f"{_what(line).replace(': ', ' added: ', 1)}{_shown_where(line)}"
             for line in came]
    return [*removed, *added, *lines]


def _pairs(old: str, new: str) -> bool:
    """A setting with another value, or a rule of the same effect in the same file: one
    change, not a removal beside an addition."""
    kind, _, was = _what(old).partition(": ")
    kind_now, _, now = _what(new).partition(": ")
    if kind != kind_now or _where(old)[0] != _where(new)[0]:
        return False
    if kind == "setting":
        return was.partition(" = ")[0] == now.partition(" = ")[0]
    return kind == "rule" and was.split(" ", 1)[0] == now.split(" ", 1)[0]


def _alone(line: str, among: list[str]) -> bool:
    """``line`` is the only one of its kind, effect and file in ``among``: a rule paired
    with another is never a guess between several."""
    return sum(1 for other in among if _pairs(other, line)) == 1


def _shown_where(line: str, with_line: bool = True) -> str:
    """`` (file:line)`` as the new commit has it; an item gone is named by its file only."""
    rel, number = _where(line)
    return f" ({rel}:{number})" if with_line and number else f" ({rel})" if rel else ""

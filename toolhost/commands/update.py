"""``toolhost update CONFIG``: move pinned ``extends`` repos to their newest tag, in place."""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from packaging.version import Version

HELP = "move pinned `extends: {repo, rev}` entries to the newest tag (like pre-commit autoupdate)"

DESCRIPTION = """\
For every `extends` entry of CONFIG that names a git repository,

  extends:
    - {repo: https://git.example/team/toolhost-config, rev: v1.2.0, path: base.yaml}

look up the repository's tags and rewrite `rev` to the newest one (tags are compared as
versions: v1.10.0 is newer than v1.9.3; tags that are not versions are ignored, and so are
pre-releases such as v2.0.0rc1 unless the current pin is one or --pre is given), or to --rev.
Only the `rev` values change: comments, quoting, order and everything else in the file stay
as they were. YAML and TOML files are both handled. The new revision is cloned into the cache
on the next load.

Only CONFIG itself is edited, not the files it extends. The lock beside CONFIG
(toolhost.yaml -> toolhost.lock, see `toolhost lock`), if there is one, is rewritten to pin
the new revisions.
Exit status: 0 when every repo was updated or already current, 1 when a repo could not be
reached, has no version tags, or --repo names no pinned repo of CONFIG.

Examples:
  toolhost update toolhost.yaml                  newest tag of every repo
  toolhost update toolhost.yaml --dry-run        show what would change
  toolhost update toolhost.toml --repo https://git.example/team/toolhost-config --rev v2.0.0
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the config file to edit")
    parser.add_argument("--rev", help="pin this tag or commit instead of the newest tag")
    parser.add_argument("--repo", action="append", metavar="URL",
                        help="only update this repo (may be repeated)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the changes without writing the file")
    parser.add_argument("--pre", action="store_true",
                        help="consider pre-release tags (v2.0.0rc1) too")


@dataclass(frozen=True)
class Pin:
    """One ``{repo, rev}`` entry of a config file and where its ``rev`` is written."""

    index: int  # position in extends
    repo: str  # as written
    url: str  # what git is given (relative paths made absolute)
    rev: str
    line: int  # 1-based line of the `rev` key
    column: int  # 1-based column of the `rev` key


def find_pins(path: Path) -> list[Pin]:
    """The git ``extends`` entries of one file (not of the files it extends)."""
    from toolhost.config.gitrepos import normalize_repo
    from toolhost.config.sources import read_doc
    from toolhost.errors import ConfigError, Problem

    problems: list[Problem] = []
    doc = read_doc(path, "project", problems)
    if doc is None:
        raise ConfigError(problems)
    entries: Any = doc.data.get("extends", []) if isinstance(doc.data, dict) else []
    if not isinstance(entries, list):
        entries = [entries]
    pins = []
    for index, entry in enumerate(entries):
        if not (isinstance(entry, dict) and isinstance(entry.get("repo"), str)
                and isinstance(entry.get("rev"), str)):
            continue
        mark = doc.marks.get(("extends", index, "rev"))
        if mark is None or not mark.line:
            continue
        pins.append(Pin(index, entry["repo"], normalize_repo(entry["repo"], path.parent),
                        entry["rev"], mark.line, mark.column))
    return pins


def newest_tag(url: str, *, pre: bool = False) -> str | None:
    """The highest version-like tag of ``url`` (``v1.2.0`` and ``1.2.0`` both count).

    Pre-releases (``v2.0.0rc1``, ``v2.0.0.dev3``) count only with ``pre``, as in pip.
    """
    from toolhost.config.gitrepos import list_tags

    best: tuple[Version, str] | None = None
    for tag in list_tags(url):
        version = tag_version(tag)
        if version is None or (version.is_prerelease and not pre):
            continue
        if best is None or version > best[0]:
            best = (version, tag)
    return best[1] if best else None


def tag_version(tag: str) -> Version | None:
    """The version a tag names (``v1.2.0`` -> 1.2.0), or None for other tags."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(tag[1:] if tag[:1] in "vV" else tag)
    except InvalidVersion:
        return None


_VALUE = re.compile(r"""(["']?rev["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,}#]+)""")


def rewrite_rev(text: str, pin: Pin, new: str) -> str:
    """``text`` with the ``rev`` value at ``pin`` replaced by ``new``, quoting kept."""
    lines = text.splitlines(keepends=True)
    line = lines[pin.line - 1]
    found = _VALUE.match(line, pin.column - 1) or _VALUE.search(line)
    if found is None:
        raise ValueError(f"line {pin.line}: cannot find the rev value to replace")
    old = found.group(2)
    quote = old[0] if old[:1] in "\"'" else ""
    value = f"{quote}{new}{quote}" if quote else _plain_or_quoted(new, line)
    lines[pin.line - 1] = line[:found.start(2)] + value + line[found.end(2):]
    return "".join(lines)


def _plain_or_quoted(value: str, line: str) -> str:
    # An unquoted YAML value stays unquoted unless it would then mean something else.
    if "=" in line.split("rev", 1)[1][:3] or not re.fullmatch(r"[A-Za-z0-9_./+-]+", value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def main(args: argparse.Namespace) -> int:
    from toolhost.errors import ConfigError

    path = Path(args.config)
    pins = [p for p in find_pins(path) if not args.repo or p.repo in args.repo or
            p.url in args.repo]
    if not pins and args.repo:
        known = sorted({p.repo for p in find_pins(path)})
        print(f"{path}: no pinned `extends` entry has repo {' or '.join(args.repo)}"
              + (f" (its repos: {', '.join(known)})" if known else ""), file=sys.stderr)
        return 1
    if not pins:
        print(f"{path}: no pinned `extends: {{repo, rev}}` entries")
        return 0
    with open(path, encoding="utf-8", newline="") as handle:  # keep \r\n line ends
        text = original = handle.read()
    failed = 0
    newest: dict[tuple[str, bool], str | None] = {}  # one ls-remote per repo
    for pin in pins:
        current = tag_version(pin.rev)
        pre = args.pre or bool(current and current.is_prerelease)
        try:
            if not args.rev and (pin.url, pre) not in newest:
                newest[pin.url, pre] = newest_tag(pin.url, pre=pre)
            new = args.rev or newest[pin.url, pre]
        except ConfigError as exc:
            print(f"{path}:{pin.line}: {pin.repo}: {exc.problems[0].message}", file=sys.stderr)
            failed += 1
            continue
        if new is None:
            print(f"{path}:{pin.line}: {pin.repo}: no version tags (pass --rev)",
                  file=sys.stderr)
            failed += 1
        elif new == pin.rev:
            print(f"{path}:{pin.line}: {pin.repo}: {pin.rev} is the newest")
        else:
            text = rewrite_rev(text, pin, new)
            print(f"{path}:{pin.line}: {pin.repo}: {pin.rev} -> {new}")
    if text != original and not args.dry_run:
        _write_atomically(path, text)
        failed += _relock(path)
    elif text != original:
        print("(dry run: nothing written)")
    return 1 if failed else 0


def _relock(path: Path) -> int:
    """Pin the new revisions in the lock beside the config (the user asked for them); a
    config without a lock stays without one."""
    from toolhost.commands.lock import write_for
    from toolhost.errors import ConfigError
    from toolhost.lockfile import lock_path

    if not lock_path(path).exists():
        print(f"(no {lock_path(path).name}: `toolhost lock {path}` pins what the new "
              "revisions contain)")
        return 0
    try:
        for line in write_for(str(path)):
            print(f"{lock_path(path)}: {line}")
    except ConfigError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        print(f"{lock_path(path)}: not updated: the config does not load at the new "
              "revisions", file=sys.stderr)
        return 1
    return 0


def _write_atomically(path: Path, text: str) -> None:
    import tempfile  # here: `toolhost --help` imports every command module

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise

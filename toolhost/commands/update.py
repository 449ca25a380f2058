"""``toolhost update CONFIG``: move pinned ``extends`` repos to their newest tag, in place."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolhost.commands._argtypes import Once
from toolhost.commands._update_tags import (  # noqa: F401 - kept importable from here
    newer,
    newest_tag,
    tag_version,
    usable_tag,
    version_tags,
)

HELP = "move pinned `extends: {repo, rev}` entries to the newest tag (like pre-commit autoupdate)"

DESCRIPTION = """\
For every `extends` entry of CONFIG that names a git repository,

  extends:
    - {repo: https://git.example/team/toolhost-config, rev: v1.2.0, path: base.yaml}

look up the repository's tags and rewrite `rev` to the newest one (tags are compared as
versions: v1.10.0 is newer than v1.9.3; tags that are not versions are ignored, and so are
pre-releases such as v2.0.0rc1 unless the current pin is one or --pre is given; a tag of a
tree or a blob is skipped, and said), or to --rev.
Only the `rev` values change: comments, quoting, order and everything else in the file stay
as they were. YAML and TOML files are both handled. A rev is rewritten only when it is a
plain, single- or double-quoted value on the line of its key, and the result is parsed again
to check that it reads as the new rev with every other value as it was; any other form (a tag
such as !!str, an anchor, a block scalar, a value on the next line, a TOML multi-line
string, a value shared through an alias) is left alone and reported, file:line:column, to be
edited by hand. The new revision is cloned into the cache on the next load.

Only CONFIG itself is edited, not the files it extends. The lock beside CONFIG
(toolhost.yaml -> toolhost.lock, see `toolhost lock`), if there is one, is rewritten to pin
the new revisions, and nothing else: when the lock is stale before the update (another
repo's tag moved, a plugin was upgraded), nothing is changed until `toolhost lock` shows it.
Exit status: 0 when every repo was updated or already current, 1 when a repo could not be
reached, has no version tags, its rev could not be rewritten exactly, --repo names no
pinned repo of CONFIG, or the lock was stale before the update.

Examples:
  toolhost update toolhost.yaml                  newest tag of every repo
  toolhost update toolhost.yaml --dry-run        show what would change
  toolhost update toolhost.toml --repo https://git.example/team/toolhost-config --rev v2.0.0
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the config file to edit")
    parser.add_argument("--rev", action=Once,
                        help="pin this tag or commit instead of the newest tag")
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
    from toolhost.config.gitrepos import normalize_repo, remember_credentials
    from toolhost.config.sources import read_doc
    from toolhost.errors import ConfigError, Problem

    problems: list[Problem] = []
    doc = read_doc(path, "project", problems)
    if doc is None or problems:  # a duplicate key, a tag...: the loader's own located lines
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
        remember_credentials(entry["repo"])
        pins.append(Pin(index, entry["repo"], normalize_repo(entry["repo"], path.parent),
                        entry["rev"], mark.line, mark.column))
    return pins


def _parser(path: Path) -> Callable[[str], Any]:
    """Text -> the data it parses to as ``path``'s format (None when it does not parse)."""
    from toolhost.errors import Problem

    def parse(text: str) -> Any:
        problems: list[Problem] = []
        if path.suffix.lower() == ".toml":
            from toolhost.config.toml_source import parse_toml

            doc = parse_toml(text, str(path), "project", problems)
        else:
            from toolhost.config.yaml_source import parse_yaml

            doc = parse_yaml(text, str(path), "project", problems)
        return None if doc is None or problems else doc.data

    return parse


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._revedit import RevEditError, rewrite_rev
    from toolhost.config.gitrepos import fetch_repo
    from toolhost.config.url_secrets import shown_url
    from toolhost.errors import ConfigError, shown
    from toolhost.lockfile import lock_path

    if not args.config:  # Path("") is ".": say what validate and lock say
        from toolhost.config.sources import read_doc
        from toolhost.errors import Problem

        problems: list[Problem] = []
        read_doc("", "project", problems)
        raise ConfigError(problems)
    path = Path(args.config)
    where = shown(args.config)  # a line break in a name must not forge a second line
    if args.rev is not None and (refused := rev_problem(args.rev)):
        print(f"toolhost update: --rev {_show(args.rev)}: {refused}", file=sys.stderr)
        return 2
    pins = [p for p in find_pins(path) if not args.repo or p.repo in args.repo or
            p.url in args.repo]
    if not pins and args.repo:
        known = sorted({_repo(p) for p in find_pins(path)})
        print(f"{where}: no pinned `extends` entry has repo "
              f"{shown(' or '.join(shown_url(r) for r in args.repo))}"
              + (f" (its repos: {', '.join(known)})" if known else ""), file=sys.stderr)
        return 1
    if not pins:
        print(f"{where}: no pinned `extends: {{repo, rev}}` entries")
        return 0
    with open(path, encoding="utf-8", newline="") as handle:  # keep \r\n line ends
        text = original = handle.read()
    parse = _parser(path)
    data = parse(text)
    if data is None:  # changed since find_pins read it: nothing is rewritten blind
        print(f"{where}: the file no longer parses; nothing changed",
              file=sys.stderr)
        return 1
    failed = 0
    newest: dict[tuple[str, bool], tuple[list[str], str | None]] = {}  # one ls-remote a repo
    for pin in pins:
        current = tag_version(pin.rev)
        pre = args.pre or bool(current and current.is_prerelease)
        said = ""  # newer tags left out, said with the line of this pin
        try:
            if not args.rev and (pin.url, pre) not in newest:
                newest[pin.url, pre] = version_tags(pin.url, pre=pre)
            new = args.rev
            if not args.rev:
                tags, later = newest[pin.url, pre]
                new, skipped = usable_tag(pin.url, tags, pin.rev)
                if skipped:
                    said += (f" ({', '.join(_show(t) for t in skipped)}: a tag of a tree or a "
                             "blob, no commit: skipped)")
                if later and new and newer(later, new):
                    said += f" ({_show(later)} is a pre-release: --pre moves to it)"
        except ConfigError as exc:  # (no network, say): what to do, and that the pin stays
            print(f"{where}:{pin.line}: {_repo(pin)}: {shown(exc.problems[0].message)}; "
                  f"nothing changed for this entry (update asks the repository for its tags: "
                  f"it must be reachable; rev {_show(pin.rev)} stays pinned, and loads from "
                  "the cache where it was fetched before)", file=sys.stderr)
            failed += 1
            continue
        if new is None:
            print(f"{where}:{pin.line}: {_repo(pin)}: no version tags (pass --rev)"
                  + said, file=sys.stderr)
            failed += 1
        elif new == pin.rev:
            print(f"{where}:{pin.line}: {_repo(pin)}: {_show(pin.rev)} is the newest{said}")
        else:
            try:
                if args.rev:  # resolved as a load would, before the file says it
                    fetch_repo(pin.url, new)
            except ConfigError as exc:
                print(f"{where}:{pin.line}:{pin.column}: extends[{pin.index}].rev: "
                      f"{_show(new)} cannot be used: {shown(exc.problems[0].message)}; nothing "
                      "changed for this entry", file=sys.stderr)
                failed += 1
                continue
            try:
                text, data = rewrite_rev(text, line=pin.line, column=pin.column,
                                         index=pin.index, new=new, parse=parse, expected=data)
            except RevEditError as exc:
                print(f"{where}:{pin.line}:{exc.column or pin.column}: extends[{pin.index}].rev: "
                      f"cannot rewrite {_show(pin.rev)} -> {_show(new)}: {exc.message}; "
                      "edit this rev by hand", file=sys.stderr)
                failed += 1
                continue
            print(f"{where}:{pin.line}: {_repo(pin)}: {_show(pin.rev)} -> {_show(new)}{said}")
    if text != original and (stale := _stale_lock(path)):
        for line in stale:
            print(line, file=sys.stderr)
        print(f"{shown(str(lock_path(path)))}: does not match what {where} pulls in now, at "
              "its current revisions: nothing changed (the update would accept that too)",
              file=sys.stderr)
        return 1
    if text != original and not args.dry_run:
        try:
            _write_atomically(path, text)
        except OSError as exc:  # a read-only directory, a full disk: not an internal error
            print(f"{where}: cannot write it: {exc.strerror or exc}; nothing changed",
                  file=sys.stderr)
            return 1
        lock = lock_path(path)
        locked = _bytes(lock)
        try:
            with _stops_raise():  # Ctrl-C, a kill or a closed terminal during the relock
                relocked = _relock(path)
        except BaseException:
            if _bytes(lock) == locked:  # the new revs beside the old lock: every load fails
                _write_atomically(path, original)
                print(f"{where}: interrupted: left as it was (no rev changed)",
                      file=sys.stderr)
            raise
        if relocked:  # the config would name revisions it cannot load, beside a lock
            _write_atomically(path, original)  # of the old ones: every load would fail
            print(f"{where}: left as it was (no rev changed)", file=sys.stderr)
            return 1
    elif text != original:
        print("(dry run: nothing written)")
    return 1 if failed else 0


def _repo(pin: Pin) -> str:
    """The repo of ``pin`` as a message shows it: one line, without its userinfo."""
    from toolhost.config.url_secrets import shown_url
    from toolhost.errors import shown

    return shown(shown_url(pin.repo))


def rev_problem(rev: str) -> str:
    """Why ``rev`` can never be a revision to pin ("" when it may be one): empty, read by
    git as an option, or holding a control character (a line break in the config)."""
    if not rev.strip():
        return "a revision is a tag or a commit, not empty"
    if rev.startswith("-"):
        return "a revision does not start with '-' (git would read it as an option)"
    if not rev.isprintable() or any(ch.isspace() for ch in rev):
        return "a revision has no spaces or control characters"
    return ""


def _show(rev: str) -> str:
    """``rev`` for a one-line message: cut, and quoted with escapes unless plain."""
    from toolhost.excerpt import cut

    shown = cut(rev, 80)
    return shown if shown.isprintable() and " " not in shown else repr(shown)


def _stale_lock(path: Path) -> list[str]:
    """What differs from the lock beside ``path`` before the update (empty: it matches, or
    there is no lock): a tag that moved under a pin the update leaves alone, a plugin
    upgraded, an upstream's changed tools. Rewriting the lock after the update would accept
    those without a word, so the update is refused until `toolhost lock` has shown them."""
    from toolhost.commands.lock import write_for
    from toolhost.config import load_config
    from toolhost.errors import ConfigError, shown
    from toolhost.lockfile import lock_path

    lock = lock_path(path)
    if not lock.exists():
        return []
    try:
        load_config(path)  # refuses drift, as every load does
        found = write_for(str(path), dry_run=True, local_notes=False)  # said once, when relocked
    except ConfigError as exc:
        return [str(problem) for problem in exc.problems]
    return [f"{shown(str(lock))}: {line}" for line in found]


def _relock(path: Path) -> int:
    """Pin the new revisions in the lock beside the config (the user asked for them); a
    config without a lock stays without one."""
    from toolhost.commands.lock import write_for
    from toolhost.errors import ConfigError, shown
    from toolhost.lockfile import lock_path

    lock = shown(str(lock_path(path)))
    if not lock_path(path).exists():
        from toolhost.commands.init import sh

        print(f"(no {shown(lock_path(path).name)}: `toolhost lock {shown(sh(str(path)))}` pins "
              "what the new revisions contain)")
        return 0
    try:
        for line in write_for(str(path)):
            print(f"{lock}: {line}")
    except ConfigError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        print(f"{lock}: not updated: the config does not load at the new revisions "
              "(fix what it says, or pin another revision with --rev)", file=sys.stderr)
        return 1
    return 0


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


@contextlib.contextmanager
def _stops_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt within the block (on the main thread), as
    Ctrl-C does: the config written before it is put back instead of left beside a lock of
    the old revisions."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    from toolhost.errors import Stopped

    def stop(signum: int, frame: object) -> None:
        raise Stopped(signum, signal.Signals(signum).name)  # exit 143/129, not 130

    saved = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)
             if signal.getsignal(sig) is signal.SIG_DFL}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _write_atomically(path: Path, text: str) -> None:
    import tempfile  # here: `toolhost --help` imports every command module

    # a config that is a symlink (toolhost.yaml -> configs/team.yaml) is written through:
    # the file it was read from changes and the link stays (replacing the link left the
    # real config at the old revs and the project with a copy)
    path = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".toolhost-update.")  # short
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise

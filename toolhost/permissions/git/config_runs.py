"""What a git command runs from its repository's configuration and hooks.

A git config names commands (``core.fsmonitor``, ``core.pager``, ``diff.external``, an
alias ``!...``, ``filter.*.clean`` ...) and its hooks are scripts: a Write of either is judged
when written (``later.edits``). But a command there may run a script by its path
(``fsmonitor = ./fs.sh``): the config meets no rule, ``fs.sh`` is an ordinary file an
earlier call wrote (``rm -rf ~/x``), and ``git status`` ran rm under ``deny: Bash(rm:*)``.
Under a deny or ask Bash rule each git command of the line is decided with what its
repository's config (the user's ``~/.gitconfig``, and ``/etc/gitconfig`` where this process
could have written it) runs and with its hooks, each judged as
a Bash command in the work tree (a script named by its path is read: ``later.script``). What
the text alone does not say (``GIT_DIR`` in the environment, ``--exec-path=``, a ``cd $X``
first, a config that cannot be read, includes more than 3 deep) is not provable; every
included file is read, whatever its ``includeIf`` condition.
"""

from __future__ import annotations

import os
import re
import shlex
from contextvars import ContextVar

from toolhost.permissions.bash.chosen_code import HELPER
from toolhost.permissions.fileread import read_regular, writable_here
from toolhost.permissions.git.commands import CONTACTS, git_subcommand
from toolhost.permissions.git.config_text import common_dir, repository, settings
from toolhost.permissions.later.judge import Judge, Unprovable
from toolhost.permissions.later.where import places
from toolhost.permissions.later.words import RUNS_KEYS
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["config_reason"]


_LIMIT = 64 * 1024
SYSTEM_CONFIG = "/etc/gitconfig"  # git's system-wide file (an administrator's)
_MAX_HOOKS = 64
_MAX_INCLUDES = 3
# subcommands that write no ref, index or commit: they run no hook (githooks(5))
_NO_HOOKS = frozenset({"log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "blame",
                       "describe", "shortlog", "grep", "cat-file", "version", "help",
                       "whatchanged", "rev-list", "diff-tree", "diff-index", "show-ref",
                       "for-each-ref", "ls-remote", "check-ignore", "var", "cherry",
                       "name-rev", "count-objects", "verify-commit", "verify-tag"})
_EVERY = frozenset({"reference-transaction", "post-index-change", "pre-auto-gc"})
_COMMITS = _EVERY | {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit",
                     "post-rewrite", "pre-merge-commit", "post-merge", "post-checkout"}
# the hooks a subcommand may run (githooks(5)); one not listed: every hook
_RUNS_HOOKS = {
    "status": frozenset({"post-index-change"}), "add": frozenset({"post-index-change"}),
    "commit": _COMMITS, "merge": _COMMITS, "pull": _COMMITS, "cherry-pick": _COMMITS,
    "revert": _COMMITS, "rebase": _COMMITS | {"pre-rebase"},
    "checkout": _EVERY | {"post-checkout"}, "switch": _EVERY | {"post-checkout"},
    "push": _EVERY | {"pre-push"},
    # what a push runs in the repository it pushes to (githooks(5): receive-pack's)
    "receive": frozenset({"pre-receive", "update", "proc-receive", "post-receive",
                          "post-update", "push-to-checkout", "reference-transaction"}),
}
_DEPTH: ContextVar[int] = ContextVar("gitconfig_depth", default=0)
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# the environment or options that name another repository or config than the one found here
_ELSEWHERE = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CONFIG", "GIT_CEILING",
              "GIT_DISCOVERY", "HOME", "XDG_CONFIG_HOME")


def config_reason(parsed: ParsedCommand, command: str, cwd: str, judge: Judge,
                  unprovable: Unprovable) -> str | None:
    """Why a git command of ``parsed`` cannot be proven by what its config and hooks run
    (None: it runs no git, or each command they name meets no deny or ask Bash rule and is
    proven by ``unprovable``)."""
    if not judge([None]) or _DEPTH.get() >= 2:
        return None
    segments = parsed.words + parsed.nested_words
    if not any(_git(words) for words in segments):
        return None
    if any(name in command for name in _ELSEWHERE if name not in ("HOME", "XDG_CONFIG_HOME")) \
            or any(_ASSIGN.match(w.value) and w.value.split("=", 1)[0] in _ELSEWHERE
                   for s in segments for w in s):
        return "a git command's repository or config is named by the environment"
    token = _DEPTH.set(_DEPTH.get() + 1)
    try:
        for k, words in enumerate(segments):
            values = _git(words)
            if not values:
                continue
            bases = places(parsed, k, cwd, ".")  # (each place a cd before it may leave)
            if bases is None:
                return "a git command runs after a cd: which repository it reads is not known"
            for base in dict.fromkeys(bases):
                why = _one(values, base, judge, unprovable)
                if why is not None:
                    return why
    finally:
        _DEPTH.reset(token)
    return None


def _git(words: tuple[Word, ...]) -> tuple[str, ...]:
    """The words from ``git`` on (past assignments and wrappers), as their values."""
    values = tuple(w.value for w in words)
    at = next((k for k, v in enumerate(values) if v.rsplit("/", 1)[-1] == "git"), None)
    return () if at is None else values[at:]


def _one(words: tuple[str, ...], cwd: str, judge: Judge,
         unprovable: Unprovable) -> str | None:
    args = list(words[1:])
    found = git_subcommand(tuple(args))
    sub = found[0] if found else ""
    where, named = cwd, {}
    options = iter(args[:found[1]] if found else args)
    for word in options:  # (git's own options, before its subcommand)
        if word == "-C":
            where = os.path.join(where, os.path.expanduser(next(options, "")))
        elif word.startswith("--exec-path="):
            return "a git command names the folder of its programs (--exec-path=)"
        elif word in ("--git-dir", "--work-tree"):
            named[word] = next(options, "")
        elif word.startswith(("--git-dir=", "--work-tree=")):
            key, _, value = word.partition("=")
            named[key] = value
    where = os.path.realpath(where)
    if named:  # (git takes each relative to where -C left it)
        gitdir = os.path.join(where, os.path.expanduser(named.get("--git-dir", ".git")))
        root = os.path.join(where, os.path.expanduser(named.get("--work-tree", ".")))
        repo: tuple[str, str, str] | None = (root, gitdir, common_dir(gitdir))
    else:
        repo = repository(where)
    if repo is None:
        return None  # (no repository: git runs nothing of one)
    root, gitdir, common = repo
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    hooks = os.path.join(common, "hooks")
    # the system file first, as git reads it, where an earlier call could have written it
    todo = [(p, 0) for p in (*writable_here([SYSTEM_CONFIG]), os.path.join(home, ".gitconfig"),
                             os.path.join(xdg, "git", "config"), os.path.join(common, "config"),
                             os.path.join(gitdir, "config.worktree"))]
    remotes: dict[str, str] = {}  # remote name -> the URL a push goes to
    rewrites: list[tuple[str, str]] = []  # url.BASE.insteadOf: (the prefix, BASE)
    while todo:
        path, depth = todo.pop(0)
        read = read_regular(path, _LIMIT)
        if read.kind in ("missing", "directory"):
            continue  # (git skips a missing include too)
        if read.kind != "file" or read.too_long:
            return f"git reads the config {path!r}, which cannot be read here"
        text = read.data.decode("utf-8", "replace")
        for key, value in settings(text):
            if key.startswith(("include.", "includeif.")) and key.endswith(".path"):
                if depth >= _MAX_INCLUDES:  # (every included file, whatever its condition)
                    return f"git's config {path!r} includes files too deep to read"
                todo.append((os.path.join(os.path.dirname(path), os.path.expanduser(value)),
                             depth + 1))
                continue
            if key == "core.hookspath":
                hooks = os.path.join(root, os.path.expanduser(value))
                continue
            if key.startswith("remote.") and key.endswith((".url", ".pushurl")):
                name = key[7:].rsplit(".", 1)[0]
                if key.endswith(".pushurl") or name not in remotes:
                    remotes[name] = value
                continue
            if key.startswith("url.") and key.endswith((".insteadof", ".pushinsteadof")):
                rewrites.append((value, key[4:].rsplit(".", 1)[0]))  # (gh: -> /tmp/x/)
                continue
            alias = key.startswith("alias.") and key[6:] == sub.lower()
            if not alias and key.rsplit(".", 1)[-1] not in RUNS_KEYS:
                continue
            if alias and not value.startswith("!"):
                continue  # (an alias of git's own words: git runs itself)
            line = value[1:] if alias else value
            why = _judged(line, root, judge, unprovable)
            if why is not None:
                return f"git's config runs {line[:60]!r} ({key}), which {why}"
    helper = next((u for u in [*remotes.values(), *(b for _, b in rewrites)]
                   if HELPER.match(u)), None) if sub in CONTACTS else None
    if helper is not None:  # url = evil::x runs git-remote-evil from PATH
        return (f"git's config names the remote {helper[:60]!r} of the form NAME::ADDRESS, "
                "so git runs the program git-remote-NAME, which the rules cannot see")
    why = _hooks(hooks, sub, root, judge, unprovable)
    if why is None and sub == "push" and found:
        why = _pushed_to(args[found[1] + 1:], remotes, rewrites, root, judge, unprovable)
    return why


def _pushed_to(args: list[str], remotes: dict[str, str], rewrites: list[tuple[str, str]],
               root: str, judge: Judge, unprovable: Unprovable) -> str | None:
    """What a push to a repository of this machine runs there: its receive hooks (``git
    push ../other``, ``file://``, a remote whose URL is a path, also once ``url.*.insteadOf``
    rewrote it: ``gh:x`` to ``/tmp/x``). Without a repository on
    the line, every configured remote is read (which one git takes is not followed)."""
    named = [a for a in args if not a.startswith("-")]
    given = [a.split("=", 1)[1] for a in args if a.startswith("--repo=")]
    if any(a.startswith(("--receive-pack", "--exec")) for a in args):
        return "git push names the program it runs on the other side (--receive-pack)"
    targets = [*given, *named[:1]] or list(remotes)  # (git takes the word over --repo)
    for target in targets:
        url = remotes.get(target, target)
        prefix, base = max(((p, b) for p, b in rewrites if p and url.startswith(p)),
                           key=lambda rewrite: len(rewrite[0]), default=("", ""))
        url = base + url[len(prefix):] if prefix else url  # (git's longest insteadOf)
        path = _local_path(url)
        if path is None:
            continue  # (another machine's: its hooks are not run here)
        there = os.path.join(root, path)
        gitdir = os.path.join(there, ".git") if os.path.isdir(os.path.join(there, ".git")) \
            else there
        if not os.path.isfile(os.path.join(gitdir, "HEAD")):
            continue  # (no repository there: the push fails)
        read = read_regular(os.path.join(gitdir, "config"), _LIMIT)
        if read.kind == "file" and (read.too_long or any(
                k == "core.hookspath" or k.rsplit(".", 1)[-1] in RUNS_KEYS
                for k, _ in settings(read.data.decode("utf-8", "replace")))):
            return f"git push runs what the config of {there!r} names, which is not read here"
        why = _hooks(os.path.join(gitdir, "hooks"), "receive", there, judge, unprovable)
        if why is not None:
            return f"git push to {there!r}: {why}"
    return None


def _local_path(url: str) -> str | None:
    """The folder ``url`` names on this machine (None: another machine's, or not a path)."""
    if url.startswith("file://"):
        return url[7:]
    if "://" in url or url.startswith("-"):
        return None
    head = url.split("/", 1)[0]
    if ":" in head and not url.startswith(("/", ".", "~")):  # (host:path, scp-like)
        return None
    return os.path.expanduser(url)


def _hooks(hooks: str, sub: str, root: str, judge: Judge, unprovable: Unprovable
           ) -> str | None:
    """Each hook of ``hooks`` that ``git SUB`` may run (not a ``.sample``), judged as run
    by its path (a subcommand not known here: every hook)."""
    if sub in _NO_HOOKS or not sub:
        return None
    try:
        names = sorted(os.listdir(hooks))
    except OSError:
        return None
    runs = _RUNS_HOOKS.get(sub)
    names = [n for n in names if not n.endswith(".sample") and (runs is None or n in runs)]
    if len(names) > _MAX_HOOKS:
        return "its hooks are too many to read"
    for name in names:
        path = os.path.join(hooks, name)
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            continue  # (git runs only an executable hook)
        why = _judged(shlex.quote(path), root, judge, unprovable)
        if why is not None:
            return f"git may run the hook {path!r}, which {why}"
    return None


def _judged(line: str, root: str, judge: Judge, unprovable: Unprovable) -> str | None:
    if judge([line]):
        return "a deny or ask rule meets"
    why = unprovable(line, root, judge)
    return None if why is None else f"cannot be proven ({why})"

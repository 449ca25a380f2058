"""Files a git command brings into the working tree from another commit.

``git checkout other`` (``switch``, ``reset --hard``, ``merge``, ``rebase``, ``cherry-pick``,
``revert``, ``stash pop``, ``restore --source``, ``read-tree -u``, ``worktree add``) writes
whatever files that commit holds: one whose tracked ``.husky/pre-commit``,
``.pre-commit-config.yaml``, ``.envrc`` or ``.claude/settings.json`` differs from the
checkout's arms the next commit, shell or tool use, while the line names no such file
(``later.files`` reads the words only). The commit was made earlier (a branch, a stash, plumbing
such as ``git hash-object``/``update-index``), so the repository is read when the command is
decided, with git's plumbing only (``rev-list``, ``diff-tree``, ``diff-index --cached``: no
working tree is read, so no filter, fsmonitor or hook runs): a command bringing a run-later
path (or an embedded repository, ``sub/HEAD`` + ``sub/config``, whose config a later ``git``
there obeys) is not provable. What it brings that the current checkout already holds is not
new. ``git pull`` fetches first: what it merges is not known before it runs, so it is not
provable (``git fetch`` then ``git merge`` is: the merge is read). A command whose revision
or repository cannot be read, or that follows another git command on the line (the refs
may change first), is not provable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from toolhost.permissions.git import read as gitread
from toolhost.permissions.git.commands import git_subcommand
from toolhost.permissions.later.brought_text import judged_text
from toolhost.permissions.later.judge import Judge
from toolhost.permissions.later.where import places
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["brought_later"]

_UNKNOWN = "unknown"
_AMBIGUOUS = "ambiguous"  # an option git may read as one of several
_WRAPPERS = frozenset({"sudo", "doas", "env", "time", "nice", "nohup", "command", "exec",
                       "builtin", "stdbuf", "timeout", "ionice", "setsid", "chronic",
                       "noglob", "nocorrect", "-"})
_ENV_MOVES = ("GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_OBJECT_DIRECTORY=",
              "GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_COMMON_DIR=", "GIT_NAMESPACE=",
              "GIT_REPLACE_REF_BASE=", "GIT_NO_REPLACE_OBJECTS=")
# each subcommand's options that take the next word as their value
_VALUED = {
    "checkout": {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file", "-U"},
    "switch": {"-c", "-C", "--create", "--force-create", "--orphan", "--conflict"},
    "reset": {"--pathspec-from-file"},
    "restore": {"-s", "--source", "--conflict", "--pathspec-from-file"},
    "merge": {"-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option",
              "--cleanup", "--into-name"},
    "rebase": {"--onto", "-s", "--strategy", "-X", "--strategy-option", "-x", "--exec",
               "-C", "--whitespace", "--empty", "--rebase-merges"},
    "cherry-pick": {"-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option",
                    "--cleanup", "--empty"},
    "revert": {"-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option",
               "--cleanup"},
    "stash": {"-m", "--message", "--pathspec-from-file"},
    "bisect": {"--term-old", "--term-new", "--term-good", "--term-bad"},
    "checkout-index": {"--prefix", "--stage"},
    "sparse-checkout": {"--config"},
    "read-tree": {"--prefix", "--index-output", "--exclude-per-directory", "--super-prefix"},
    "worktree": {"-b", "-B", "--reason"},
    "clone": {"-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference",
              "--reference-if-able", "--separate-git-dir", "--depth", "--shallow-since",
              "--shallow-exclude", "--filter", "-j", "--jobs", "-c", "--config",
              "--template", "--server-option", "--bundle-uri", "--ref-format"},
    "submodule": {"-b", "--branch", "--name", "--reference", "--depth", "-j", "--jobs",
                  "--filter"},
}




def brought_later(parsed: ParsedCommand, cwd: str, later: Callable[[str], bool],
                  judge: Judge | None = None) -> str | None:
    """Why a git command of ``parsed`` that writes files from another commit cannot be
    proven (None: there is none, or what it brings holds no file ``later`` says a later
    command runs). ``judge`` is given the text each such file would hold (None: not
    readable) and says whether a deny or ask Bash rule meets it (a Write of that text would
    be held); without it, every such file makes the command not provable."""
    with gitread.budget():
        return _brought(parsed, cwd, later, judge)


def _brought(parsed: ParsedCommand, cwd: str, later: Callable[[str], bool],
             judge: Judge | None) -> str | None:
    everything = parsed.words + parsed.nested_words
    for k, words in enumerate(everything):
        words = _git_words(words)
        if not words:
            continue
        values = [w.value for w in words]
        found = git_subcommand(tuple(values[1:]))
        if found is None or (found[0] not in _VALUED and found[0] != "pull"):
            continue
        sub, at = found[0], found[1] + 1
        why = _judge(parsed, k, words, (sub, at), cwd, later, judge)
        if why is not None:
            return f"'git {sub}' {why}"
    return None


_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _git_words(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The words from ``git`` on, past leading assignments and wrappers (``sudo``, ``env
    GIT_DIR=x``, ``timeout 5``) and their options; () when the command runs no git."""
    at = next((k for k, w in enumerate(words) if w.value.rsplit("/", 1)[-1] == "git"), None)
    if at is None or (at and not (_ASSIGN.match(words[0].value) or words[0].value.rsplit(
            "/", 1)[-1] in _WRAPPERS)):
        return ()
    return words[at:]


# git commands that change no ref, index or object a later command of the line reads
_READ_ONLY = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree",
                        "blame", "describe", "shortlog", "grep", "cat-file", "version",
                        "help", "whatchanged", "rev-list", "diff-tree", "diff-index",
                        "show-ref", "for-each-ref", "ls-remote", "check-ignore", "var",
                        "add"})  # (add stages working-tree files, judged when written)


def _changes_refs(words: tuple[Word, ...]) -> bool:
    """Whether a git command may change what a later one on the line brings. ``commit`` and
    ``stash`` (push) do not: they record the index and working tree (judged when written)
    and leave the checkout at HEAD, so reading before them sees as much or more."""
    return _earlier(words) not in (*_READ_ONLY, "commit", "stash push", "stash list", "")


def _earlier(words: tuple[Word, ...]) -> str | None:
    """The subcommand of a git command (``stash push`` for a bare or ``save`` stash); ""
    when ``words`` run no git; None when git runs none that can be named."""
    words = _git_words(words)
    if not words:
        return ""
    values = tuple(w.value for w in words[1:])
    found = git_subcommand(values)
    if found is None:
        return None
    if found[0] == "stash":
        rest = [v for v in values[found[1] + 1:] if not v.startswith("-")]
        if rest[:1] in (["list"], ["show"]):
            return "stash list"
        return "stash push" if not rest or rest[0] in ("push", "save") else "stash"
    if found[0] == "commit" and any(v.startswith(("--amend", "-C", "-c", "--reuse",
                                                  "--reedit", "--fixup", "--squash"))
                                    for v in values[found[1] + 1:]):
        return "commit --amend"  # (takes another commit's message or tree: not plain)
    return found[0]


def _judge(parsed: ParsedCommand, k: int, words: tuple[Word, ...], found: tuple[str, int],
           cwd: str, later: Callable[[str], bool], judge: Judge | None) -> str | None:
    sub, at = found
    values = [w.value for w in words]
    args = values[at + 1:]
    if sub == "clone" or (sub == "submodule" and "update" not in args):
        return _into(sub, args, later)
    wanted = _incoming(sub, args)
    if wanted is None:
        return None
    everything = parsed.words + parsed.nested_words
    if any(w.value.startswith(_ENV_MOVES) for ws in everything[:k + 1] for w in ws):
        return "runs in a repository set by the environment, which the rules cannot read"
    repos = _repos(values[1:at], parsed, k, cwd)
    if repos is None:
        return "runs in a repository the rules cannot locate"
    for repo in repos:  # (each place an earlier `cd` may have left it: fail closed)
        why = _read(repo, words, everything, k, sub, wanted, later, judge)
        if why is not None:
            return why
    return None


def _read(repo: str, words: tuple[Word, ...], everything: list[tuple[Word, ...]], k: int,
          sub: str, wanted: tuple[str, list[str]] | str, later: Callable[[str], bool],
          judge: Judge | None) -> str | None:
    values = [w.value for w in words]
    pushed = sub == "stash" and any(_earlier(ws) == "stash push" for ws in everything[:k])
    if pushed:  # `git stash && git checkout main && git stash pop` brings back what it
        wanted = ("index", [])  # stashed: the index's files and the judged working tree
    elif any(_changes_refs(ws) for ws in everything[:k]):  # (before: `git init d && cd d &&
        # git fetch ../e && git checkout FETCH_HEAD` makes the repository it reads)
        return ("follows a git command on the line that may change what it brings first; "
                "run it on its own to have it read")
    there = gitread.repository(repo)
    if there is False:
        return None  # no repository there: the command fails, bringing nothing
    if wanted == _AMBIGUOUS:
        return ("names an abbreviated option git may read as one of several; spell it in "
                "full to have it read")
    if isinstance(wanted, str):  # _UNKNOWN
        how = {"pull": "fetches them first; fetch, then merge or rebase what was fetched: "
                       "that is read",
               "bisect": "checks out commits it picks itself"}.get(
            sub, "reads what to bring from its input")
        return f"brings files the rules cannot see before it runs (it {how})"
    if not all(w.plain or _revision(w) for w in words):
        return "names what it brings with words that are not plain literals"
    if judge is not None and not judge([None]):
        return None  # no deny or ask Bash rule: nothing it brings could meet one
    if there is None:
        return "runs in a repository git refuses or cannot read in time here"
    if gitread.promised(repo):
        return ("runs in a partial clone: reading what it brings would fetch missing "
                "objects, running what the repository's configuration names")
    if gitread.replaced(repo):
        return ("runs in a repository whose objects are replaced (git replace, grafts): what "
                "it brings depends on how git is told to read them")
    kind, revs = wanted
    entries = gitread.paths(repo, kind, revs, values[0])
    if entries is None:
        return "brings a commit the rules cannot read (a revision or repository git refuses)"
    including = gitread.included(repo, values[0]) if entries else set()
    hits = gitread.hits(entries, lambda path: later(path) or path in including)
    hits += gitread.links_later(repo, values[0], [e for e in entries if e not in hits], later)
    if not hits:
        return None
    read = gitread.texts(repo, values[0], hits)
    # a git config (included, or an embedded repository's) holds no command lines: it names
    # what runs (core.hooksPath, core.fsmonitor), so its text cannot be judged
    texts = [None if path in including or (path.endswith("/config") and not later(path))
             else judged_text(path, text) for (path, _, _), text in zip(hits, read, strict=True)]
    if judge is not None and not judge(texts):
        return None  # its text was read, and no deny or ask Bash rule meets it
    return (f"brings {hits[0][0]!r} from another commit, a file a later command runs (a git "
            "hook or config, a shell startup file, the CLI's settings), with text that meets "
            "a deny or ask Bash rule or cannot be read whole")


# a revision bash leaves as written though the parser calls it no plain literal: braces
# holding no `,` or `..` (no brace expansion: `stash@{0}`, `main@{u}`, `HEAD^{tree}`), a
# `~` past the first character (`HEAD~3`: only a leading one expands)
_REVISION = re.compile(r"(?!~)(?:[\w./@^:+~-]|\{[\w.@:+-]*\})+")


def _revision(word: Word) -> bool:
    return word.raw == word.value and _REVISION.fullmatch(word.raw) is not None and (
        ".." not in "".join(re.findall(r"\{[^}]*\}", word.raw)))


# each subcommand's options the reading turns on (with _VALUED: the options an abbreviation
# may stand for; git takes any unique prefix, `--har` for `--hard`)
_MODES = {
    "checkout": {"--detach", "--force", "--merge"}, "switch": {"--detach", "--force"},
    "reset": {"--hard", "--merge", "--keep", "--soft", "--mixed"},
    "restore": {"--staged", "--worktree"}, "cherry-pick": {"--stdin"},
    "revert": {"--stdin"}, "worktree": {"--detach", "--orphan"},
}
_DONE = {"--abort", "--quit", "--skip", "--continue", "--edit-todo", "--show-current-patch"}
# short options whose value, if any, is stuck to them (`-Skeyid`): the rest is no option
_STUCK = {"merge": "S", "rebase": "S", "cherry-pick": "S", "revert": "S"}


def _long(word: str, sub: str, valued: set[str]) -> str | None:
    """The long option ``word`` (``--name`` or ``--name=value``) spells as git reads it: a
    unique prefix of one the reading knows stands for it; None when it stands for several
    (git refuses it, or takes one the reading cannot tell)."""
    name, eq, value = word.partition("=")
    known = {o for o in valued | _MODES.get(sub, set()) | _DONE if o.startswith("--")}
    if name in known or name.startswith("--no-") or name == "--edit":
        return word  # (`--edit` is merge's own option, no `--edit-todo`)
    found = [o for o in known if o.startswith(name)]
    if len(found) > 1:
        return None
    return (found[0] + eq + value) if found else word


def _operands(args: list[str], valued: set[str], sub: str = ""
              ) -> tuple[list[str], set[str], list[str]] | None:
    """(operands before ``--``, the options given, the words after ``--``); None when an
    option cannot be read as git reads it. Bundled short options (``-fb new``), stuck values
    (``-sevil``) and abbreviated long ones (``--sour evil``, ``--har``) are read as git
    reads them: else the reading takes a value for an operand, or misses a mode."""
    ops: list[str] = []
    flags: set[str] = set()
    k = 0
    while k < len(args):
        word = args[k]
        if word == "--":
            return ops, flags, args[k + 1:]
        if word.startswith("--"):
            spelled = _long(word, sub, valued)
            if spelled is None:
                return None
            name = spelled.split("=", 1)[0]
            flags.add(name)
            if name in valued and "=" not in spelled:
                flags.add(f"{name}={args[k + 1] if k + 1 < len(args) else ''}")
                k += 1
            elif "=" in spelled:
                flags.add(spelled)
        elif word.startswith("-") and word != "-":
            for at, char in enumerate(word[1:], 2):
                flags.add(f"-{char}")
                if f"-{char}" in valued:
                    stuck = word[at:]
                    if not stuck:
                        stuck = args[k + 1] if k + 1 < len(args) else ""
                        k += 1
                    flags.add(f"-{char}={stuck}")
                    break
                if char in _STUCK.get(sub, ""):
                    break
        else:
            ops.append(word)
        k += 1
    return ops, flags, []


def _value(flags: set[str], *names: str) -> str | None:
    for flag in flags:
        name, eq, value = flag.partition("=")
        if eq and name in names:
            return value
    return None


Wanted = tuple[str, list[str]] | str | None


def _incoming(sub: str, args: list[str]) -> Wanted:
    """What ``git SUB ARGS`` brings: ("tree", [REV]) a commit's tree replacing the index's,
    ("commits", [REVS]) the changes of commits (rev-list), ("stash", [REF]), ("index", [])
    the index's files; _UNKNOWN (not knowable before it runs) or None (writes no file from
    another commit)."""
    read = _operands(args, _VALUED.get(sub, set()), sub)
    if read is None:
        return _AMBIGUOUS
    ops, flags, tail = read
    done = _DONE
    if sub == "pull":
        return _UNKNOWN
    if flags & done and sub in ("merge", "rebase", "cherry-pick", "revert"):
        return None  # (--continue goes on with commits read when the command began)
    if sub == "checkout":
        start = _value(flags, "-b", "-B", "--orphan")
        if start is not None or flags & {"-b", "-B", "--orphan"}:
            return ("tree", [ops[0]]) if ops else None
        if ops and ops[0] == "-":
            return ("tree", ["@{-1}"])
        return ("tree?", [ops[0]]) if ops else ("index", [])
    if sub == "switch":
        if "--orphan" in flags:
            return None
        if ops:
            return ("tree", ["@{-1}" if ops[0] == "-" else ops[-1]])
        return None
    if sub == "reset":
        if not flags & {"--hard", "--merge", "--keep"}:
            return None  # the index only: a later checkout from it is read then
        return ("tree", [ops[0] if ops else "HEAD"])
    if sub == "restore":
        if flags & {"--staged", "-S"} and not flags & {"--worktree", "-W"}:
            return None
        source = _value(flags, "-s", "--source")
        return ("tree", [source]) if source else ("index", [])
    if sub == "merge":
        return ("commits", [o for o in ops] or ["@{u}"])
    if sub == "rebase":
        onto = _value(flags, "--onto")
        return ("commits", ops + ([onto] if onto else []) or ["@{u}"])
    if sub in ("cherry-pick", "revert"):
        if "--stdin" in flags:
            return _UNKNOWN
        return ("picks", ops) if ops else None
    if sub == "stash":
        if not ops or ops[0] not in ("pop", "apply", "branch"):
            return None
        rest = ops[2:] if ops[0] == "branch" else ops[1:]
        ref = rest[0] if rest else "stash@{0}"
        return ("stash", [f"stash@{{{ref}}}" if ref.isdigit() else ref])
    if sub == "bisect":  # naming good or bad commits (or replaying a log): git then checks
        # out commits it picks between them; without (`git bisect run make test`, `good`
        # marking HEAD) it goes on within a range named, and decided, before
        return _UNKNOWN if ops[:1] == ["replay"] or (ops[:1] in (
            ["start"], ["good"], ["bad"], ["new"], ["old"], ["skip"]) and ops[1:]) else None
    if sub == "submodule":  # update: each submodule's commit checked out at its path
        return ("gitlinks", [])
    if sub in ("checkout-index", "sparse-checkout"):  # files from the index
        return ("index", []) if sub == "checkout-index" or (
            ops[:1] in (["disable"], ["reapply"], ["set"], ["add"])) else None
    if sub == "read-tree":
        return ("trees", ops) if "-u" in flags and ops else None
    if sub == "worktree":
        if not ops or ops[0] != "add" or "--orphan" in flags:
            return None
        if len(ops) > 2:
            return ("new", [ops[2]])
        if flags & {"-b", "-B", "--detach", "-d"} or any(f.startswith(("-b=", "-B="))
                                                         for f in flags):
            return ("new", ["HEAD"])
        return ("new", [f"refs/heads/{os.path.basename(ops[1].rstrip('/'))}", "HEAD"])
    del tail
    return None


def _repos(options: list[str], parsed: ParsedCommand, k: int, cwd: str) -> list[str] | None:
    """The directories git may run in (``-C DIR`` and each place an earlier ``cd`` of the
    line may leave it followed); None when one cannot be known (``cd $X``, ``--git-dir``,
    ``--work-tree``)."""
    if any(o.startswith(("--git-dir", "--work-tree", "--namespace")) for o in options):
        return None
    bases = places(parsed, k, cwd, ".")
    if bases is None:
        return None
    out = []
    for here in bases:
        for i, word in enumerate(options):
            if word == "-C" and i + 1 < len(options):
                here = os.path.join(here, os.path.expanduser(options[i + 1]))
        out.append(os.path.realpath(here))
    return list(dict.fromkeys(out))


def _into(sub: str, args: list[str], later: Callable[[str], bool]) -> str | None:
    """``git clone URL DIR`` / ``git submodule add URL DIR``: a repository's files put in a
    directory whose files a later command runs (``.husky``, ``.githooks``, ``.claude``,
    ``.git/hooks``)."""
    read = _operands(args, _VALUED[sub], sub)
    if read is None:
        return ("names an abbreviated option git may read as one of several; spell it in "
                "full to have it read")
    ops, _flags, tail = read
    ops += tail
    if sub == "submodule":
        if not ops or ops[0] != "add":
            return None
        ops = ops[1:]
    if len(ops) < 2:
        return None
    target = ops[1].rstrip("/") or "/"
    for inside in gitread.INSIDE:
        if later(f"{target}/{inside}"):
            return (f"puts a repository's files in {target!r}, whose files a later command "
                    "runs (git hooks, the CLI's settings), unseen by the rules")
    return None

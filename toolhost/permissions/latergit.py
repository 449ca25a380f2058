"""Files a git command brings into the working tree from another commit (round 18).

``git checkout other`` (``switch``, ``reset --hard``, ``merge``, ``rebase``, ``cherry-pick``,
``revert``, ``stash pop``, ``restore --source``, ``read-tree -u``, ``worktree add``) writes
whatever files that commit holds: one whose tracked ``.husky/pre-commit``,
``.pre-commit-config.yaml``, ``.envrc`` or ``.claude/settings.json`` differs from the
checkout's arms the next commit, shell or tool use, while the line names no such file
(``runlater`` reads the words only). The commit was made earlier (a branch, a stash, plumbing
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
import subprocess
from collections.abc import Callable

from toolhost.permissions.gitcommands import git_subcommand
from toolhost.permissions.laterwhere import places
from toolhost.permissions.shell import ParsedCommand, Word

__all__ = ["brought_later"]

_MAX_COMMITS = 2000  # more incoming commits than this are not read one by one: not provable
_TIMEOUT = 10.0
_UNKNOWN = "unknown"
_WRAPPERS = frozenset({"sudo", "doas", "env", "time", "nice", "nohup", "command", "exec",
                       "builtin", "stdbuf", "timeout", "ionice", "setsid", "chronic"})
_MAX_TEXT = 16 * 1024  # as an Edit of a run-later file reads (edited_text)
_INSIDE = ("x", "settings.json", "config")  # a directory whose files a later command runs
_ENV_MOVES = ("GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_OBJECT_DIRECTORY=",
              "GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_COMMON_DIR=", "GIT_NAMESPACE=")
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


Judge = Callable[[list[str | None]], bool]


def brought_later(parsed: ParsedCommand, cwd: str, later: Callable[[str], bool],
                  judge: Judge | None = None) -> str | None:
    """Why a git command of ``parsed`` that writes files from another commit cannot be
    proven (None: there is none, or what it brings holds no file ``later`` says a later
    command runs). ``judge`` is given the text each such file would hold (None: not
    readable) and says whether a deny or ask Bash rule meets it (a Write of that text would
    be held); without it, every such file makes the command not provable."""
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
                        "show-ref", "for-each-ref", "ls-remote", "check-ignore", "var"})


def _changes_refs(words: tuple[Word, ...]) -> bool:
    words = _git_words(words)
    if not words:
        return False
    found = git_subcommand(tuple(w.value for w in words[1:]))
    return found is None or found[0] not in _READ_ONLY


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
    repo = _repo(values[1:at], parsed, k, cwd)
    if repo is None:
        return "runs in a repository the rules cannot locate"
    if _git(repo, values[0], "rev-parse", "--is-inside-work-tree") is None:
        return None  # no repository there: the command fails, bringing nothing
    if isinstance(wanted, str):  # _UNKNOWN
        return ("brings files the rules cannot see before it runs (it fetches them, or reads "
                "what to bring from its input); fetch first, then merge, rebase or check out "
                "the fetched commit: that is read")
    if not all(w.plain or _revision(w) for w in words):
        return "names what it brings with words that are not plain literals"
    if any(_changes_refs(ws) for ws in everything[:k]):
        return ("follows a git command on the line that may change what it brings first; "
                "run it on its own to have it read")
    kind, revs = wanted
    entries = _paths(repo, kind, revs, values[0])
    if entries is None:
        return "brings a commit the rules cannot read (a revision or repository git refuses)"
    included = _included(repo, values[0]) if entries else set()
    hits = _hits(entries, lambda path: later(path) or path in included)
    hits += _links_later(repo, values[0], [e for e in entries if e not in hits], later)
    if not hits:
        return None
    texts = _texts(repo, values[0], hits)
    # a git config (included, or an embedded repository's) holds no command lines: it names
    # what runs (core.hooksPath, core.fsmonitor), so its text cannot be judged
    texts = [None if path in included or (path.endswith("/config") and not later(path))
             else text for (path, _, _), text in zip(hits, texts, strict=True)]
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


def _operands(args: list[str], valued: set[str]) -> tuple[list[str], set[str], list[str]]:
    """(operands before ``--``, the options given, the words after ``--``)."""
    ops: list[str] = []
    flags: set[str] = set()
    k = 0
    while k < len(args):
        word = args[k]
        if word == "--":
            return ops, flags, args[k + 1:]
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            flags.add(name)
            if name in valued and "=" not in word:
                flags.add(f"{name}={args[k + 1] if k + 1 < len(args) else ''}")
                k += 1
            elif "=" in word:
                flags.add(word)
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
    ops, flags, tail = _operands(args, _VALUED.get(sub, set()))
    done = {"--abort", "--quit", "--skip", "--continue", "--edit-todo", "--show-current-patch"}
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


def _repo(options: list[str], parsed: ParsedCommand, k: int, cwd: str) -> str | None:
    """The directory git runs in (``-C DIR`` and an earlier ``cd`` of the line followed);
    None when it cannot be known (``--git-dir``, ``--work-tree``, two places)."""
    if any(o.startswith(("--git-dir", "--work-tree", "--namespace")) for o in options):
        return None
    bases = places(parsed, k, cwd, ".")
    if bases is None or len(bases) != 1:
        return None
    here = bases[0]
    for i, word in enumerate(options):
        if word == "-C" and i + 1 < len(options):
            here = os.path.join(here, os.path.expanduser(options[i + 1]))
    return os.path.normpath(here)


def _git(repo: str, git: str, *args: str, stdin: str | None = None) -> str | None:
    """git's plumbing in ``repo`` (no pager, no optional locks, no prompt); None on error."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1")
    try:
        done = subprocess.run(
            [git if os.path.isabs(git) else "git", "--no-pager", "-c", "core.fsmonitor=false",
             "-c", "log.showSignature=false", *args], cwd=repo, env=env, input=stdin,
            capture_output=True, text=True, timeout=_TIMEOUT, check=False,
            errors="surrogateescape")
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None


Entry = tuple[str, str, str]  # (path, mode, blob id) of what a command brings


def _paths(repo: str, kind: str, revs: list[str], git: str) -> list[Entry] | None:
    """What the command may write: (path, mode, blob) of each changed path, its content
    as it comes (None: it cannot be read)."""
    if any(r.startswith("-") for r in revs):
        return None
    raw = ("-r", "--raw", "-z", "--no-renames", "--no-abbrev")
    if kind == "tree?":  # `git checkout X`: a commit, else a path of the index
        kind = "tree" if _commit(repo, git, revs[0]) else "index"
    if kind == "gitlinks":  # submodules: their content comes from elsewhere, unseen
        listed = _git(repo, git, "ls-files", "-s", "-z")
        if listed is None:
            return None
        return [(item.partition("\t")[2], "160000", item.split(" ")[1]) for item in
                listed.split("\0") if item.startswith("160000 ")]
    if kind == "index":  # files from the index: what it holds that HEAD does not
        return _raw(_git(repo, git, "diff-index", "--cached", *raw, "HEAD", "--"), new=2)
    if kind == "new":  # a new working tree: what it holds that this checkout does not
        rev = next((r for r in revs if _commit(repo, git, r)), None)
        return None if rev is None else _raw(_git(
            repo, git, "diff-tree", *raw, "HEAD", f"{rev}^{{commit}}", "--"), new=2)
    if kind in ("tree", "trees"):
        out: list[Entry] = []
        for rev in revs:  # the index (the checkout as git records it) against REV's tree
            if not _commit(repo, git, rev, tree_ok=kind == "trees"):
                return None
            found = _raw(_git(repo, git, "diff-index", "--cached", *raw, f"{rev}^{{tree}}",
                              "--"), new=1)
            if found is None:
                return None
            out += found
        return out
    if kind == "stash":
        rev = revs[0]
        out = []
        for a, b in ((f"{rev}^1", rev), (f"{rev}^1", f"{rev}^2")):
            found = _raw(_git(repo, git, "diff-tree", *raw, a, b, "--"), new=2)
            if found is None:
                return None
            out += found
        if _commit(repo, git, f"{rev}^3"):  # the untracked files (stash -u)
            listed = _git(repo, git, "ls-tree", "-r", "-z", "--full-tree", f"{rev}^3")
            if listed is None:
                return None
            for item in filter(None, listed.split("\0")):
                head, _, path = item.partition("\t")
                mode, _, rest = head.partition(" ")
                out.append((path, mode, rest.rpartition(" ")[2]))
        return out
    # "commits" (merge, rebase: every commit not in HEAD) or "picks" (those named)
    walk = ["--no-walk=unsorted", *revs] if kind == "picks" else [*revs, "--not", "HEAD"]
    listed = _git(repo, git, "rev-list", f"--max-count={_MAX_COMMITS + 1}", *walk, "--")
    if listed is None or len(listed.split()) > _MAX_COMMITS:
        return None
    if not listed.strip():
        return []
    return _raw(_git(repo, git, "diff-tree", "--stdin", "-m", "--root", "--no-commit-id",
                     *raw, stdin=listed), new=2)


def _raw(out: str | None, new: int) -> list[Entry] | None:
    """``--raw -z`` output as (path, mode, blob) of side ``new`` (1: the source, 2: the
    destination); a path that side deletes is left out."""
    if out is None:
        return None
    items = out.split("\0")
    found: list[Entry] = []
    k = 0
    while k + 1 < len(items):
        head, path = items[k], items[k + 1]
        k += 2
        fields = head.lstrip(":").split(" ")
        if not head.startswith(":") or len(fields) < 5:
            k -= 1  # (a commit id line of diff-tree --stdin: skip one item)
            continue
        mode, blob = fields[new - 1], fields[new + 1]
        if set(blob) != {"0"}:
            found.append((path, mode, blob))
    return found


def _included(repo: str, git: str) -> set[str]:
    """The files of the working tree git's configuration includes (``[include] path =
    ../team.gitconfig``, ``includeIf``): a commit changing one changes ``core.hooksPath``,
    ``core.fsmonitor``, aliases and filters, so it is a file a later command runs. Paths
    relative to the top of the working tree."""
    found = _git(repo, git, "rev-parse", "--show-toplevel", "--absolute-git-dir")
    listed = _git(repo, git, "config", "--show-origin", "-z", "--get-regexp",
                  r"^include(if\..*)?\.path$")
    if found is None or listed is None or len(found.splitlines()) != 2:
        return set()
    top, git_dir = found.splitlines()
    items = listed.split("\0")
    out = set()
    for origin, pair in zip(items[0::2], items[1::2], strict=False):
        where = origin.removeprefix("file:")
        base = os.path.dirname(os.path.join(top if not os.path.isabs(where) else "", where))
        if where.startswith(".git/") or where == ".git/config":
            base = os.path.dirname(os.path.join(git_dir, where[5:]))
        value = os.path.expanduser(pair.partition("\n")[2])
        path = os.path.realpath(os.path.join(base, value))
        top_real = os.path.realpath(top)
        if path.startswith(top_real + os.sep):
            out.add(os.path.relpath(path, top_real).replace(os.sep, "/"))
    return out


def _commit(repo: str, git: str, rev: str, tree_ok: bool = False) -> bool:
    kind = "tree" if tree_ok else "commit"
    return _git(repo, git, "rev-parse", "--verify", "--quiet", "--end-of-options",
                f"{rev}^{{{kind}}}") is not None


def _hits(entries: list[Entry], later: Callable[[str], bool]) -> list[Entry]:
    """The run-later entries of ``entries``, and those of an embedded repository (``d/HEAD``
    and ``d/config``: a later ``git`` in ``d`` obeys that config)."""
    names = {path for path, _, _ in entries}
    out = []
    for entry in entries:
        path, mode, _ = entry
        head, _, base = path.rpartition("/")
        top = f"{head}/" if head else ""
        embedded = base == "config" and bool(head) and f"{top}HEAD" in names
        if embedded or later(path) or (mode == "160000" and any(
                later(f"{path}/{x}") for x in _INSIDE)):
            out.append(entry)
    return out


def _links_later(repo: str, git: str, entries: list[Entry],
                 later: Callable[[str], bool]) -> list[Entry]:
    """The symbolic links among ``entries`` that lead to a run-later file (``myrc`` ->
    ``~/.bashrc``, ``h`` -> ``.git/hooks``): a later write through one writes there."""
    links = [e for e in entries if e[1] == "120000"][:1000]
    if not links:
        return []
    targets = _texts(repo, git, [(p, "100644", b) for p, _, b in links])
    out = []
    for (path, mode, blob), target in zip(links, targets, strict=True):
        if target is None:
            out.append((path, mode, blob))
            continue
        joined = os.path.normpath(os.path.join(os.path.dirname(path), target))
        if any(later(t) or later(f"{t}/x") or later(os.path.expanduser(t))
               for t in (target, joined)):
            out.append((path, mode, blob))
    return out


def _texts(repo: str, git: str, hits: list[Entry]) -> list[str | None]:
    """Each hit's incoming text (None: a link, a submodule, binary, over 16 KiB)."""
    blobs = [blob for _, mode, blob in hits if mode.startswith("100")]
    listed = _git(repo, git, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in blobs))
    texts: list[str | None] = [None] * (len(hits) - len(blobs))
    if listed is None:
        return texts + [None] * len(blobs)
    data = listed.encode("utf-8", "surrogateescape")
    at = 0
    for _ in blobs:
        end = data.find(b"\n", at)
        fields = data[at:end].split(b" ") if end >= 0 else []
        if len(fields) != 3 or not fields[2].isdigit():
            texts.append(None)
            break
        size = int(fields[2])
        body = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
        try:
            texts.append(body.decode("utf-8") if size <= _MAX_TEXT else None)
        except UnicodeDecodeError:
            texts.append(None)
    return texts + [None] * (len(hits) - len(texts))


def _into(sub: str, args: list[str], later: Callable[[str], bool]) -> str | None:
    """``git clone URL DIR`` / ``git submodule add URL DIR``: a repository's files put in a
    directory whose files a later command runs (``.husky``, ``.githooks``, ``.claude``,
    ``.git/hooks``)."""
    ops, _flags, tail = _operands(args, _VALUED[sub])
    ops += tail
    if sub == "submodule":
        if not ops or ops[0] != "add":
            return None
        ops = ops[1:]
    if len(ops) < 2:
        return None
    target = ops[1].rstrip("/") or "/"
    for inside in _INSIDE:
        if later(f"{target}/{inside}"):
            return (f"puts a repository's files in {target!r}, whose files a later command "
                    "runs (git hooks, the CLI's settings), unseen by the rules")
    return None

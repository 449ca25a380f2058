"""A repository read with git's plumbing, for ``later.git``.

What a git command would write from another commit: the paths it changes with their mode and
blob (``diff-index --cached``, ``diff-tree``, ``rev-list``, ``ls-tree``, ``ls-files``), the
text of those blobs (``cat-file --batch``), the working-tree files git's configuration
includes. No working tree is read, so no clean filter, fsmonitor or hook runs; the calls have
no pager, no optional locks and no prompt, and a timeout.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["INSIDE", "Entry", "budget", "commit", "git", "hits", "included", "links_later", "paths",
           "promised", "replaced", "repository", "texts"]

_MAX_COMMITS = 2000  # more incoming commits than this are not read one by one: not provable
_TIMEOUT = 10.0  # for all the reads of one decision together
_DEADLINE: ContextVar[float | None] = ContextVar("gitread_deadline", default=None)
_MAX_TEXT = 16 * 1024  # as an Edit of a run-later file reads (edited_text)
INSIDE = ("x", "settings.json", "config")  # a directory whose files a later command runs


@contextmanager
def budget(seconds: float = _TIMEOUT) -> Iterator[None]:
    """The reads inside share ``seconds``: past it each read fails at once (and the command
    is not provable). A repository whose every read waits (a FIFO for its alternates) held
    a decision 10 s per read, 20-60 s for one command."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _run(repo: str, *args: str, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str] | None:
    deadline = _DEADLINE.get()
    left = _TIMEOUT if deadline is None else min(_TIMEOUT, deadline - time.monotonic())
    if left <= 0:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    # GIT_NO_LAZY_FETCH: a missing object of a partial clone is not fetched (git 2.44+;
    # older git fetches it: `promised` keeps the reading out of such a repository)
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1",
               GIT_NO_LAZY_FETCH="1")
    try:
        return subprocess.run(
            # git from PATH, never the command's own program word (`/tmp/x/git checkout b`
            # would run a file of the agent's choosing while the call is decided)
            ["git", "--no-pager", "-c",
             "core.fsmonitor=false", "-c", "log.showSignature=false", *args], cwd=repo,
            env=env, input=stdin,
            capture_output=True, text=True, timeout=left, check=False,
            errors="surrogateescape")
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def git(repo: str, program: str, *args: str, stdin: str | None = None) -> str | None:
    """git's plumbing in ``repo`` (no pager, no optional locks, no prompt, no lazy fetch);
    None on error. ``program`` is the command's own git word, never run: git is found on
    PATH."""
    done = _run(repo, *args, stdin=stdin)
    return done.stdout if done is not None and done.returncode == 0 else None


def repository(repo: str) -> bool | None:
    """Whether ``repo`` is in a git working tree: False only when git says it is in no
    repository; None when git cannot tell (it refuses the repository, `dubious ownership`
    a later `-c safe.directory=*` lifts; a timeout): the reading fails closed."""
    if not os.path.isdir(repo):
        return False  # (`cd src && git ...` where no src is: git does not run there)
    done = _run(repo, "rev-parse", "--is-inside-work-tree")
    if done is None:
        return None
    if done.returncode == 0:
        return True
    return False if "not a git repository" in done.stderr else None


def replaced(repo: str) -> bool:
    """Whether objects of ``repo`` are replaced (``refs/replace/``, ``info/grafts``): git's
    commands read the replacement (``git replace plain evil``, then ``git checkout plain``
    brings evil's tree) unless told not to (``-c core.useReplaceRefs=false``), so what a
    command brings depends on more than the read can see. True when it cannot be told."""
    refs = git(repo, "git", "for-each-ref", "--count=1", "--format=%(refname)",
               "refs/replace/")
    grafts = git(repo, "git", "rev-parse", "--path-format=absolute", "--git-path",
                 "info/grafts")
    if refs is None or grafts is None:
        return True
    return bool(refs.strip()) or os.path.lexists(grafts.strip() or "/")


def promised(repo: str) -> bool:
    """Whether ``repo`` is a partial clone (a promisor remote): git < 2.44 fetches an object
    it lacks from that remote while reading, running what the repository's config names
    (`remote.origin.uploadpack`, `core.sshCommand`, a remote helper) as the call is decided.
    True too when the configuration cannot be read."""
    done = _run(repo, "config", "-z", "--get-regexp",
                r"^(remote\..*\.promisor|extensions\.partialclone)$")
    if done is None or done.returncode not in (0, 1):  # (1: no such key)
        return True
    for item in filter(None, done.stdout.split("\0")):
        key, _, value = item.partition("\n")
        if key.endswith(".promisor") and value.strip().lower() in ("false", "no", "off", "0"):
            continue
        return True
    return False


Entry = tuple[str, str, str]  # (path, mode, blob id) of what a command brings


def paths(repo: str, kind: str, revs: list[str], program: str) -> list[Entry] | None:
    """What the command may write: (path, mode, blob) of each changed path, its content
    as it comes (None: it cannot be read)."""
    if any(r.startswith("-") for r in revs):
        return None
    raw = ("-r", "--raw", "-z", "--no-renames", "--no-abbrev")
    named = revs
    if revs:
        found_ids = _resolved(repo, revs)
        if found_ids is None:
            return None
        revs = found_ids
    if kind in ("tree?", "tree") and len(revs) == 1 and not commit(repo, program, revs[0]):
        # `git checkout X`/`git switch X` with no branch X but a remote's `origin/X`: git
        # makes X from it (--guess) and checks it out; else checkout reads X as a path
        guessed = _remote_branches(repo, revs[0])
        if guessed is None:
            return None
        kind, revs = ("tree", guessed) if guessed else (
            ("index", []) if kind == "tree?" else ("tree", revs))
    kind = "tree" if kind == "tree?" else kind
    if kind in ("tree", "trees", "new", "commits", "picks"):
        branches = _branches(repo, named)
        if branches is None:
            return None
        revs = revs + branches
    if kind == "gitlinks":  # submodules: their content comes from elsewhere, unseen
        listed = git(repo, program, "ls-files", "-s", "-z")
        if listed is None:
            return None
        return [(item.partition("\t")[2], "160000", item.split(" ")[1]) for item in
                listed.split("\0") if item.startswith("160000 ")]
    if kind == "index":  # files from the index: what it holds that HEAD does not
        return _raw(git(repo, program, "diff-index", "--cached", *raw, "HEAD", "--"), new=2)
    if kind == "new":  # a new working tree: what it holds that this checkout does not
        found_new: list[Entry] = []
        named = [r for r in revs if commit(repo, program, r)]
        for rev in named:  # (each: `evil` and a branch `evil` a tag of that name shadows)
            got = _raw(git(repo, program, "diff-tree", *raw, "HEAD", f"{rev}^{{commit}}",
                           "--"), new=2)
            if got is None:
                return None
            found_new += got
        return found_new if named else None
    if kind in ("tree", "trees"):
        out: list[Entry] = []
        for rev in revs:  # the index (the checkout as git records it) against REV's tree
            if not commit(repo, program, rev, tree_ok=kind == "trees"):
                return None
            found = _raw(git(repo, program, "diff-index", "--cached", *raw, f"{rev}^{{tree}}",
                              "--"), new=1)
            if found is None:
                return None
            out += found
        return out
    if kind == "stash":
        rev = revs[0]
        out = []
        for a, b in ((f"{rev}^1", rev), (f"{rev}^1", f"{rev}^2")):
            found = _raw(git(repo, program, "diff-tree", *raw, a, b, "--"), new=2)
            if found is None:
                return None
            out += found
        if commit(repo, program, f"{rev}^3"):  # the untracked files (stash -u)
            listed = git(repo, program, "ls-tree", "-r", "-z", "--full-tree", f"{rev}^3")
            if listed is None:
                return None
            for item in filter(None, listed.split("\0")):
                head, _, path = item.partition("\t")
                mode, _, rest = head.partition(" ")
                out.append((path, mode, rest.rpartition(" ")[2]))
        return out
    # "commits" (merge, rebase: every commit not in HEAD) or "picks" (those named)
    walk = ["--no-walk=unsorted", *revs] if kind == "picks" else [*revs, "--not", "HEAD"]
    listed = git(repo, program, "rev-list", f"--max-count={_MAX_COMMITS + 1}", *walk, "--")
    if listed is None or len(listed.split()) > _MAX_COMMITS:
        return None
    if not listed.strip():
        return []
    return _raw(git(repo, program, "diff-tree", "--stdin", "-m", "--root", "--no-commit-id",
                     *raw, stdin=listed), new=2)


def _resolved(repo: str, revs: list[str]) -> list[str] | None:
    """Each revision as the object id git reads it as, the rest as written (a range, a
    name no object has). The reading appends ``^{commit}``, ``^{tree}``, ``^1`` to what it
    is given: to ``:/evil`` (the newest commit whose message says evil) that made another
    search (``:/evil^{commit}``), found nothing, and the checkout was read as of paths."""
    if any("\n" in r or "\r" in r for r in revs):
        return None
    listed = git(repo, "git", "cat-file", "--batch-check",
                 stdin="".join(f"{r}\n" for r in revs))
    lines = (listed or "").splitlines()
    if listed is None or len(lines) != len(revs):
        return None
    out = []
    for rev, line in zip(revs, lines, strict=True):
        fields = line.split(" ")
        ok = len(fields) == 3 and fields[1] in ("commit", "tag", "tree") and len(fields[0]) >= 40
        out.append(fields[0] if ok else rev)
    return out


def _branches(repo: str, revs: list[str]) -> list[str] | None:
    """``refs/heads/NAME`` for each NAME of ``revs`` that is a branch: ``git checkout NAME``
    (``switch``, ``worktree add``, ``checkout -B x NAME``) takes the branch where a tag (or
    ``refs/NAME``) of that name is what rev-parse takes, so both are read."""
    names = [r for r in revs if r and not r.startswith(("-", "refs/")) and not any(
        c in r for c in "*?[\\:^~@{}")]
    if not names:
        return []
    listed = git(repo, "git", "for-each-ref", "--format=%(refname)",
                 *(f"{base}{n}" for n in names for base in ("refs/heads/", "refs/tags/",
                                                             "refs/")))
    if listed is None:
        return None
    refs = set(listed.split())
    # (rev-parse takes refs/NAME, then refs/tags/NAME, then refs/heads/NAME, and an object
    # id before any: only then does it name another commit than the branch)
    return [f"refs/heads/{n}" for n in names if f"refs/heads/{n}" in refs and (
        f"refs/{n}" in refs or f"refs/tags/{n}" in refs or (
            len(n) >= 4 and all(c in "0123456789abcdefABCDEF" for c in n)))]


def _remote_branches(repo: str, name: str) -> list[str] | None:
    """The remote-tracking branches named ``name`` (``refs/remotes/*/name``); None when
    they cannot be listed."""
    if not name or any(c in name for c in "*?[\\") or name.startswith("-"):
        return []
    listed = git(repo, "git", "for-each-ref", "--format=%(refname)", f"refs/remotes/*/{name}")
    return None if listed is None else listed.split()


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


def included(repo: str, program: str) -> set[str]:
    """The files of the working tree git's configuration includes (``[include] path =
    ../team.gitconfig``, ``includeIf``): a commit changing one changes ``core.hooksPath``,
    ``core.fsmonitor``, aliases and filters, so it is a file a later command runs. Paths
    relative to the top of the working tree."""
    found = git(repo, program, "rev-parse", "--show-toplevel", "--absolute-git-dir")
    listed = git(repo, program, "config", "--show-origin", "-z", "--get-regexp",
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


def commit(repo: str, program: str, rev: str, tree_ok: bool = False) -> bool:
    kind = "tree" if tree_ok else "commit"
    return git(repo, program, "rev-parse", "--verify", "--quiet", "--end-of-options",
                f"{rev}^{{{kind}}}") is not None


def hits(entries: list[Entry], later: Callable[[str], bool]) -> list[Entry]:
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
                later(f"{path}/{x}") for x in INSIDE)):
            out.append(entry)
    return out


def links_later(repo: str, program: str, entries: list[Entry],
                 later: Callable[[str], bool]) -> list[Entry]:
    """The symbolic links among ``entries`` that lead to a run-later file (``myrc`` ->
    ``~/.bashrc``, ``h`` -> ``.git/hooks``): a later write through one writes there."""
    links = [e for e in entries if e[1] == "120000"][:1000]
    if not links:
        return []
    targets = texts(repo, program, [(p, "100644", b) for p, _, b in links])
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


def texts(repo: str, program: str, hits: list[Entry]) -> list[str | None]:
    """Each hit's incoming text (None: a link, a submodule, binary, over 16 KiB)."""
    blobs = [blob for _, mode, blob in hits if mode.startswith("100")]
    small = _small(repo, program, blobs)
    wanted = sorted(small)
    listed = git(repo, program, "cat-file", "--batch",
                 stdin="".join(f"{b}\n" for b in wanted)) if wanted else ""
    read: dict[str, str | None] = {}
    data = (listed or "").encode("utf-8", "surrogateescape")
    at = 0
    for blob in wanted if listed is not None else ():
        end = data.find(b"\n", at)
        fields = data[at:end].split(b" ") if end >= 0 else []
        if len(fields) != 3 or not fields[2].isdigit() or fields[0].decode() != blob:
            break
        size = int(fields[2])
        body = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
        try:
            read[blob] = body.decode("utf-8") if size <= _MAX_TEXT else None
        except UnicodeDecodeError:
            read[blob] = None
    out: list[str | None] = [None] * (len(hits) - len(blobs))
    return out + [read.get(blob) for blob in blobs]


def _small(repo: str, program: str, blobs: list[str]) -> set[str]:
    """The blobs of at most 16 KiB (``cat-file --batch-check``): only those are read whole;
    a branch's 2 GB hook (a few MB packed) was read into memory to be judged as too long."""
    if not blobs:
        return set()
    listed = git(repo, program, "cat-file", "--batch-check",
                 stdin="".join(f"{b}\n" for b in blobs))
    small = set()
    for line in (listed or "").splitlines():
        fields = line.split(" ")
        if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit() and int(
                fields[2]) <= _MAX_TEXT:
            small.add(fields[0])
    return small

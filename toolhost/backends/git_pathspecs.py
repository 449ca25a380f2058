"""git's pathspec magic: an argument that starts with ``:`` is more than a path.

git reads a pathspec that starts with ``:`` as *magic*: ``:/`` and ``:(top)`` name the top
of the work tree whatever the directory git runs in, ``:!x`` and ``:^x`` exclude, ``:(glob)``
and ``:(icase)`` change the matching. So ``[git, checkout, --, "{{ f }}"]`` run in
``repo/docs`` with ``:/`` discarded the changes of every file of the repository (real git),
and ``[git, grep, TODO, --, "{{ f }}"]`` with ``:(top)secret`` read files outside the
directory the config named, while a permission rule ``path_under: repo/docs`` judged the
value as the path ``repo/docs/:/`` and allowed it. A ``--`` does not help: it ends the
revisions, and what follows is pathspecs.

``pathspec_magic`` finds an argument of git (through wrappers and links) where a value wrote
the leading ``:``, or the magic right after a ``:`` the config wrote (``":{{ f }}"`` with
``(top)x``), in a place git may read a pathspec: after a literal ``--``, or an operand (not
the argument of an option that takes one, ``-m``, ``--author``, ``-e``, ...: the long ones
of any subcommand, the short ones of that subcommand; an option the tables do not know is
taken for a flag, fail closed); ``argv`` refuses the call. A commit
message or a grep pattern (the first operand of ``git grep`` without ``-e``) may start with
``:`` (``-m ":sparkles: x"``). A ``:`` the config writes before a name (``":{{ path
}}"``, git's index entry, with ``docs/a.md``), a value after a literal start (``"./{{ f }}"``)
and an argv with ``--literal-pathspecs`` (git then reads every pathspec as a plain path) are
left alone. A revision starting with ``:`` (``:/fix``, the newest commit whose message
matches) is refused too: write ``HEAD^{/fix}`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pathspec_magic"]

_LITERAL = frozenset({"--literal-pathspecs"})
# git's long options (of any subcommand) whose argument is the next argument, never a pathspec
_VALUED = frozenset({
    "--message", "--file", "--regexp", "--author", "--committer", "--grep", "--format",
    "--pretty", "--date", "--since", "--until", "--after", "--before", "--max-count", "--skip",
    "--template", "--onto", "--branch", "--strategy-option", "--strategy", "--output",
    "--prefix", "--remote", "--open-files-in-pager", "--reuse-message", "--reedit-message",
    "--fixup", "--squash", "--trailer", "--cleanup", "--git-dir", "--work-tree",
    "--namespace", "--max-depth", "--after-context", "--before-context", "--context",
    "--threads", "--exclude", "--glob", "--decorate-refs", "--decorate-refs-exclude",
    "--pathspec-from-file", "--diff-filter", "--encoding", "--ignore-matching-lines",
    "--word-diff-regex", "--color-words", "--output-indicator-new", "--src-prefix",
    "--dst-prefix", "--line-prefix", "--anchored", "--rotate-to", "--skip-to", "--relative",
    "--depth", "--origin", "--upload-pack", "--reference", "--separate-git-dir", "--config",
    "--source",
})
# short options that take the next argument, per subcommand ("" before it: git's own); a
# short option not listed is a flag (`git add -f {{ f }}`: f is a pathspec)
_LOG = frozenset({"-n", "-S", "-G", "-L", "-O", "-I"})
_SHORT_VALUED: dict[str, frozenset[str]] = {
    "": frozenset({"-C", "-c"}),
    "commit": frozenset({"-m", "-F", "-c", "-C", "-t"}),
    "grep": frozenset({"-e", "-f", "-A", "-B", "-C", "-m", "-O"}),
    "log": _LOG, "show": _LOG, "diff": _LOG, "whatchanged": _LOG, "shortlog": _LOG,
    "merge": frozenset({"-m", "-F", "-s", "-X"}),
    "pull": frozenset({"-s", "-X"}), "rebase": frozenset({"-s", "-X", "-x"}),
    "tag": frozenset({"-m", "-F", "-u"}), "stash": frozenset({"-m"}),
    "restore": frozenset({"-s"}), "checkout": frozenset({"-b", "-B"}),
    "switch": frozenset({"-c", "-C"}), "blame": frozenset({"-L", "-S", "-C", "-M"}),
}


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _magic(text: str, begin: int) -> bool:
    """Whether the value (from ``begin`` in ``text``) chose the pathspec's magic."""
    if not text.startswith(":"):
        return False
    if begin == 0:
        return True
    # after the config's ':' the magic is the symbols up to the name (":(top)", ":/", ":!")
    return begin == 1 and len(text) > 1 and not (text[1].isalnum() or text[1] in "._-:")


def pathspec_magic(out: Sequence[str], valued: Sequence[tuple[int, int]],
                   cwd: str | None = None, search: str | None = None) -> str | None:
    """The argument of a git command line ``out`` whose pathspec magic a value chose, or
    None. ``valued``: (index in ``out``, length of the literal text before the value)."""
    if not any(_magic(out[k], at) for k, at in valued):
        return None  # the common case, without finding the programs
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    starts = dict(valued)
    tokens = [Token("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens) or range(len(out)):
        names = {_name(out[at]), *map(_name, program_names(out[at], cwd, search))}
        if "git" not in names or _LITERAL & set(out[at + 1:]):
            continue
        found = _in_pathspec_place(out, at, starts)
        if found is not None:
            return found
    return None


def _in_pathspec_place(out: Sequence[str], at: int, starts: dict[int, int]) -> str | None:
    """The first magic a value chose where git (at ``at``) may read a pathspec."""
    dashdash = False
    command = ""  # the subcommand: the first operand
    pattern = False  # git grep's pattern comes first unless -e / -f gives it
    for k in range(at + 1, len(out)):
        text, prev = out[k], out[k - 1] if k - 1 > at else ""
        option_arg = not dashdash and k - 1 not in starts and (
            prev in _VALUED or prev in _SHORT_VALUED.get(command, frozenset()))
        grep_pattern = not dashdash and command == "grep" and not pattern
        if k in starts and _magic(text, starts[k]) and not option_arg and not grep_pattern:
            return text
        if k not in starts and text == "--" and not option_arg:
            dashdash = True
        elif dashdash or option_arg:
            continue
        elif text.startswith("-") and text != "-":
            if (command == "grep" and text in ("-e", "--regexp", "-f", "--file")) or \
                    text.startswith(("-e", "--regexp=", "-f", "--file=")):
                pattern = True
        elif not command:
            command = text
        elif command == "grep" and not pattern:
            pattern = True  # the first operand of git grep: its pattern
    return None

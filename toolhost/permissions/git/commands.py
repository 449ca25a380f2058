"""Which word of a ``git`` command is its subcommand, and whether git itself defines it.

A word git does not define as a command is an alias (``git config alias.x '!rm -rf x'`` in an
earlier call, or in any config file git reads) or a ``git-x`` program found on ``PATH``: what
it runs is not on the command line, so the command is not provable (bash.programs). Git runs its
own commands before an alias of the same name, so an alias cannot change what ``git status``
runs. An alias given on the same line (``git -c alias.x=... x``) is seen: its value is tried
as a command line (command_strings).
"""

from __future__ import annotations

import re

__all__ = ["CONTACTS", "GIT_COMMANDS", "git_subcommand", "unknown_git_command"]

# subcommands that reach a configured remote (through its transport or remote helper)
CONTACTS = frozenset({"fetch", "pull", "push", "ls-remote", "remote", "submodule", "clone",
                      "archive", "maintenance", "gc", "fetch-pack", "send-pack", "bisect"})

_IFS = re.compile(r"\$(?:IFS|\{IFS\})")

# git's own commands (builtins, scripts and helpers shipped with git, `git help -a`, 2.0 to
# 2.50), and git-lfs, which is installed with most git distributions and, being found on PATH
# first, is run before any alias named `lfs`.
GIT_COMMANDS = frozenset({
    "add", "am", "annotate", "apply", "archimport", "archive", "backfill", "bisect",
    "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore",
    "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry",
    "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph",
    "commit-tree", "config", "count-objects", "credential", "credential-cache",
    "credential-store", "cvsexportcommit", "cvsimport", "cvsserver", "daemon", "describe",
    "diagnose", "diff", "diff-files", "diff-index", "diff-pairs", "diff-tree", "difftool",
    "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg",
    "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects",
    "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help",
    "hook", "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init",
    "init-db", "instaweb", "interpret-trailers", "last-modified", "lfs", "log",
    "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge",
    "merge-base", "merge-file", "merge-index", "merge-octopus", "merge-one-file",
    "merge-ours", "merge-recursive", "merge-recursive-ours", "merge-recursive-theirs",
    "merge-resolve", "merge-subtree", "merge-tree", "mergetool", "mktag", "mktree",
    "multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects", "pack-redundant",
    "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "quiltimport",
    "range-diff", "read-tree", "rebase", "receive-pack", "reflog", "refs", "remote",
    "remote-ext", "remote-fd", "repack", "replace", "replay", "repo", "request-pull",
    "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "scalar",
    "send-email", "send-pack", "sh-i18n--envsubst", "shell", "shortlog", "show",
    "show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash",
    "status", "stripspace", "submodule", "subtree", "svn", "switch", "symbolic-ref",
    "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
    "update-server-info", "upload-archive", "upload-pack", "var", "verify-commit",
    "verify-pack", "verify-tag", "version", "web--browse", "whatchanged", "worktree",
    "write-tree"
})

# git's own options before the subcommand that take the next word as their value
_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                     "--config-env", "--list-cmds", "--attr-source"})


def git_subcommand(args: tuple[str, ...]) -> tuple[str, int] | None:
    """The subcommand of ``git ARGS`` and its index in ``args`` (None: git runs none, e.g.
    ``git --version``, or the options run on past 64 words)."""
    k = 0
    while k < min(len(args), 64):
        word = args[k]
        if word == "--":
            return (args[k + 1], k + 1) if k + 1 < len(args) else None
        if not _IFS.sub("", word):  # an unquoted $IFS alone splits into no word
            k += 1
            continue
        if not word.startswith("-") or word == "-":
            return word, k
        k += 2 if word in _VALUED else 1
    return None


def unknown_git_command(args: tuple[str, ...]) -> str | None:
    """The subcommand of ``git ARGS`` when git does not define it and no ``-c alias.NAME=``
    on the line says what it is (None otherwise)."""
    found = git_subcommand(args)
    if found is None or _IFS.sub("", found[0]) in GIT_COMMANDS:  # git ${IFS}status
        return None
    name, at = found
    alias = "alias." + name.lower()
    for k, word in enumerate(args[:at]):
        spec = word[2:] if word.startswith("-c") and len(word) > 2 else (
            args[k + 1] if word == "-c" and k + 1 < at else "")
        if spec.partition("=")[0].lower() == alias:
            return None  # the alias is on the line: its value meets the deny rules
    return name

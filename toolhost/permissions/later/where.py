"""Where a file a command reads lies, and whether the line may make it first.

``later.patch`` and ``later.archive`` read the patch or archive a command applies. A relative
name is found from the working directory, or from a directory an earlier ``cd``/``pushd`` of
the same line moved to (``cd sub && tar xf x.tar``: both are tried, fail closed). A file
missing now makes the command fail, unless an earlier command of the line may make it: one
naming it in any word or redirection (``curl -sO http://x/a.tar && tar xf a.tar``).
"""

from __future__ import annotations

import os

from toolhost.permissions.bash.budget import scan_line
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["MOVES", "made_before", "places"]

# The builtins that move the shell to another directory: a relative name after one of them
# is looked for elsewhere than where the rules look.
MOVES = frozenset({"cd", "pushd", "popd"})


def places(parsed: ParsedCommand, k: int, cwd: str, name: str) -> list[str] | None:
    """The paths ``name`` (a word of the ``k``-th simple command) may name: from ``cwd`` and
    from each directory an earlier ``cd``/``pushd`` moves to; None when one cannot be known
    (``cd -``, ``cd $X``)."""
    scan_line(parsed)  # (asked for each file a command of the line reads)
    name = os.path.expanduser(name)
    bases, here = [cwd], cwd
    for words in (parsed.words + parsed.nested_words)[:k]:
        if not words or words[0].value not in MOVES or words[0].value == "popd":
            continue  # (popd goes back to a directory already among the bases)
        targets = [w for w in words[1:] if not w.value.startswith("-")]
        if not targets:
            here = os.path.expanduser("~")
        elif not targets[0].plain:
            return None
        else:
            here = os.path.join(here, os.path.expanduser(targets[0].value))
        bases.append(here)
    return [os.path.join(b, name) for b in dict.fromkeys(bases)]


def made_before(parsed: ParsedCommand, k: int, name: str) -> bool:
    """Whether a command before the ``k``-th of the line names ``name``'s file name (in a
    word, a URL, a redirection), so may make it."""
    scan_line(parsed)
    base = os.path.basename(name.rstrip("/")) or name
    earlier = (parsed.words + parsed.nested_words)[:k]
    return any(base in w.value for words in earlier for w in words) or any(
        base in t for _w, targets, _d in parsed.writes for t in targets)

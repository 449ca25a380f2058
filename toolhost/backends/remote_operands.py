"""Archive names GNU tar reads as another host's: ``tar -cf host:x dir`` runs the remote
shell (``--rsh-command``, rsh or ssh) to ``host`` and streams the archive there.

A value that makes tar's archive name remote lets the model choose a host the files go to
(or come from), through the user's ssh keys. :func:`remote_archive` finds it after the
argv is rendered; ``argv`` refuses the call. ``--force-local`` in the argv turns the rule
off, as it does in tar.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["remote_archive"]

_TARS = frozenset({"tar", "gtar"})


def _name(program: str) -> str:
    return program.replace("\\", "/").rsplit("/", 1)[-1].lower()


def remote_archive(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The archive name a value made remote, or None. ``valued``: (index in ``out``, length
    of the literal text before the value) of each argument a value is printed in."""
    if _name(out[0]) not in _TARS or "--force-local" in out:
        return None
    starts = dict(valued)
    for k, text in enumerate(out[1:], start=1):
        for index, begin in _archive_names(out, k, text):
            if index not in starts:
                continue
            name = out[index][begin:]
            colon = name.find(":")
            if colon >= 0 and "/" not in name[:colon] \
                    and begin + colon >= starts[index]:
                return name
    return None


def _archive_names(out: Sequence[str], k: int, text: str) -> list[tuple[int, int]]:
    """(index, offset of the file name) of the archive name option ``out[k]`` gives."""
    if text == "--":
        return []
    if text in ("--file", "-f") or (k == 1 and not text.startswith("-") and "f" in text):
        return [(k + 1, 0)] if k + 1 < len(out) else []
    if text.startswith("--file="):
        return [(k, len("--file="))]
    if text.startswith("-") and not text.startswith("--") and "f" in text[1:]:
        at = text.index("f", 1)
        return [(k, at + 1)] if at + 1 < len(text) else ([(k + 1, 0)] if k + 1 < len(out)
                                                          else [])
    return []

"""Deleting a directory of the cache, however deep it nests.

``shutil.rmtree`` recurses once per directory level before Python 3.12: a team repository
(or a tool writing into a checkout) that nests directories a thousand deep raised
``RecursionError``, which ``ignore_errors`` does not cover, and the load ended in an internal
error. The cache's deletions go through ``remove_tree``: rmtree first (it works by file
descriptors, so paths longer than the system allows are fine), then a loop with a stack for
what it left.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

__all__ = ["remove_tree"]


def remove_tree(path: Path | str) -> None:
    """Delete ``path`` and everything under it, ignoring errors (as ``rmtree(path,
    ignore_errors=True)``); a symlink is removed, never followed."""
    with contextlib.suppress(RecursionError):  # ignore_errors does not cover it
        shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        _remove_deep(os.fspath(path))


def _remove_deep(top: str) -> None:
    """Depth first with an explicit stack: a directory is removed once it is empty; one that
    cannot be (a file in it that cannot be deleted) is left, and not entered again."""
    if os.path.islink(top) or not os.path.isdir(top):
        with contextlib.suppress(OSError):
            os.unlink(top)
        return
    stack = [top]
    left: set[str] = set()
    while stack:
        current = stack[-1]
        deeper = None
        with contextlib.suppress(OSError), os.scandir(current) as listing:
            for item in listing:
                if item.is_dir(follow_symlinks=False):
                    if item.path not in left:
                        deeper = item.path
                        break
                    continue
                with contextlib.suppress(OSError):
                    os.unlink(item.path)
        if deeper is not None:
            stack.append(deeper)
            continue
        stack.pop()
        try:
            os.rmdir(current)
        except OSError:
            left.add(current)

"""Load-time check of a path the config names: a file resource, the audit log, an OpenAPI
spec, a working directory. What exists must be of the kind expected (a FIFO, a device, a
socket or a directory where a file belongs is refused with its line); a path that does not
exist yet is left to the command that uses it. Only ``stat`` is called: nothing is opened.
"""

from __future__ import annotations

import os
import stat
from typing import Literal

from toolhost.config.checks import Checker
from toolhost.config.tree import Path
from toolhost.fileopen import file_kind

__all__ = ["expect_kind"]


def expect_kind(check: Checker, path: Path, resolved: str,
                expected: Literal["file", "directory"]) -> None:
    """A located problem when ``resolved`` exists and is not a regular file (``"file"``) or a
    directory (``"directory"``)."""
    try:
        mode = os.stat(resolved).st_mode
    except (OSError, ValueError):  # missing, unreadable, a NUL: said where it is used
        return
    if expected == "file" and not stat.S_ISREG(mode):
        check.problem(path, f"{file_kind(mode)}, not a regular file",
                      "name a regular file (a FIFO or a device would never end)")
    elif expected == "directory" and not stat.S_ISDIR(mode):
        check.problem(path, f"{file_kind(mode)}, not a directory", "name a directory")

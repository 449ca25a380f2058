"""A path the config names (a file resource, the audit log, an OpenAPI spec, a working
directory): resolved against the file that names it, kept inside a shared repository's
checkout, and checked at load. What exists must be of the kind expected (a FIFO, a device, a
socket or a directory where a file belongs is refused with its line); a path that does not
exist yet is left to the command that uses it. Only ``stat`` is called: nothing is opened.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Literal

from toolhost.config.checks import Checker
from toolhost.config.tree import Path
from toolhost.fileopen import file_kind

__all__ = ["expect_kind", "resolve_path"]


# what stat() says of a path no file created later can satisfy
_NEVER = {
    errno.ELOOP: "a symbolic link on the way leads round a loop: fix it, or name the real path",
    errno.ENAMETOOLONG: "a name longer than the system allows (255 bytes a part, 4,096 a "
                        "path on Linux): shorten it",
}


def expect_kind(check: Checker, path: Path, resolved: str,
                expected: Literal["file", "directory"]) -> None:
    """A located problem when ``resolved`` exists and is not a regular file (``"file"``) or a
    directory (``"directory"``)."""
    try:
        mode = os.stat(resolved).st_mode
    except OSError as exc:
        if exc.errno in _NEVER:  # no file made later can be it: say so now
            check.problem(path, f"cannot be looked at: {exc.strerror}", _NEVER[exc.errno])
        return  # missing, unreadable: said where it is used
    except ValueError:  # a NUL: said by resolve_path
        return
    if expected == "file" and not stat.S_ISREG(mode):
        check.problem(path, f"{file_kind(mode)}, not a regular file",
                      "name a regular file (a FIFO or a device would never end)")
    elif expected == "directory" and not stat.S_ISDIR(mode):
        check.problem(path, f"{file_kind(mode)}, not a directory", "name a directory")


def resolve_path(check: Checker, path: Path, value: str,
                 expect: Literal["file", "directory"] | None = None) -> str:
    """A path written in a file is relative to that file's directory; written in a shared
    repository's file, it must stay inside that repository (a problem otherwise). With
    ``expect``, a path that exists must be a regular file / a directory (a problem otherwise:
    a FIFO or a device named where a file belongs would block whoever opens it). A NUL
    character is a problem: no file has one in its name (``run.cwd: "a\\0b"`` was an
    internal error where the directory was looked into)."""
    if "\0" in value:
        check.problem(path, "a path cannot hold a NUL character (\\0)",
                      "remove it: no file or directory name has one")
        value = value.replace("\0", "")
    value = os.path.expanduser(value)
    if os.path.isabs(value):
        resolved = os.path.normpath(value)
        if expect:
            expect_kind(check, path, resolved, expect)
        return resolved
    declaring = check.place(path)[0]
    resolved = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(declaring)),
                                             value))
    from toolhost.config.repotree import leaves_checkout

    problem = leaves_checkout(declaring, resolved, value)
    if problem:
        check.problem(path, *problem)
    elif expect:
        expect_kind(check, path, resolved, expect)
    return resolved

"""A command tool's working directory: checked when the config loads, explained when it fails.

``cwd`` is a path, not a template: ``"/tmp/{{ d }}"`` would be a directory of that very name
for every call (and ``d`` no param at all), so jinja syntax there is a load error. The
directory must exist when the config is loaded. At call time the OS reports a missing working
directory with the same error as a missing program; ``start_error`` tells them apart, so a
directory removed after the load is said as such, never "the program was not found".
"""

from __future__ import annotations

import os
import stat

from toolhost.excerpt import cut
from toolhost.fileopen import file_kind

__all__ = ["check_cwd", "start_error"]

_JINJA_MARKS = ("{{", "{%", "{#")


def check_cwd(cwd: str, own: bool) -> tuple[str, str, str] | None:
    """``(message, key, hint)`` when ``cwd`` cannot be a command's working directory; ``own``:
    the tool's ``cwd`` (else the server's, which it inherits)."""
    key = ".cwd" if own else ""
    whose = "cwd" if own else "the server's cwd (which this command tool runs in)"
    shown = cut(cwd, 200)
    if any(mark in cwd for mark in _JINJA_MARKS):
        return (f"{whose} {shown!r} holds template syntax, but cwd is not a template: it "
                "would be a directory of that very name for every call", key,
                "write the directory literally; pass values to the program as arguments")
    try:
        mode = os.stat(cwd).st_mode
    except FileNotFoundError:
        return (f"{whose}: the directory {shown} does not exist", key,
                "create it, or fix the path (a relative path is relative to the config file)")
    except (OSError, ValueError) as exc:  # a name too long, a loop, no permission, a NUL
        reason = getattr(exc, "strerror", None) or str(exc)
        return f"{whose}: cannot use {shown} as a directory ({reason})", key, ""
    if not stat.S_ISDIR(mode):
        return (f"{whose}: {shown} is {file_kind(mode)}, not a directory", key,
                "name a directory")
    if not os.access(cwd, os.X_OK):
        return (f"{whose}: no permission to enter the directory {shown}", key, "")
    return None


def start_error(exc: OSError, program: str, cwd: str | None) -> str:
    """The one-line result for a program that could not be started (``exc`` from the spawn):
    the working directory's fault when it is gone or unusable, else the program's."""
    if cwd is not None and isinstance(exc, (FileNotFoundError, NotADirectoryError,
                                             PermissionError)):
        try:
            mode = os.stat(cwd).st_mode
        except OSError:
            return (f"The working directory {cut(cwd, 200)} of this tool does not exist (it "
                    f"was there when the config was loaded); '{program}' did not run.")
        if not stat.S_ISDIR(mode):
            return (f"The working directory {cut(cwd, 200)} of this tool is now "
                    f"{file_kind(mode)}, not a directory; '{program}' did not run.")
        if not os.access(cwd, os.X_OK):
            return (f"The working directory {cut(cwd, 200)} of this tool cannot be entered "
                    f"(permission denied); '{program}' did not run.")
    if isinstance(exc, FileNotFoundError):
        return f"The program '{program}' was not found on this machine (check PATH)."
    if isinstance(exc, PermissionError):
        return f"The program '{program}' cannot be executed (permission denied)."
    return f"The program '{program}' could not be started: {cut(str(exc), 300)}"

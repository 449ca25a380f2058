"""What ``validate`` says about a declared resource beyond its keys: a ``file`` or
``directory`` path that is not there (every read of it fails until it is), and a URI
template with two variables side by side (``v://{a}{b}``: where one ends is a guess)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

__all__ = ["resource_warnings"]

_ADJACENT = re.compile(r"\}\{")


def resource_warnings(config: HostConfig) -> list[Problem]:
    """A located warning for each declared resource whose file or directory does not exist
    (it is listed, and each read answers "cannot read" / "Resource not found"; a warning, not
    an error: the file may be written after the config), and for each URI template where one
    variable follows another with nothing between them."""
    found: list[Problem] = []
    for server in config.servers.values():
        for resource in getattr(server, "resources", {}).values():
            kind = getattr(resource, "kind", None)
            path = getattr(resource, "path", None)
            if kind in ("file", "directory") and isinstance(path, str) and _missing(path):
                what = ("it is listed, but every read of it fails" if kind == "file"
                        else "it lists nothing, and every read below it fails")
                found.append(resource.origin.problem(
                    f"resource '{resource.name}': the {kind} {path} does not exist: {what} "
                    "until it does", key=f".{kind}",
                    hint="a relative path is read from the config file's directory"))
            elif kind == "template" and _ADJACENT.search(resource.uri):
                found.append(resource.origin.problem(
                    f"resource '{resource.name}': the URI template {resource.uri!r} has two "
                    "variables side by side: where the first ends in a URI is a guess (the "
                    "first takes all it can)", key=".uri",
                    hint="put a separator between them (v://{a}/{b}, v://{a}-{b})"))
    return found


def _missing(path: str) -> bool:
    """Not there now, but a file may be made there later. A path no file can ever be (a
    symlink loop, a name past the system's limit) is not "missing": the loader refuses it,
    and that error is the one to read first."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False

"""What to say when ``toolhost permissions test`` is given a config instead of a case file.

``toolhost permissions test toolhost.yaml`` is the first thing many people type; it answered
"unknown key 'servers' (keys: config, cwd, cases)" and "missing 'config'", which say nothing
of the mistake. The file is recognised as a config (its top-level ``toolhost:`` key), and the
case files beside it that name it are offered: the command to type.
"""

from __future__ import annotations

import itertools
import os
import re

__all__ = ["config_not_cases"]

_CASES = re.compile(rb"^cases[ \t]*[:=]", re.M)
_CONFIG = re.compile(rb"""^config[ \t]*[:=][ \t]*["']?([^"'\r\n#]+)""", re.M)
_LOOKED_AT = 1000  # entries of the folder read at most (a huge folder is not walked)
_HEAD = 8192  # bytes of each file read


def config_not_cases(path: str) -> str:
    """The message for a config file passed where a case file was expected, naming the case
    files in its folder that test it (or how to write one)."""
    name = os.path.basename(path)
    testing = _case_files(path)
    if testing:
        shown = " ".join(testing[:3])
        return (f"{name} is a config file, not a case file: `toolhost permissions test` "
                f"reads the cases that test a config (try: toolhost permissions test {shown})")
    return (f"{name} is a config file, not a case file: `toolhost permissions test` reads "
            f"a file of cases (config: {name}, then cases: [...]; docs/permissions.md, "
            "'Testing a policy')")


def _case_files(config: str) -> list[str]:
    """Case files in ``config``'s folder whose ``config:`` names it, as paths from here."""
    folder = os.path.dirname(config) or "."
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in itertools.islice(entries, _LOOKED_AT)
                           if e.name.endswith((".yaml", ".yml", ".toml"))
                           and e.is_file(follow_symlinks=False))
    except OSError:
        return []
    target = os.path.basename(config)
    found = []
    for name in names:
        head = _head(os.path.join(folder, name))
        if head is None or not _CASES.search(head):
            continue
        named = _CONFIG.search(head)
        if named is not None and os.path.basename(
                named.group(1).strip().decode("utf-8", "replace")) == target:
            found.append(os.path.join(os.path.dirname(config), name))
    return found


def _head(path: str) -> bytes | None:
    try:  # (never a FIFO awaited: O_NONBLOCK, and only regular files were listed)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return os.read(fd, _HEAD)
    except OSError:
        return None
    finally:
        os.close(fd)

"""The hooks toolhost cannot turn off: those of the machine's managed settings.

``toolhost run`` gives the Claude CLI ``"disableAllHooks": true`` (``toolhost.runner.
cli_settings``), which turns off the hooks of the user's, the project's and the local
settings files and of installed plugins. An organization's managed settings
(``/etc/claude-code/managed-settings.json`` and ``managed-settings.d/*.json`` on Linux,
``/Library/Application Support/ClaudeCode`` on macOS) rank above every other source, so their
hooks still run. ``managed_hooks()`` names each such file that holds hooks (or a
``statusLine``), or that cannot be read here, for a warning before the CLI starts; a file
that itself sets ``disableAllHooks`` runs none and is not named.
"""

from __future__ import annotations

import json
import os
import stat
import sys

__all__ = ["MANAGED_DIRS", "managed_dir", "managed_hooks", "warnings"]

MANAGED_DIRS = {"linux": "/etc/claude-code", "darwin": "/Library/Application Support/ClaudeCode"}
_MAX_FILES = 64  # drop-in files looked at, at most
_MAX_BYTES = 1 << 20  # of one file


def managed_dir(platform: str = sys.platform) -> str | None:
    """Where the CLI reads managed settings on ``platform`` (None: not known here)."""
    return MANAGED_DIRS.get(platform)


def _files(directory: str) -> list[str]:
    files = [os.path.join(directory, "managed-settings.json")]
    drop_in = os.path.join(directory, "managed-settings.d")
    try:
        names = sorted(n for n in os.listdir(drop_in) if n.endswith(".json"))
    except OSError:
        names = []
    files += [os.path.join(drop_in, name) for name in names[:_MAX_FILES]]
    return files


def _what(path: str) -> str | None:
    """What in the managed settings file ``path`` runs despite toolhost; None: nothing."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the start
            return "is not a regular file this check can read; any hooks in it run"
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        with open(fd, encoding="utf-8") as handle:
            text = handle.read(_MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot be read here ({type(exc).__name__}); any hooks in it run"
    try:
        data = json.loads(text) if len(text) <= _MAX_BYTES else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return "is not a JSON object this check can read; any hooks in it run"
    if data.get("disableAllHooks") is True:
        return None
    hooks = data.get("hooks")
    found: list[str] = []
    if isinstance(hooks, dict):
        found += [f"{event} hooks" for event, entries in hooks.items() if entries][:20]
    elif hooks:
        found.append("hooks")
    if data.get("statusLine"):
        found.append("a statusLine command")
    return ", ".join(found) or None


def managed_hooks(directory: str | None = None) -> list[tuple[str, str]]:
    """``(file, what runs)`` for each managed settings file in ``directory`` (default: this
    platform's, ``managed_dir()``) whose hooks run whatever toolhost asks."""
    directory = managed_dir() if directory is None else directory
    if directory is None:
        return []
    found = []
    for path in _files(directory):
        what = _what(path)
        if what is not None:
            found.append((path, what))
    return found


def warnings(directory: str | None = None) -> list[str]:
    """One ``toolhost: warning:`` line per file ``managed_hooks(directory)`` names."""
    from toolhost.visible import visible

    return [f"toolhost: warning: {visible(path, name=True)}: {visible(what)} of the "
            "machine's managed settings (an organization's policy) still run under "
            "toolhost run: managed settings rank above the disableAllHooks toolhost gives "
            "the CLI, so the config does not decide them (docs/running.md)"
            for path, what in managed_hooks(directory)]

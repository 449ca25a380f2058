"""Finding the Claude CLI: ``--cli PATH``, ``$TOOLHOST_CLI``, ``claude`` on PATH, the bundled one.

The ``claude-agent-sdk`` wheel ships the CLI binary at ``claude_agent_sdk/_bundled/claude``, so
``pip install toolhost[sdk]`` is enough to get a working CLI on a fresh machine.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from toolhost.errors import CLINotFoundError
from toolhost.excerpt import cut

__all__ = ["bundled_cli", "find_cli"]

ENV_VAR = "TOOLHOST_CLI"


def bundled_cli() -> Path | None:
    """The CLI inside an installed ``claude_agent_sdk`` package, if there is one."""
    try:
        spec = importlib.util.find_spec("claude_agent_sdk")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        for name in ("claude", "claude.exe"):
            candidate = Path(location) / "_bundled" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    return None


def _usable(path: str) -> bool:
    try:
        return Path(path).is_file() and os.access(path, os.X_OK)
    except (OSError, ValueError):  # a name too long, a NUL: the OS cannot even look
        return False


def find_cli(explicit: str | None = None, *, environ: Mapping[str, str] | None = None) -> str:
    """Return the path of the Claude CLI to run.

    Looks at, in order: ``explicit`` (``--cli PATH``), ``$TOOLHOST_CLI``, ``claude`` on
    ``$PATH``, and the binary bundled in an installed ``claude-agent-sdk``. An explicit path
    or variable that does not point at an executable is an error, not a reason to look further.
    """
    env = os.environ if environ is None else environ
    if explicit is not None:  # given, even empty (``--cli ''``): it must be an executable
        found = shutil.which(explicit, path=env.get("PATH")) \
            if explicit and os.sep not in explicit else None
        if found or (explicit and _usable(explicit)):
            return found or explicit
        raise CLINotFoundError(f"--cli {cut(explicit) or repr(explicit)}: no executable file "
                               "there")
    from_env = env.get(ENV_VAR)
    if from_env:
        if _usable(from_env):
            return from_env
        raise CLINotFoundError(f"${ENV_VAR}={cut(from_env)}: no executable file there")
    on_path = shutil.which("claude", path=env.get("PATH"))
    if on_path:
        return on_path
    bundled = bundled_cli()
    if bundled is not None:
        return str(bundled)
    raise CLINotFoundError(
        "the Claude CLI was not found. toolhost looked at, in order:\n"
        "  1. --cli PATH                 (not given)\n"
        f"  2. ${ENV_VAR}                 (not set)\n"
        "  3. 'claude' on $PATH          (not found)\n"
        "  4. the CLI bundled in claude-agent-sdk (package not installed)\n"
        "Install it with: pip install 'toolhost[sdk]'   (or: npm install -g "
        "@anthropic-ai/claude-code)")

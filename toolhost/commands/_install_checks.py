"""What `install claude-code` warns about in a project: an entry Claude Code would not start
as this install (the `toolhost` on PATH), or would not read (below the repository's top)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["check_path", "check_top"]


def check_path() -> None:
    """Warn when the `toolhost` that PATH finds here is none, or not this install (another
    virtualenv's, an older toolhost without ``serve --project-relative``, another program of
    that name): Claude Code, started from this shell, would start that one."""
    import shutil

    ours = shutil.which("toolhost", path=os.path.dirname(sys.executable)) \
        or os.path.abspath(sys.argv[0])
    found = shutil.which("toolhost")
    if found is None:
        where = os.path.dirname(ours)
        activate = os.path.join(where, "activate")
        fix = (f"`source {activate}` in the shell you start claude from (a virtualenv not "
               "activated)" if os.path.isfile(activate) else
               f"put {where} on PATH")
        print(f"toolhost: warning: `toolhost` is not on PATH here, so Claude Code started "
              f"from this shell cannot start the entry: {fix}, or install it with pipx or "
              "`uv tool install` (docs/getting-started.md), or run again with --absolute",
              file=sys.stderr)
    elif os.path.realpath(found) != os.path.realpath(ours):
        print(f"toolhost: warning: the `toolhost` on PATH here is {found}, not this one "
              f"({ours}): Claude Code started from this shell runs that one (`{found} "
              "--version` says which it is; an older toolhost has no `serve "
              "--project-relative`); put this one first on PATH, or run again with "
              "--absolute", file=sys.stderr)


def check_top(path: Path, config: str) -> None:
    """Warn when ``path`` (a .mcp.json) lies below its git repository's top: Claude Code,
    started at the top as a team does, reads the .mcp.json of the directory it starts in or
    above, never one below (``toolhost init`` prints the step run from the top)."""
    here = Path(os.path.abspath(path.parent))
    top = next((d for d in (here, *here.parents) if os.path.lexists(d / ".git")), here)
    if top == here:
        return
    from toolhost.commands.init import sh  # the command as pasted into a shell
    down = os.path.relpath(os.path.abspath(config), top)
    print(f"toolhost: warning: {path} is below the top of its git repository ({top}): "
          "Claude Code started at the top reads the .mcp.json there, never one below; to "
          f"use the tools from the top, run `toolhost install claude-code {sh(down)}` in {top} "
          f"(this entry serves claude started in {here})", file=sys.stderr)

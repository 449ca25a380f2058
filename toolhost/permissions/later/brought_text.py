"""The text a brought file is judged by, as the program that reads it reads it.

``later.git`` judges the text a git command brings into a file the line goes on to run
(``git checkout other && bash run.sh``) as shell lines. A shell script is that; a
``package.json`` is JSON whose ``scripts`` values are the command lines ``npm test`` runs
(``"\\u0072m -rf ~"`` is ``rm -rf ~`` to npm, one odd word to a shell reader); a Makefile
or a package manager's rc file names the shell its commands run in (``SHELL := perl``,
``script-shell=./x.sh``): no shell reading of its text says what runs.
"""

from __future__ import annotations

import json
import posixpath

__all__ = ["judged_text"]

# files whose text names how commands run, not only which: not judged (fail closed)
_UNREAD = frozenset({"makefile", "gnumakefile", ".npmrc", ".yarnrc", ".yarnrc.yml",
                     ".pnpmrc", "bunfig.toml", ".pnpmfile.cjs", "pnpm-workspace.yaml"})


def judged_text(path: str, text: str | None) -> str | None:
    """The shell lines ``text``, brought into ``path``, is judged by (None: it cannot be
    judged, and meets every deny and ask rule)."""
    name = posixpath.basename(path).lower()
    if text is None or name in _UNREAD:
        return None
    if name == "package.json":
        return _scripts(text)
    return text


def _scripts(text: str) -> str | None:
    """Each script of a package.json on a line of its own (None: not a package.json whose
    scripts are all strings)."""
    try:
        package = json.loads(text)
    except (ValueError, RecursionError):
        return None
    scripts = package.get("scripts", {}) if isinstance(package, dict) else None
    if not isinstance(scripts, dict) or not all(isinstance(v, str) for v in scripts.values()):
        return None
    return "\n".join(scripts.values())

"""Merge conflict markers in a config file: what its parse error is really about.

A merge that two branches changed a config in leaves ``<<<<<<<``, ``=======`` and
``>>>>>>>`` lines; YAML and TOML then report a syntax error somewhere near them
("could not find expected ':'"), which does not say what happened nor how to fix it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from toolhost.errors import Problem

__all__ = ["conflicted"]

_MARKER = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(?: |$)", re.MULTILINE)


def conflicted(problem: Problem, text: str, what: str) -> Problem:
    """``problem`` (a parse error of ``text``) located at the text's first merge conflict
    marker and saying so, when there is one; else ``problem`` unchanged. ``what``: the
    format's name ("YAML", "TOML")."""
    found = _MARKER.search(text)
    if found is None:
        return problem
    line = text.count("\n", 0, found.start()) + 1
    return replace(problem, message=f"invalid {what}: the file holds merge conflict markers "
                   f"({found[1]}): a merge left both sides of a change here", line=line,
                   column=1, key_path="",
                   hint="resolve the conflict: keep the lines you want and delete "
                   "the <<<<<<<, ======= and >>>>>>> lines (then `toolhost lock CONFIG` if "
                   "the config pulls in other revisions)")

"""A file a later command runs, written with the Edit-family tools.

``echo 'rm -rf y' > .git/hooks/pre-commit`` is judged by what it writes (``later.files``): the
next ``git commit`` runs it, so ``Bash(rm:*)`` denies it. The same hook written by the
``Write`` tool (``{"file_path": ".git/hooks/pre-commit", "content": "rm -rf y"}``), or a
``.bashrc`` line added by ``Edit``, ``MultiEdit`` or ``NotebookEdit``, ran the same ``rm``
at the next commit or shell while the Bash rules never saw it. Such a call's new text is on
the call as an ``echo`` is on the line, so its lines (and their forms, ``content_lines``)
meet the deny and ask ``Bash(...)`` rules as that ``echo``'s would. Text too long to judge
meets them all (fail closed), as a too-long Bash write is not provable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from toolhost.permissions.later.files import LONG_CONTENT, LONG_LINE, policy_file, run_later_path
from toolhost.permissions.paths import normalize_path, spellings

__all__ = ["UNJUDGED", "command_lines", "later_path", "new_texts", "own_file"]

UNJUDGED = object()  # text too long (or odd) to judge: every deny and ask Bash rule meets it


def later_path(tool_name: str, tool_input: Mapping[str, Any], cwd: str) -> str | None:
    """The run-later file (a git hook or config, a shell startup file ...) the call writes,
    in any spelling a path rule reads (``~/.bashrc``, ``$HOME/.bashrc``, a symlink to it,
    ``.GIT/hooks/x``), else None."""
    raw = tool_input.get("notebook_path" if tool_name == "NotebookEdit" else "file_path")
    if not isinstance(raw, str):
        return None  # (the path rules decide a call without a path: every deny, no allow)
    for text in (raw, *spellings(raw)):
        if run_later_path(text) or run_later_path(os.path.expanduser(text)):
            return raw
        path = normalize_path(text, cwd)
        if path is not None and run_later_path(path):
            return raw
    return None


def own_file(tool_name: str, tool_input: Mapping[str, Any], cwd: str,
             files: frozenset[str]) -> str | None:
    """The file of the policy itself the call writes (``toolhost.yaml``, its local layer
    ``toolhost.local.yaml``, the user layer, or any file in ``files``: the loaded config's,
    extends included, absolute and in lower case), in any spelling, else None."""
    raw = tool_input.get("notebook_path" if tool_name == "NotebookEdit" else "file_path")
    if not isinstance(raw, str):
        return None
    for text in (raw, *spellings(raw)):
        path = normalize_path(text, cwd)
        if policy_file(text) or (path is not None and (
                policy_file(path) or path.lower() in files)):
            return raw
    return None


def new_texts(tool_name: str, tool_input: Mapping[str, Any]) -> list[str]:
    """The text the call puts in the file: Write's ``content``, Edit's ``new_string``, each
    of MultiEdit's ``edits``, NotebookEdit's ``new_source`` (what is not a string: none)."""
    if tool_name == "MultiEdit":
        edits = tool_input.get("edits")
        values = [e.get("new_string") for e in edits if isinstance(e, Mapping)] if isinstance(
            edits, list) else []
    else:
        key = {"Write": "content", "Edit": "new_string"}.get(tool_name, "new_source")
        values = [tool_input.get(key)]
    return [v for v in values if isinstance(v, str)]


def command_lines(texts: list[str] | object) -> list[str] | object:
    """The command lines the new text may run, each tried by the deny and ask Bash rules:
    exactly those a Bash write of that text (``cat > FILE <<'EOF'``) has tried (its string
    literals, every line and its forms: the value of ``x = !rm y``, each run of words from a
    word on, what follows a ``!``), less those that do not parse (skipped there too);
    ``UNJUDGED`` past the limits a Bash write has (a line over 1,024 characters, 16 KiB in
    all) or holding a NUL (bash drops one from a script: ``\\0rm x`` runs rm)."""
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        return UNJUDGED
    lines = _command_lines(tuple(texts))
    return UNJUDGED if lines is None else list(lines)


@lru_cache(maxsize=1024)
def _command_lines(texts: tuple[str, ...]) -> tuple[str, ...] | None:
    """``command_lines`` of ``texts`` (None: UNJUDGED), remembered: a function of the text
    alone (a make's recipe lines are judged again at each ``make``)."""
    from toolhost.permissions.bash.command_strings import CUT, fed_code_strings
    from toolhost.permissions.shell.parse import ShellSyntaxError, parse_command

    if any("\0" in text for text in texts) or sum(map(len, texts)) > LONG_CONTENT or any(
            len(line) > LONG_LINE for text in texts for line in text.split("\n")):
        return None
    out: list[str] = []
    for text in texts:
        end = "TOOLHOST_EOF"
        while end in text:
            end += "_"
        written = f"cat > .git/hooks/pre-commit <<'{end}'\n{text}\n{end}"
        try:
            parse_command(written)
        except ShellSyntaxError:
            return None
        for line in fed_code_strings(written, [("cat",)]):
            if line == CUT:  # more than is looked at
                return None
            try:
                parse_command(line)
            except ShellSyntaxError:
                continue
            out.append(line)
    return tuple(out)

"""A file a later command runs, written with the Edit-family tools (round 16).

``echo 'rm -rf y' > .git/hooks/pre-commit`` is judged by what it writes (``runlater``): the
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
import stat
from collections.abc import Mapping
from typing import Any

from toolhost.permissions.paths import normalize_path, spellings
from toolhost.permissions.runlater import LONG_CONTENT, LONG_LINE, policy_file, run_later_path

__all__ = ["UNJUDGED", "command_lines", "edited_texts", "later_path", "new_texts", "own_file"]

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


def edited_texts(tool_name: str, tool_input: Mapping[str, Any], cwd: str) -> list[str] | object:
    """What the file holds after the call: an ``Edit``/``MultiEdit`` of a run-later file
    changes text already there, so the file as it will be is judged too, as a ``Write`` of
    it would be (its new strings alone missed an edit that arms a line: ``old_string: "# "``,
    ``new_string: ""`` uncommenting ``# rm -rf y``, or ``exit 0`` removed before it). A file
    that is not there is judged by the new strings as before; one that cannot be read whole
    as text (not a regular file, over the limit, not UTF-8) or does not hold an
    ``old_string`` (the edit fails now, but another edit decided before it runs may put the
    string there) is ``UNJUDGED``: what it will hold cannot be proven."""
    if tool_name not in ("Edit", "MultiEdit"):
        return new_texts(tool_name, tool_input)
    raw = tool_input.get("file_path")
    path = normalize_path(raw, cwd) if isinstance(raw, str) else None
    if path is None:
        return new_texts(tool_name, tool_input)
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # (no such file: the edit writes nothing)
        return new_texts(tool_name, tool_input)
    except OSError:
        return UNJUDGED
    if not stat.S_ISREG(info.st_mode) or info.st_size > LONG_CONTENT:
        return UNJUDGED  # (a FIFO or a device is never opened: reading one could hang)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            text = handle.read(LONG_CONTENT + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return UNJUDGED
    if len(text) > LONG_CONTENT:
        return UNJUDGED
    edits = tool_input.get("edits") if tool_name == "MultiEdit" else [tool_input]
    if not isinstance(edits, list):
        return UNJUDGED
    for edit in edits:
        old = edit.get("old_string") if isinstance(edit, Mapping) else None
        new = edit.get("new_string") if isinstance(edit, Mapping) else None
        if not isinstance(old, str) or not isinstance(new, str):
            return UNJUDGED
        if old and old not in text:
            return UNJUDGED  # (fails now; after another edit it may not: `#X rm` -> `# rm`)
        text = text.replace(old, new, -1 if edit.get("replace_all") is True else 1)
    return [*new_texts(tool_name, tool_input), text]  # (the new strings too, as before)


def command_lines(texts: list[str] | object) -> list[str] | object:
    """The command lines the new text may run, each tried by the deny and ask Bash rules:
    exactly those a Bash write of that text (``cat > FILE <<'EOF'``) has tried (its string
    literals, every line and its forms: the value of ``x = !rm y``, each run of words from a
    word on, what follows a ``!``), less those that do not parse (skipped there too);
    ``UNJUDGED`` past the limits a Bash write has (a line over 1,024 characters, 16 KiB in
    all) or holding a NUL (bash drops one from a script: ``\\0rm x`` runs rm)."""
    from toolhost.permissions.command_strings import fed_code_strings
    from toolhost.permissions.shell import ShellSyntaxError, parse_command

    if not isinstance(texts, list):
        return UNJUDGED
    if any("\0" in text for text in texts) or sum(map(len, texts)) > LONG_CONTENT or any(
            len(line) > LONG_LINE for text in texts for line in text.split("\n")):
        return UNJUDGED
    out: list[str] = []
    for text in texts:
        end = "TOOLHOST_EOF"
        while end in text:
            end += "_"
        written = f"cat > .git/hooks/pre-commit <<'{end}'\n{text}\n{end}"
        try:
            parse_command(written)
        except ShellSyntaxError:
            return UNJUDGED
        for line in fed_code_strings(written, [("cat",)]):
            try:
                parse_command(line)
            except ShellSyntaxError:
                continue
            out.append(line)
    return out

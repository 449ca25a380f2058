"""The whole text a run-later file holds after an Edit.

An ``Edit`` of a git hook holding ``# rm -rf y`` with ``old_string: "# "`` and ``new_string:
""`` writes no command of its own: it arms one already in the file, and its new text (empty)
met no rule. The host runs beside the CLI, so the file's current text can be read when the
call is decided: the edit is applied to it (``Edit``, each of ``MultiEdit``'s edits in turn;
``NotebookEdit``'s cell beside the file's text) and the whole result is judged, as a
``Write`` of that result is. A file that cannot be read whole (a FIFO or device, over the
size judged, not UTF-8, a directory, no permission) or an edit that does not apply to it
cannot be judged: ``None`` (every deny and ask Bash rule meets it). A file that does not
exist yet holds only what the call puts there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.permissions.fileread import read_regular
from toolhost.permissions.later.files import LONG_CONTENT
from toolhost.permissions.paths import normalize_path, spellings

__all__ = ["texts_after"]

_MISSING = object()


def texts_after(tool_name: str, tool_input: Mapping[str, Any], raw: str, cwd: str,
                new: list[str]) -> list[str] | None:
    """The texts ``raw`` (a run-later file's path as the call spells it) may hold after the
    call: ``new`` (the call's own text) for a ``Write`` or a file that does not exist; the
    edited whole for an ``Edit``/``MultiEdit`` of each existing file a spelling of ``raw``
    names; None when one cannot be read or the edit does not apply (not provable)."""
    if tool_name == "Write":
        return new
    out: list[str] = []
    paths = {p for p in (normalize_path(t, cwd) for t in (raw, *spellings(raw))) if p}
    for path in sorted(paths):
        current = _read(path)
        if current is None:
            return None
        if current is _MISSING:
            continue
        assert isinstance(current, str)
        edited = _apply(tool_name, tool_input, current)
        if edited is None:
            return None
        out += edited
    return [*new, *out]  # (the new strings too, as review18 judged them)


def _read(path: str) -> str | object | None:
    """The text of the regular file at ``path`` (CRLF read as LF, as the CLI's Edit reads
    it), ``_MISSING`` if there is none, None if it cannot be read whole: never blocks (a
    FIFO is opened without waiting for a writer, and refused)."""
    read = read_regular(path, LONG_CONTENT)
    if read.kind == "missing":
        return _MISSING
    if read.kind != "file" or read.too_long:
        return None
    try:
        return read.data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return None


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _replace(text: str, old: Any, new: Any, every: bool) -> str | None:
    """``text`` with ``old`` replaced (the first, or ``every`` one), as the CLI's Edit does
    (curly quotes matched as straight ones when the text holds no exact match); None when
    the edit does not apply or is not made of strings."""
    if not isinstance(old, str) or not isinstance(new, str) or not old:
        return None
    if old not in text:
        text, old = text.translate(_QUOTES), old.translate(_QUOTES)
        if old not in text:
            return None
    return text.replace(old, new) if every else text.replace(old, new, 1)


def _apply(tool_name: str, tool_input: Mapping[str, Any], current: str) -> list[str] | None:
    if tool_name == "Edit":
        if tool_input.get("old_string") == "":  # creates a file: it fails on an existing one
            new = tool_input.get("new_string")
            return [current, new] if isinstance(new, str) else None
        done = _replace(current, tool_input.get("old_string"), tool_input.get("new_string"),
                        tool_input.get("replace_all") is True)
        return None if done is None else [done]
    if tool_name == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list):
            return None
        text: str | None = current
        for edit in edits:
            if text is None or not isinstance(edit, Mapping):
                return None
            text = _replace(text, edit.get("old_string"), edit.get("new_string"),
                            edit.get("replace_all") is True)
        return None if text is None else [text]
    source = tool_input.get("new_source")  # NotebookEdit: its cell beside what is there
    return [current, source] if isinstance(source, str) else [current]

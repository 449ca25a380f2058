"""Whether a policy test case's input is one the CLI could send to a built-in tool.

The CLI checks a built-in tool's input against the tool's schema before it asks toolhost, so
a case whose input the schema refuses tests a call that never happens, and it may pass for the
wrong reason: ``Read {filepath: ~/.ssh/id_rsa}`` (no ``file_path``) names no file, which every
deny ``Read(...)`` rule meets, so ``expect: deny`` passes whether ``~/.ssh`` is protected or
not. ``permissions test`` notes such a case (a note, not a failure: a newer CLI may add an
argument the table in ``builtin_inputs`` does not know yet).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["builtin_input_note"]

# The argument each tool cannot run without (the file it touches, the URL, the command).
_REQUIRED = {"Read": "file_path", "Edit": "file_path", "Write": "file_path",
             "MultiEdit": "file_path", "NotebookEdit": "notebook_path",
             "NotebookRead": "notebook_path", "WebFetch": "url", "Bash": "command",
             "Glob": "pattern", "Grep": "pattern"}
_TYPES = {"string": (str,), "boolean": (bool,), "array": (list, tuple),
          "number": (int, float)}


def _wrong_type(schema: Mapping[str, Any], value: Any) -> str | None:
    """The type ``schema`` asks for when ``value`` is not of it (None when it is, or when
    the schema names no simple type)."""
    kind: str | None = schema.get("type")
    if kind not in _TYPES:
        return None
    if isinstance(value, bool) and kind == "number":
        return kind  # (True is an int to Python, not a number to JSON)
    return None if isinstance(value, _TYPES[kind]) else kind


def builtin_input_note(tool: str, tool_input: Mapping[str, Any]) -> str:
    """Why the CLI would refuse ``tool_input`` for built-in ``tool`` ("" when it would not,
    or when ``tool`` is no built-in this table knows): an argument the tool does not have,
    one of another type, or the argument it cannot run without left out."""
    from toolhost.permissions.builtin_inputs import BUILTIN_INPUTS

    schema = BUILTIN_INPUTS.get(tool)
    if schema is None:
        return ""
    known: Mapping[str, Any] = schema.get("properties", {})
    problems = []
    unknown = [k for k in tool_input if k not in known]
    if unknown:
        problems.append(f"{tool} has no argument " + ", ".join(
            repr(cut(str(k), 60)) for k in unknown[:3]) + (" ..." if len(unknown) > 3 else "")
            + f" (its arguments: {', '.join(known)})")
    for key, value in tool_input.items():
        want = _wrong_type(known[key], value) if key in known else None
        if want is not None:
            problems.append(f"{tool}'s {key} must be a {want}")
    needed = _REQUIRED.get(tool)
    if needed is not None and needed not in tool_input:
        problems.append(f"{tool} cannot run without {needed}")
    if not problems:
        return ""
    return ("; ".join(problems[:3]) + ": the CLI refuses such an input before it asks, so "
            "no such call happens and its decision proves nothing (a missing or unreadable "
            "path meets every deny rule)")

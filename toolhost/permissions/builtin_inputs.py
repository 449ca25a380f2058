"""The input shapes of Claude Code's built-in tools, as its documentation gives them.

``validate`` checks a rule's ``when``/``expr``/``rewrite`` paths on a built-in tool against these.
The CLI may add arguments in a later version, so a path missing here is a warning, not an
error (a tool absent from this table is not checked at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["BUILTIN_INPUTS"]


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "additionalProperties": False}


_S: dict[str, Any] = {"type": "string"}
_N: dict[str, Any] = {"type": "number"}
_B: dict[str, Any] = {"type": "boolean"}
_STRINGS: dict[str, Any] = {"type": "array", "items": _S}
_TASK = _obj(description=_S, prompt=_S, subagent_type=_S, model=_S, resume=_S)

BUILTIN_INPUTS: Mapping[str, Mapping[str, Any]] = {
    "Bash": _obj(command=_S, timeout=_N, description=_S, run_in_background=_B,
                 dangerouslyDisableSandbox=_B),
    "BashOutput": _obj(bash_id=_S, filter=_S),
    "KillShell": _obj(shell_id=_S),
    "Read": _obj(file_path=_S, offset=_N, limit=_N),
    "Write": _obj(file_path=_S, content=_S),
    "Edit": _obj(file_path=_S, old_string=_S, new_string=_S, replace_all=_B),
    "MultiEdit": _obj(file_path=_S, edits={"type": "array", "items": _obj(
        old_string=_S, new_string=_S, replace_all=_B)}),
    "Glob": _obj(pattern=_S, path=_S),
    "Grep": _obj(**{"pattern": _S, "path": _S, "glob": _S, "type": _S,
                    "output_mode": {"enum": ["content", "files_with_matches", "count"]},
                    "-i": _B, "-n": _B, "-A": _N, "-B": _N, "-C": _N, "head_limit": _N,
                    "offset": _N, "multiline": _B}),
    "LS": _obj(path=_S, ignore=_STRINGS),
    "NotebookEdit": _obj(notebook_path=_S, cell_id=_S, new_source=_S,
                         cell_type={"enum": ["code", "markdown"]},
                         edit_mode={"enum": ["replace", "insert", "delete"]}),
    "NotebookRead": _obj(notebook_path=_S, cell_id=_S),
    "WebFetch": _obj(url=_S, prompt=_S),
    "WebSearch": _obj(query=_S, allowed_domains=_STRINGS, blocked_domains=_STRINGS),
    "Task": _TASK,
    "Agent": _TASK,
    "ExitPlanMode": _obj(plan=_S),
    "ListMcpResourcesTool": _obj(server=_S),
    "ReadMcpResourceTool": _obj(server=_S, uri=_S),
    "ReadMcpResourceDirTool": _obj(server=_S, uri=_S),
    # toolhost's own: a prompts/get (toolhost.serve.guard.prompt_guard)
    "GetMcpPromptTool": _obj(server=_S, name=_S, arguments={
        "type": "object", "additionalProperties": _S}),
}

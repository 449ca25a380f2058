"""``SdkHost.options(**kwargs)``: the ``ClaudeAgentOptions`` fields that would let the CLI
decide permissions by itself, refused as ``toolhost run`` refuses the same CLI flags.

``claude_agent_sdk`` turns these fields into the CLI's flags (``permission_mode`` into
``--permission-mode``, ``allowed_tools`` into ``--allowedTools``, ``settings`` into
``--settings``, ``permission_prompt_tool_name`` into ``--permission-prompt-tool``,
``extra_args`` into ``--FLAG VALUE``, ``add_dirs`` into ``--add-dir``, ``plugins`` into
``--plugin-dir``, ``setting_sources`` into ``--setting-sources``, ``skills`` into allowed
``Skill`` tools; ``agents`` go in the initialize request, as ``--agents`` would), so
``toolhost.config.cli_args.weakening`` judges them: one list of what is refused and why, for
both. ``can_use_tool`` replaced by another callback is refused too: the rules would no longer
be asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolhost.config.cli_args import weakening
from toolhost.excerpt import cut

__all__ = ["as_cli_args", "refused"]

_WHAT_TO_DO = {
    "permission_mode": "leave it out (toolhost starts the CLI in default mode), or use "
                       "plan or dontAsk",
    "allowed_tools": "write allow rules in the config's permissions instead",
    "settings": "put what the CLI needs in the config, or in the CLI's own settings "
                "files (toolhost's rules still hold for its tools there)",
    "permission_prompt_tool_name": "leave it out: toolhost answers the CLI's permission "
                                   "prompts through can_use_tool",
    "extra_args": "leave that flag out",
    "add_dirs": "leave it out: run the session in the directory it needs (cwd)",
    "plugins": "leave it out: declare tools in the config (a plugin's hooks and settings "
               "decide by themselves)",
    "setting_sources": "leave it out, or pass [] to load no settings files",
    "skills": "leave it out: skills become tools allowed without asking toolhost",
    "agents": "leave it out: an agent may carry its own permission mode, tools and hooks",
}


def as_cli_args(name: str, value: Any) -> list[str]:
    """The CLI arguments ``claude_agent_sdk`` makes of the option ``name`` (those
    ``weakening`` has something to say about; [] for the rest)."""
    if value is None:
        return []
    if name == "permission_mode":
        return ["--permission-mode", str(value)]
    if name == "allowed_tools":
        tools = [value] if isinstance(value, str) else list(value)
        return ["--allowedTools", ",".join(map(str, tools))] if tools else []
    if name == "settings":
        return ["--settings", str(value)]
    if name == "permission_prompt_tool_name":
        return ["--permission-prompt-tool", str(value)]
    if name == "add_dirs":
        return [a for d in _items(value) for a in ("--add-dir", str(d))]
    if name == "plugins":
        return [a for _ in _items(value) for a in ("--plugin-dir", "PLUGIN")]
    if name == "setting_sources":  # [] loads no settings files: stricter, never refused
        sources = _items(value)
        return [f"--setting-sources={','.join(map(str, sources))}"] if sources else []
    if name == "skills":
        return ["--allowedTools", "Skill"] if value else []
    if name == "agents":
        return ["--agents", "AGENTS"] if value else []
    if name == "extra_args":
        if not isinstance(value, Mapping):
            return ["--extra_args-not-a-mapping"]
        return [f"--{flag}" if arg is None else f"--{flag}={arg}"
                for flag, arg in value.items()]
    return []


def _items(value: Any) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return [value]
    return list(value)


def refused(kwargs: Mapping[str, Any], can_use_tool: Callable[..., Any]) -> str | None:
    """Why one of ``kwargs`` may not be passed to ``ClaudeAgentOptions`` by ``options()``
    (one line, with what to do instead), or None when they are all fine."""
    if "can_use_tool" in kwargs and kwargs["can_use_tool"] != can_use_tool:
        return ("can_use_tool is this host's own (the config's rules); another callback "
                "would decide without them. Call host.can_use_tool from yours if you wrap it")
    for name in _WHAT_TO_DO:
        args = as_cli_args(name, kwargs.get(name))
        if name == "extra_args" and args == ["--extra_args-not-a-mapping"]:
            return "extra_args must be a mapping of flag names to values"
        found = weakening(args)
        if found is not None:
            return (f"{name}={cut(repr(kwargs[name]), 80)}: {found[1]}; "
                    f"{_WHAT_TO_DO[name]}")
    return None

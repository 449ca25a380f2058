"""JSON Schema of the ``python`` block (the loader reports bad keys with it, by key path).

Its own small module so that a config without python tools never imports the backend
(``inspect``-based signatures, the loop-hold watch, the call machinery): the registry holds
``python`` as a ``LazyKind`` built from this schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.backends.python_import import REF_PATTERN
from toolhost.backends.worker_env import NAME_PATTERN

__all__ = ["ISOLATIONS", "OPTIONS_SCHEMA"]

ISOLATIONS = ("in-process", "process")

OPTIONS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "description": "Call a Python function; its signature and docstring give the schema.",
    "properties": {
        "function": {
            "type": "string",
            "pattern": REF_PATTERN,
            "description": "Import path 'package.module:function' or "
                           "'package.module:object.method'.",
        },
        "path": {
            "description": "Directories to import from (appended to sys.path), relative "
                           "to the config file; that file's own directory always is. At "
                           "most 100: every import of a module not yet loaded looks in "
                           "each directory on sys.path.",
            "type": ["string", "array"], "items": {"type": "string"}, "maxItems": 100,
        },
        "isolation": {
            "enum": list(ISOLATIONS),
            "description": "in-process (default): a sync function runs in a thread of "
                           "toolhost's bounded pool; process: in a worker process that is "
                           "killed on timeout, cancel or crash.",
        },
        "workers": {
            "type": "integer", "minimum": 1, "maximum": 64,
            "description": "isolation: process: at most this many worker processes (and "
                           "concurrent calls) for the tool (default 2).",
        },
        "max_memory": {
            "type": ["integer", "string"], "minimum": 1, "maximum": 1 << 40,
            "description": "isolation: process: the most memory a worker may allocate "
                           "(bytes, or a size such as 2GiB; at least 512MiB): past it an "
                           "allocation fails (MemoryError) instead of growing the worker "
                           "until its timeout or the OOM killer.",
        },
        "pass_env": {
            "type": "array", "maxItems": 100,
            "items": {"type": "string", "maxLength": 256, "pattern": NAME_PATTERN},
            "description": "isolation: process: host environment variables the worker "
                           "gets besides its minimal base and the server's env: names, "
                           "prefixes ('AWS_*'), or '*' for all of them.",
        },
        "blocking": {
            "type": "boolean",
            "description": "false: the def never blocks (quick code, no I/O or waits): it runs "
                           "on the event loop, as an async def with no await does, without "
                           "the hand-off to a pool thread. While it runs no other call is "
                           "answered; one that holds the loop is stopped as an async def "
                           "is (its timeout, at least a second in). Default true.",
        },
        "allow_untyped": {
            "type": "boolean",
            "description": "Accept parameters with no usable type annotation (the model "
                           "may then pass any JSON value).",
        },
        "dangerously_allow_entry_point": {
            "type": "boolean",
            "description": "Accept a function from os, subprocess, builtins, shutil and "
                           "the like, or eval/exec-like: the model chooses its arguments.",
        },
    },
    "required": ["function"],
    "additionalProperties": False,
}

"""JSON Schema of the ``command`` block (the loader reports bad keys with it, by key path)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["OPTIONS_SCHEMA"]

_ELEMENT: dict[str, Any] = {
    "anyOf": [
        {"type": ["string", "number", "integer"],
         "description": "One argument, a jinja2 template; always one argument, even when "
                        "empty, unless it prints no value ('{% if v %}-v{% endif %}'). "
                        "Exactly '{{ name }}' with a list value expands into several."},
        {"type": "object",
         "description": "Repeat a group of arguments for each item of a list param.",
         "properties": {
             "each": {"type": "string", "description": "The list param to iterate."},
             "argv": {"type": "array", "minItems": 1,
                      "items": {"type": ["string", "number", "integer"]},
                      "description": "Templates rendered per item; the item is 'item'."},
         },
         "required": ["each", "argv"], "additionalProperties": False},
        {"type": "object",
         "description": "A group of arguments present only when the param is given (not left "
                        "out, not null, not false): {if: out, argv: [-o, '{{ out }}']}.",
         "properties": {
             "if": {"type": "string", "description": "The param that must be given."},
             "argv": {"type": "array", "minItems": 1,
                      "items": {"type": ["string", "number", "integer"]},
                      "description": "Templates, each one argument."},
         },
         "required": ["if", "argv"], "additionalProperties": False},
    ],
}

OPTIONS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "description": "Run a program (never a shell) with arguments rendered from the call.",
    "properties": {
        "argv": {"type": "array", "minItems": 1, "items": _ELEMENT,
                 "description": "The program and its arguments; the program must be literal."},
        "stdin": {"type": "string", "description": "Template written to the program's stdin."},
        "env": {"type": "object", "additionalProperties": {"type": ["string", "number"]},
                # a name the OS cannot hold (empty, '=' or NUL in it) failed every call
                "propertyNames": {"minLength": 1, "pattern": "^[^=\u0000]*$",
                                  "description": "A variable's name holds no '=' or NUL."},
                "description": "Extra environment variables (templates), merged onto a "
                               "minimal base of PATH, HOME, LANG and the server's env."},
        "cwd": {"type": "string", "description": "Working directory, relative to the config "
                                                 "file (default: the server's)."},
        "max_output_bytes": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1,
                             "description": "Stop the program once stdout passes this many "
                                            "bytes (default 1,000,000)."},
        "max_memory": {"type": ["integer", "string"], "minimum": 1, "maximum": 1 << 40,
                       "description": "The most memory the program, and each process it "
                                      "starts, may allocate (bytes, or a size such as 1GiB; "
                                      "at least 16MiB; Linux): past it an allocation fails."},
        "stdout": {"enum": ["text", "json", "lines", "binary"],
                   "description": "How to read stdout: text, json (-> structuredContent), "
                                  "lines (-> {lines: [...]}) or binary (an image, audio or "
                                  "blob resource, by mime_type or sniffed)."},
        "mime_type": {"type": "string", "pattern": "^[a-z]+/[A-Za-z0-9.+-]+$",
                      "examples": ["image/png"],
                      "description": "With stdout: binary, the type of the output (default: "
                                     "sniffed from its first bytes)."},
        "allow_dash": {"type": "array", "items": {"type": "string"}, "uniqueItems": True,
                       "description": "Params whose values may start with '-' where the "
                                      "program could read them as options (refused by "
                                      "default unless a literal '--' comes before)."},
        "allow_remote": {
            "type": "boolean",
            "description": "Let a value make an operand another host's ('host:path' for scp, "
                           "rsync and tar): the model would choose the host they connect to "
                           "with your ssh keys. Default false: such a call is refused."},
        "unsafe_code_placeholders": {
            "type": "boolean",
            "description": "Allow placeholders inside code an interpreter runs (sh -c, "
                           "python -c, awk and sed programs, ...). Unsafe: a value becomes "
                           "code. Default false."},
        "ok_codes": {"type": "array", "minItems": 1,
                     "items": {"type": "integer", "minimum": -255, "maximum": 255},
                     "description": "Exit codes that mean success (default [0])."},
        "stderr": {"enum": ["error", "log"],
                   "description": "error (default): the end of stderr is shown when the "
                                  "command fails. log: also send each line, as it is "
                                  "written, to the MCP client as a log message (level from "
                                  "a leading 'error:', 'warning:' or 'debug:', else info)."},
    },
    "required": ["argv"],
    "additionalProperties": False,
}

"""JSON given on the command line, read one guarded way by every command.

``permissions check --input``, ``call --json`` and ``call key=value`` take JSON text, and
``@FILE`` (and for ``--input``, ``-`` for stdin) in place of it. The text is as hostile as a
config: a file is read only if it is a regular file under the size cap (a FIFO or
``/dev/zero`` is refused without reading it), stdin is read up to the cap, and the JSON is
parsed by ``toolhost.jsontext.parse_json`` (nesting at most the wire's 256 levels, integers
of at most 4,000 digits, no NaN or Infinity, no key twice). Every failure is one line that
names the flag.
"""

from __future__ import annotations

import sys
from typing import Any

from toolhost.excerpt import cut
from toolhost.jsontext import JsonTextError, parse_json, read_json_file
from toolhost.limits import DEFAULT_LIMITS

__all__ = ["MAX_JSON_ARGUMENT_BYTES", "JsonArgumentError", "json_argument", "json_text"]

MAX_JSON_ARGUMENT_BYTES = DEFAULT_LIMITS.max_argument_bytes  # what the wire takes, 16 MiB


class JsonArgumentError(ValueError):
    """A JSON argument that cannot be used; the message names the flag."""


def json_text(flag: str, text: str) -> Any:
    """The value of JSON ``text`` given as ``flag``; JsonArgumentError if it is not
    acceptable (its ``__cause__``, a JsonTextError, tells "not JSON" from "refused")."""
    if len(text) > MAX_JSON_ARGUMENT_BYTES:
        raise JsonArgumentError(f"{flag}: {len(text):,} characters of JSON; the limit is "
                                f"{MAX_JSON_ARGUMENT_BYTES:,}")
    try:
        return parse_json(text)
    except JsonTextError as exc:
        where = f" ({exc.where()})" if exc.line else ""
        what = f"{flag} is not JSON: " if exc.syntax else f"{flag}: "
        raise JsonArgumentError(f"{what}{exc.message}{where}{_shape_hint(text, exc.syntax)}") \
            from exc


def _shape_hint(text: str, syntax: bool) -> str:
    """How to write a JSON object, for text written another way (``name=x``, ``{name: x}``,
    ``{'name': 'x'}``)."""
    stripped = text.strip()
    if not syntax or not stripped:
        return ""
    key, eq, value = stripped.partition("=")
    if eq and key.isidentifier():
        return f"; write a JSON object: '{{\"{key}\": \"{value}\"}}'"
    if stripped.startswith("{"):
        return "; JSON quotes every key and text value with double quotes: '{\"name\": \"x\"}'"
    return ""


def json_argument(flag: str, value: str, *, stdin: bool = False) -> Any:
    """The JSON value of ``flag``: ``value`` itself, ``@FILE``'s content, or with ``stdin``
    what ``-`` reads from stdin. JsonArgumentError, naming the flag, if it cannot be used."""
    if stdin and value == "-":
        return json_text(f"{flag} -", _read_stdin(flag))
    if value == "@":  # `--json @$FILE` with FILE unset
        raise JsonArgumentError(f"{flag} @: no file named after the @ (write @FILE, e.g. "
                                "@args.json)")
    if value.startswith("@"):
        from toolhost.errors import Problem

        problems: list[Problem] = []
        read = read_json_file(value[1:], problems, what=f"{flag} file",
                              limit=MAX_JSON_ARGUMENT_BYTES)
        if read is None:
            raise JsonArgumentError(f"{flag} @{cut(value[1:], 120)}: {problems[0]}")
        return read[1]
    return json_text(flag, value)


def _read_stdin(flag: str) -> str:
    """Stdin up to the cap (one byte more tells that it went past it)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise JsonArgumentError(f"{flag} -: there is no stdin to read")
    try:
        data = stream.read(MAX_JSON_ARGUMENT_BYTES + 1)
    except OSError as exc:
        raise JsonArgumentError(f"{flag} -: cannot read stdin: {exc.strerror or exc}") from None
    if len(data) > MAX_JSON_ARGUMENT_BYTES:
        raise JsonArgumentError(f"{flag} -: stdin holds more than the limit of "
                                f"{MAX_JSON_ARGUMENT_BYTES:,} bytes")
    try:
        text: str = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonArgumentError(f"{flag} -: not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                                f"offset {exc.start:,})") from None
    return text[1:] if text.startswith("\ufeff") else text

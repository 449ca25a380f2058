"""JSON on the hot path: orjson when it is installed (the ``fast`` extra), else nothing.

Every message ``toolhost run`` serves is parsed once and answered with one encoded line, and
each permission decision writes an audit line: with the standard library that is ~3.5 µs a
parse and ~3.5 µs an encode on a small line, with orjson ~1 and ~0.3 (docs/protocol.md,
"Performance notes"). orjson is only ever a shortcut to the *same* result:

- ``loads`` returns what ``json.loads`` would, or ``NOT_FAST`` when it cannot promise that
  (orjson missing, or refusing the text, or the text holding a run of 19 or more digits:
  orjson reads an integer past 64 bits as a float, the standard library exactly). The
  caller then parses it the standard way, with its own limits and error messages, so every
  refusal (``NaN``, a lone surrogate, a byte order mark, bad UTF-8) reads as before.
- ``dumps`` returns the compact UTF-8 JSON of a value, or ``NOT_FAST`` for anything orjson
  would encode differently or not at all (an integer past 64 bits, a key that is not a
  string, a lone surrogate, a dataclass, a datetime, a subclass of a JSON type, nesting
  past orjson's limit): the caller encodes that one with the standard library as before.
  Where the standard library refuses a value outright, orjson may still write it: a plain
  ``Enum`` member as its value, a ``UUID`` as its text (an ``IntEnum`` or ``str`` enum is
  written the same either way); a float NaN or infinity becomes ``null`` (the answer line's
  standard encoder wrote ``NaN``, which is not JSON). toolhost's own messages hold none.

``TOOLHOST_PURE_JSON=1`` in the environment turns the shortcut off (tests run both ways).
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any, Final

__all__ = ["AVAILABLE", "NOT_FAST", "dumps", "loads"]

orjson: ModuleType | None
try:
    if os.environ.get("TOOLHOST_PURE_JSON") == "1":
        raise ImportError("TOOLHOST_PURE_JSON=1")
    import orjson
except ImportError:  # the fast extra is not installed: the standard library does it all
    orjson = None

AVAILABLE: Final = orjson is not None
"""Whether the shortcut is on."""


class _NotFast:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_FAST"


NOT_FAST: Final[Any] = _NotFast()
"""What ``loads`` and ``dumps`` return when the standard library must do the job."""

# An integer of 19+ digits may not fit 64 bits (orjson would read it as a float). Digits in
# strings count too: those few lines take the standard path, which is only slower. (Every
# digit made "0" and every other byte a space, then one substring search: a regex search
# costs five times that on a 300-byte line.)
_DIGITS_ONLY = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19


def _refuse(value: Any) -> Any:
    raise TypeError("left to the standard library")


if orjson is not None:
    _orjson_loads = orjson.loads
    _orjson_dumps = orjson.dumps
    _DecodeError = orjson.JSONDecodeError
    # Dataclasses, datetimes and subclasses of str/int/dict/list go to ``default``, which
    # refuses them: the standard library encodes those as it always did (or refuses them).
    _OPTIONS = (orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
                | orjson.OPT_PASSTHROUGH_SUBCLASS)
    _LINE = _OPTIONS | orjson.OPT_APPEND_NEWLINE

    def loads(data: bytes) -> Any:
        """The value of the JSON text ``data``, or ``NOT_FAST`` (see the module text)."""
        # find, not ``in``: bytes' ``in`` tries its operand as an int first (a TypeError
        # raised and cleared, ~1,200 instructions on 3.11) before it searches
        if data.translate(_DIGITS_ONLY).find(_LONG_RUN) >= 0:
            return NOT_FAST
        try:
            return _orjson_loads(data)
        except _DecodeError:
            return NOT_FAST

    def dumps(value: Any, *, newline: bool = False) -> Any:
        """Compact UTF-8 JSON of ``value`` (bytes; a ``\\n`` after it with ``newline``), or
        ``NOT_FAST`` (see the module text)."""
        try:
            return _orjson_dumps(value, _refuse, _LINE if newline else _OPTIONS)
        except TypeError:  # orjson.JSONEncodeError included
            return NOT_FAST
else:
    def loads(data: bytes) -> Any:
        """The value of the JSON text ``data``, or ``NOT_FAST`` (see the module text)."""
        return NOT_FAST

    def dumps(value: Any, *, newline: bool = False) -> Any:
        """Compact UTF-8 JSON of ``value`` (bytes; a ``\\n`` after it with ``newline``), or
        ``NOT_FAST`` (see the module text)."""
        return NOT_FAST

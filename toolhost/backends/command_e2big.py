"""The result of a command the system refused to start for its size (``E2BIG``).

Linux limits one argument to 131,072 bytes (``MAX_ARG_STRLEN``) and the arguments and
environment together to about a quarter of the stack limit (2 MB by default). A model that
passes a large text where the config prints a param into the argv meets either limit; the
OS's own words (``[Errno 7] Argument list too long``) name neither the param nor the way
out, so the result names the largest value and says to pass such data on stdin.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ARG_MAX_ONE", "too_long"]

ARG_MAX_ONE = 32 * 4096  # Linux's MAX_ARG_STRLEN: one argument, its NUL included


def too_long(program: str, argv: Sequence[str], env: Mapping[str, str],
             arguments: Mapping[str, Any]) -> str:
    """One line: how large the command line was, which value made it so, what to do."""
    total = sum(_bytes(a) + 1 for a in argv) + sum(_bytes(k) + _bytes(v) + 2
                                                   for k, v in env.items())
    longest = max((_bytes(a) for a in argv), default=0)
    detail = f"about {total:,} bytes of arguments and environment"
    if longest + 1 > ARG_MAX_ONE:
        detail += (f"; one argument is {longest:,} bytes, over the system's "
                   f"{ARG_MAX_ONE - 1:,} per argument")
    sizes = {name: _size(value) for name, value in arguments.items()}
    named = ""
    if sizes:
        name = max(sizes, key=lambda n: sizes[n])
        named = f": the value of {name!r} is {sizes[name]:,} bytes"
    return (f"The command line of '{program}' is too long for the system to start it "
            f"({detail}){named}. Pass large data on the tool's stdin (stdin: \"{{{{ param }}}}\") "
            "or in a file, not in the argv.")


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _size(value: Any) -> int:
    if isinstance(value, str):
        return _bytes(value)
    try:
        return _bytes(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return 0

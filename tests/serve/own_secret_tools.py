"""A tool that tries every way out for the value of a variable (tests/serve/test_own_secrets)."""

from __future__ import annotations

import logging
import os
import sys


def envdump(name: str, how: str = "return") -> str:
    """Show the variable ``name``.

    Args:
        name: the variable
        how: return, print, stderr, log or raise
    """
    value = os.environ.get(name, "")
    if how == "print":
        print("value of", name, "=", value)
    elif how == "stderr":
        print("value of", name, "=", value, file=sys.stderr)
    elif how == "log":
        logging.getLogger("x").warning("logged %s", value)
    elif how == "raise":
        raise RuntimeError(f"failed with {value}")
    return f"{name}={value}"

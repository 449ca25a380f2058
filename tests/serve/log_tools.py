"""Tools that write to stdout and stderr themselves (tests/serve/test_log_lines)."""

from __future__ import annotations

import logging
import sys


def noisy(text: str) -> str:
    """Print ``text`` to stdout and stderr, log it, and answer ok.

    Args:
        text: what to write
    """
    print(text)
    print(text, file=sys.stderr)
    logging.getLogger("noisy.lib").warning("lib says %s", text)
    return "ok"

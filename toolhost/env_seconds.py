"""A number of seconds read from an environment variable, within bounds.

``TOOLHOST_INTERRUPT_GRACE``, ``TOOLHOST_SIGNAL_GRACE`` and ``TOOLHOST_SHUTDOWN_QUIET`` are
read the same way: a number inside the documented range, else the default (never an error:
a bad value must not keep a run or a shutdown from happening).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

__all__ = ["env_seconds"]

log = logging.getLogger("toolhost")


def env_seconds(name: str, default: float, low: float, high: float, *,
                environ: Mapping[str, str] | None = None, warn: bool = False) -> float:
    """``$name`` as seconds when it is a number from ``low`` to ``high`` (NaN is not), else
    ``default``; ``warn``: an unset or empty value is quiet, any other bad one is logged."""
    raw = (os.environ if environ is None else environ).get(name, "")
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if low <= value <= high:
        return value
    if warn and raw.strip():
        log.warning("%s=%r is not a number of seconds from %g to %g; using %g s", name,
                    raw[:40], low, high, default)
    return default

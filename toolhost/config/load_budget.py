"""One values budget for a whole load: every file it reads (the project file, its layers,
every ``extends`` fragment, local, packaged or from a shared repository) draws on the same
``TOOLHOST_MAX_CONFIG_VALUES``. A per-file cap alone let ten fragments of 480,000 values each
swell a load to gigabytes.

``load_merged`` opens the budget; each file's parser counts against what is left (so the file
that passes the total is stopped where it passes it, before it is built), and the loader
charges each file it read. Outside a load (``toolhost update`` reading one file) the cap is
per file, as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from toolhost.config.limits import LIMITS

__all__ = ["spend_values", "values_budget", "values_left", "values_message"]

_SPENT: ContextVar[list[int] | None] = ContextVar("toolhost_values_spent", default=None)


@contextlib.contextmanager
def values_budget() -> Iterator[None]:
    """Every file parsed in this block shares one values budget."""
    token = _SPENT.set([0])
    try:
        yield
    finally:
        _SPENT.reset(token)


def values_left() -> int:
    """The values the next file may hold: the cap, less what the load has read so far."""
    spent = _SPENT.get()
    return LIMITS.values - (spent[0] if spent else 0)


def spend_values(count: int) -> None:
    """Charge ``count`` values (one file's) to the load's budget, if there is one."""
    spent = _SPENT.get()
    if spent is not None:
        spent[0] += count


def values_message(left: int, what: str = "scalars, keys, lists, mappings") -> str:
    """The message for passing ``left``, the limit the parser was given."""
    limit = LIMITS.values
    if left >= limit:
        return f"more than {limit:,} values ({what}) in one file"
    return (f"more than {limit:,} values ({what}) in this load: this file passes the total "
            f"after {limit - left:,} in the files read before it (extends, layers)")

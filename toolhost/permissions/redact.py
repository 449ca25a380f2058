"""Hiding secrets in arguments before a person or a log file sees them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["SECRET_KEY", "redact_value"]

# Argument names whose values are never shown, whatever they contain.
SECRET_KEY = re.compile(
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|auth(orization)?|credentials?|"
    r"private[_-]?key|cookie|session[_-]?id)$", re.IGNORECASE)


def redact_value(value: Any, redact: Callable[[str], str] = lambda s: s) -> Any:
    """A copy of ``value`` with secret-named keys masked and ``redact`` applied to strings."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {str(k): "***" if SECRET_KEY.search(str(k)) and v not in (None, "")
                else redact_value(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, redact) for v in value]
    return value

"""What redaction writes in a secret's place, and the names and words it knows: leaf values
``redactor`` and ``values`` both read (neither imports the other for them)."""

from __future__ import annotations

import re

__all__ = ["JSON_WORDS", "MASK", "MAX_SECRET", "SECRET_KEY"]

MASK = "***"
# The longest secret a config or ``serve`` takes (a located error past it): each secret's
# forms cost a set-up linear in its length (~10 us a character: 200,000 cost 2-25 s on each
# load), and a PEM key, a JWT or a cloud key file is a few KiB. A ``Redactor`` built directly
# takes any length (and pays for it).
MAX_SECRET = 65_536
JSON_WORDS = frozenset({"true", "false", "null"})  # never hidden (see Redactor)
# Argument names whose values are never shown, whatever they contain.
SECRET_KEY = re.compile(
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|auth(orization)?|credentials?|"
    r"private[_-]?key|cookie|session[_-]?id|access[_-]?key|client[_-]?secret)$",
    re.IGNORECASE)

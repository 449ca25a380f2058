"""Secrets never leave toolhost, in any form: one ``Redactor`` used everywhere it writes.

A ``Redactor`` holds the secret values of a config (see docs/secrets.md for which values those
are) and replaces each one with ``***`` in the forms a secret takes on its way out: each
character in any of its spellings (itself; a backslash escape as JSON, JSON inside JSON or
``repr()`` write it; percent-encoded; an HTML character reference), in any mix; the secret's
NFC and NFD forms and its UTF-8 read as Latin-1; in any case when it has 8 characters or more
(``spell``); and base64/base64url at any alignment inside a longer base64
string, and hex (``toolhost.redaction.forms``); base64 and hex wrapped over lines
(``toolhost.redaction.wrapped``); hex dumps (``toolhost.redaction.hexdump``); characters
spaced out, as ``od -c`` writes them (``toolhost.redaction.chardump``).

RE2 finds candidates in one pass and only they are tried whole (``redaction.spell.Matcher``).
Redact before cutting: ``toolhost.excerpt.cut`` does, through ``scrub``; a stream redacts
across its pieces (``stream_split``, ``ScrubbingStream``).

``mask`` also hides the value of any argument whose *name* says it is a secret (``token``,
``password``, ``api_key``, ``authorization``, ...), whatever it contains: that is how the
audit log, the ask prompt, the ``run`` transcript and ``call`` show arguments.

The process remembers every secret of every config it loaded (``remember``); ``scrub`` hides
them all, and ``ScrubbingStream`` applies it to ``sys.stdout``/``sys.stderr`` at CLI entry, so
a traceback or a log line cannot carry a secret either.
"""

from __future__ import annotations

from toolhost.redaction.process import (
    active,
    own_secrets,
    remember,
    remember_own,
    scrub,
)
from toolhost.redaction.redactor import (
    JSON_WORDS,
    MASK,
    MAX_SECRET,
    SECRET_KEY,
    Redactor,
    redactor_for,
)
from toolhost.scrub_stream import ScrubbingStream  # (it finds the process's secrets lazily)

__all__ = ["JSON_WORDS", "MASK", "MAX_SECRET", "SECRET_KEY", "Redactor", "ScrubbingStream",
           "active", "own_secrets", "redactor_for", "remember", "remember_own", "scrub"]

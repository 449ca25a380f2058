"""Typed reads of config values that collect Problems instead of raising.

Every reader takes the mapping that holds the key and the key path of that mapping, so a
problem can always name the file, line, column and key path. Readers return ``None`` (and
record a problem) when a value has the wrong type; the caller carries on, so one run reports
every problem of a file.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from toolhost.config.limits import MAX_DIGITS, MAX_INT_BITS
from toolhost.config.model import Origin
from toolhost.config.tree import LazyMarks, LazyOrigin, Mark, Path, format_path, mark_for
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["MAX_DURATION", "MAX_INTEGER", "Checker", "describe", "did_you_mean",
           "parse_duration", "shown"]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 token
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)\s*$")
# a number written as text ("5", " 2.5 "): what a ${...} value in a numeric key holds
_NUMBER_TEXT = re.compile(r"\s*[0-9]+(?:\.[0-9]+)?\s*")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
# 7 days: a timeout handed to the Claude CLI in milliseconds stays below 2**31 (JavaScript
# timers fire at once beyond it), and no float conversion overflows
MAX_DURATION = 7 * 86400.0
# 1 ms: a timeout is handed on in whole milliseconds (the Claude CLI, asyncio's timers), so a
# shorter one (``1e-320``, ``0.0001``, ``"0.5ms"``) would become 0, "no timeout", or fire at once
MIN_DURATION = 0.001
# the largest count or size a config key takes: every consumer can hold it in a C int
MAX_INTEGER = 2**31 - 1


class TomlDate(str):
    """A TOML date, as the ISO text the model holds (JSON has no dates): still a string to
    every consumer, but named for what was written in "expected X, got Y" messages."""

    what = "a date"


class TomlDateTime(TomlDate):
    what = "a date and time"


class TomlTime(TomlDate):
    what = "a time"


def describe(value: Any) -> str:
    """The config-language name of a value's type, for "expected X, got Y"."""
    if isinstance(value, TomlDate):
        return f"{value.what} ({value[:40]})"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__  # pragma: no cover


def did_you_mean(word: str, choices: Collection[str]) -> str:
    from toolhost.typos import close_matches

    close = close_matches(word, choices)
    return f"did you mean '{close[0]}'?" if close else ""


def parse_duration(value: Any) -> float | None:
    """``5`` / ``2.5`` (seconds) or ``"500ms"``, ``"5s"``, ``"2m"``, ``"1h"``, at least
    ``MIN_DURATION`` (1 ms) and at most ``MAX_DURATION``; None if invalid."""
    seconds = _seconds(value)
    return seconds if seconds is not None and MIN_DURATION <= seconds <= MAX_DURATION else None


def _seconds(value: Any) -> float | None:
    """The seconds a duration value says, above 0 but unbounded below (None: not a duration,
    not above 0, or past ``MAX_DURATION``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        # compared before float(): an int of 309+ digits has no float
        return float(value) if 0 < value <= MAX_DURATION else None
    if isinstance(value, str) and len(value) <= 40:
        found = _DURATION.match(value)
        if found:
            seconds = float(found[1]) * _UNITS[found[2]]
            return seconds if 0 < seconds <= MAX_DURATION else None
    return None


# a float where text is passed on (argv, env, headers, credentials): the text is gone
FLOAT_HINT = "quote it (\"1.10\", not 1.10) to pass the text as written"


def shown(value: Any) -> str:
    """A value as the message shows it: a 4,000-digit integer or a long string is cut."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 200 else \
        f"an integer of {_digits(value)} digits"
    return text if len(text) <= 60 else f"{text[:50]}... ({len(text):,} characters)"


# problems of one load shown at most (the rest are counted in one more line): a file with
# 100,000 mistakes is not helped by 100,000 lines, and printing them took seconds
MAX_PROBLEMS = 1000


def capped(problems: list[Problem], file: str) -> list[Problem]:
    """``problems`` (in the order shown), at most ``MAX_PROBLEMS`` of them and a last line
    counting the rest."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    rest = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS],
            Problem(f"... and {rest:,} more not shown", file,
                    hint=f"the first {MAX_PROBLEMS:,} are listed; fix them and check again")]


def _digits(value: int) -> str:
    """How many decimal digits ``value`` has, without printing one past Python's limit."""
    if value.bit_length() > MAX_INT_BITS:
        return f"more than {MAX_DIGITS:,}"
    return f"{len(str(abs(value))):,}"


class Checker:
    """Reads values out of merged config data, recording what is wrong and where."""

    def __init__(self, marks: Mapping[Path, Mark], file: str,
                 redact: Any = None,
                 substituted: Mapping[Path, tuple[str, tuple[tuple[int, int], ...]]]
                 | None = None, spelled: Mapping[Path, str] | None = None) -> None:
        self.marks = marks  # not copied: TOML's marks are made when one is first read
        self.file = file
        self.spelled = spelled or {}  # integers not written as Python writes them
        # what ${...} interpolation changed (``Doc.substituted``): the text as written, and
        # where substituted values sit in the result
        self.substituted = substituted or {}
        self.problems: list[Problem] = []
        self._redact = redact or (lambda text: text)

    def mark(self, path: Path) -> Mark:
        return mark_for(self.marks, path, self.file)

    def origin(self, path: Path) -> Origin:
        """Where ``path`` was written, for the model: marks not made yet (a TOML file's)
        are made only if the origin's line is read."""
        marks = self.marks
        if isinstance(marks, LazyMarks) and not marks.scanned:
            return LazyOrigin(marks, path, self.file)
        return self.mark(path).origin(path)

    def place(self, path: Path) -> tuple[str, str]:
        """The file and the layer ``path`` was written in, without making lazy marks."""
        marks = self.marks
        if isinstance(marks, LazyMarks) and not marks.scanned:
            return marks.file, marks.layer
        mark = self.mark(path)
        return mark.file, mark.layer

    def problem(self, path: Path, message: str, hint: str = "") -> None:
        mark = self.mark(path)
        self.problems.append(Problem(self._redact(message), mark.file, mark.line, mark.column,
                                     format_path(path), self._redact(hint)))

    def expected(self, path: Path, what: str, value: Any) -> None:
        self.problem(path, f"expected {what}, got {describe(value)}",
                     self.word_hint(path, value, what))

    def word_hint(self, path: Path, value: Any, what: str) -> str:
        """Where text is wanted (``what`` names a string) and ``value`` is a boolean or null:
        ``country: NO``, ``description: on``, ``name: ~`` (YAML read the word, not the
        text)."""
        if not (isinstance(value, bool) or value is None) or "string" not in what:
            return ""
        yaml = not self.place(path)[0].endswith(".toml")
        if isinstance(value, bool):
            return ("unquoted, YAML reads yes/no, on/off, true/false (any case) as a boolean: "
                    "quote the text, as in \"no\"") if yaml else "quote the text, as in \"true\""
        return ("unquoted, ~, null and an empty value are null in YAML: quote the text "
                "(\"~\"), or remove the key") if yaml else ""

    # -- shapes ---------------------------------------------------------------------------

    def mapping(self, value: Any, path: Path) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.expected(path, "a mapping", value)
        return None

    def known_keys(self, data: Mapping[str, Any], path: Path, allowed: Collection[str],
                   elsewhere: Mapping[str, str] | None = None) -> None:
        """Report every key of ``data`` not in ``allowed``, with where it belongs when it is
        a key of another level (``elsewhere``: key -> hint), else the nearest valid one."""
        for key in data:
            if key not in allowed:
                # a near miss costs a fuzzy match: past MAX_PROBLEMS nobody reads the hints
                hint = ((elsewhere or {}).get(key) or did_you_mean(key, allowed)
                        or _known_here(allowed) if len(self.problems) < MAX_PROBLEMS else "")
                self.problem((*path, key), "unknown key", hint)

    def require(self, data: Mapping[str, Any], path: Path, key: str, what: str) -> bool:
        if key in data:
            return True
        self.problem(path, f"missing required key '{key}' ({what})")
        return False

    # -- scalars (each reads data[key] at path+key; absent -> None, no problem) -------------

    def string(self, data: Mapping[str, Any], path: Path, key: str) -> str | None:
        value = data.get(key)
        if value is None or isinstance(value, str):
            if key in data and value is None:
                self.expected((*path, key), "a string", value)
            return value
        self.expected((*path, key), "a string", value)
        return None

    def integer(self, data: Mapping[str, Any], path: Path, key: str,
                minimum: int | None = None, maximum: int = MAX_INTEGER) -> int | None:
        if key not in data:
            return None
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and _NUMBER_TEXT.fullmatch(value):
                self.problem((*path, key), f"expected an integer, got {describe(value)}",
                             "a ${...} value (or a quoted number) is text: write the number "
                             "itself")
                return None
            self.expected((*path, key), "an integer", value)
            return None
        if minimum is not None and value < minimum:
            self.problem((*path, key), f"must be at least {minimum}, got {shown(value)}")
            return None
        if value > maximum:
            self.problem((*path, key), f"must be at most {maximum:,}, got {shown(value)}")
            return None
        return value

    def boolean(self, data: Mapping[str, Any], path: Path, key: str) -> bool | None:
        if key not in data:
            return None
        value = data[key]
        if isinstance(value, bool):
            return value
        self.expected((*path, key), "true or false", value)
        return None

    def choice(self, data: Mapping[str, Any], path: Path, key: str,
               choices: Collection[str]) -> str | None:
        value = self.string(data, path, key)
        if value is None or value in choices:
            return value
        options = " | ".join(choices)
        self.problem((*path, key), f"expected one of {options}, got '{value}'",
                     did_you_mean(value, choices))
        return None

    def duration(self, data: Mapping[str, Any], path: Path, key: str) -> float | None:
        if key not in data:
            return None
        seconds = parse_duration(data[key])
        if seconds is None:
            value = data[key]
            tiny = _seconds(value)
            if tiny is not None and tiny < MIN_DURATION:
                self.problem((*path, key), f"{shown(value)} is shorter than 1 ms, the "
                             "shortest duration (a timeout is passed on in whole "
                             "milliseconds: this one would be 0)", "write at least '1ms' "
                             "(0.001)")
                return None
            # "5" is text: written quoted, or a ${...} value (always text)
            bare = isinstance(value, str) and _NUMBER_TEXT.fullmatch(value) is not None
            self.problem((*path, key), "expected a positive duration of at most 7 days: "
                         "seconds (5, 2.5) or a string like '500ms', '5s', '2m', got "
                         f"{shown(value)}", f"{cut(value.strip(), 40)!r} is text (quoted, or "
                         "a ${...} value, which is always text): give it a unit, "
                         f"'{cut(value.strip(), 40)}s'" if bare else "")
        return seconds

    def str_list(self, data: Mapping[str, Any], path: Path, key: str) -> list[str] | None:
        if key not in data:
            return None
        value = data[key]
        if not isinstance(value, list):
            self.expected((*path, key), "a list of strings", value)
            return None
        out = []
        for index, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            else:
                self.expected((*path, key, index), "a string", item)
        return out

    def header_map(self, data: Mapping[str, Any], path: Path, key: str
                   ) -> dict[str, str] | None:
        """``str_map`` of HTTP header fields: a name is a token, a value one line of printable
        ASCII (checked here, where the file says which, not at the first request)."""
        from toolhost.backends.http_headers import framing_reason

        headers = self.str_map(data, path, key)
        for name, value in (headers or {}).items():
            where = (*path, key, name)
            if not _TOKEN.fullmatch(name):
                self.problem(where, "not a valid header name (letters, digits and "
                             "!#$%&'*+-.^_`|~ only)")
            framing = framing_reason(name)
            if framing:
                self.problem(where, framing, "the URL says where a request goes; leave the "
                             "rest to the client")
            bad = next((c for c in value if not (" " <= c <= "~" or c == "\t")), None)
            if bad is not None:  # the value may be a secret: name the character only
                self.problem(where, f"a header value is one line of printable ASCII, and this "
                             f"one holds U+{ord(bad):04X}",
                             "percent-encode or base64 it if the server expects that")
        return headers

    def env_map(self, data: Mapping[str, Any], path: Path, key: str) -> dict[str, str] | None:
        """``str_map`` of environment variables: a name the OS can hold (not empty, no ``=``
        or NUL), checked here rather than failing every start of a program."""
        env = self.str_map(data, path, key)
        for name, item in (env or {}).items():
            if not name or "=" in name or "\0" in name:
                self.problem((*path, key, name), "not a possible environment variable name "
                             "(empty, or holding '=' or NUL)")
            elif "\0" in item:  # ("\0" in YAML, "\u0000" in TOML) no program gets it
                self.problem((*path, key, name), "an environment variable's value cannot "
                             "hold a NUL character")
        return env

    def str_map(self, data: Mapping[str, Any], path: Path, key: str) -> dict[str, str] | None:
        """A mapping of strings; integers are accepted and written as strings (env values). A
        float is refused: ``1.10`` would reach the program, the server or the header as
        ``1.1`` (the value is not shown: this may be a credential)."""
        if key not in data:
            return None
        value = self.mapping(data[key], (*path, key))
        if value is None:
            return None
        out = {}
        for name, item in value.items():
            if isinstance(item, str):
                out[name] = item
            elif isinstance(item, float):
                self.problem((*path, key, name), "a float would be passed as Python writes it "
                             "(1.10 as '1.1', 1e3 as '1000.0'), not as written", FLOAT_HINT)
            elif isinstance(item, int) and not isinstance(item, bool):
                wrong = self.spelled_int((*path, key, name), item)
                if wrong is None:
                    out[name] = str(item)
                else:
                    self.problem((*path, key, name), wrong[0], hint=wrong[1])
            else:
                self.expected((*path, key, name), "a string", item)
        return out

    def spelled_int(self, path: Path, value: int) -> tuple[str, str] | None:
        """(message, hint) when the integer ``value`` at ``path``, passed on as text, was
        written otherwise than Python writes it: ``0x10`` would reach the program (the
        server, the header) as '16', ``1_000`` as '1000', ``+12`` as '12'. Neither form is
        shown: the value may be a credential, and only Python's form of it is hidden."""
        if path not in self.spelled:
            return None
        return ("an integer written otherwise than Python writes it would be passed as Python "
                "writes it (0x10 as '16', 1_000 as '1000', +12 as '12'), not as written",
                "quote it (\"0x10\", not 0x10) to pass the text as written, or write the "
                "number in decimal")


def _known_here(allowed: Collection[str]) -> str:
    """The keys that are valid where an unknown one was written (no near miss to name)."""
    names = sorted(str(k) for k in allowed)
    if not names:
        return ""
    shown = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
    return f"the keys here: {shown}"

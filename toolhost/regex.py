"""Regular expressions from configs and rules, matched in linear time.

A pattern written in a config (a param's ``pattern``, a schema's ``pattern`` or
``format: regex``, a permission rule's ``regex``) is run against text the model chooses.
Python's ``re`` backtracks: ``^(a+)+$`` against forty ``a``s and ``!`` runs for hours. Every such
pattern goes through this module instead, which uses Google's RE2 (the ``google-re2``
package): matching time grows linearly with the text, whatever the pattern. RE2 has no
backreferences (``\\1``) and no lookaround (``(?=``, ``(?!``, ``(?<=``, ``(?<!``); a pattern
that needs them is refused when the config loads, with a hint, rather than matched wrongly.

::

    from toolhost import regex
    rx = regex.compile("^[a-z]+$")      # RegexError (a ValueError) when it cannot be honoured
    rx.search("abc"), rx.fullmatch("abc")
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["MAX_KEY_MATCHES", "MAX_PATTERN_CHARS", "Pattern", "RegexError", "compile", "problem",
           "validator_class"]

MAX_PATTERN_CHARS = 10_000
_MAX_MEM = 8 << 20  # RE2's own default: a pattern whose program needs more is refused
_SURROGATE = re.compile("[\ud800-\udfff]")


class RegexError(ValueError):
    """A pattern RE2 cannot compile; ``str()`` is one line with a hint where one helps."""


class Pattern:
    """A compiled pattern. ``search`` finds it anywhere (JSON Schema's ``pattern``);
    ``fullmatch`` needs the whole text to match (a rule's ``regex``)."""

    __slots__ = ("_rx", "pattern")

    def __init__(self, pattern: str, rx: Any) -> None:
        self.pattern = pattern
        self._rx = rx

    def search(self, text: str) -> bool:
        return self._rx.search(_encodable(text)) is not None

    def fullmatch(self, text: str) -> bool:
        return self._rx.fullmatch(_encodable(text)) is not None

    def first(self, text: str) -> str | None:
        """The text of the first match anywhere, or None."""
        found = self._rx.search(_encodable(text))
        return None if found is None else str(found.group(0))

    def groups(self, text: str) -> dict[str, str] | None:
        """The named groups when the whole text matches, else None; a text that cannot be
        matched as UTF-8 as it is (a lone surrogate) never matches, so no group is altered."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return None
        found = self._rx.fullmatch(text)
        return None if found is None else dict(found.groupdict())

    def __repr__(self) -> str:
        return f"regex.compile({self.pattern!r})"


def _encodable(text: str) -> str:
    # RE2 matches UTF-8; a lone surrogate (legal in JSON "\ud800") cannot be encoded, so it
    # is matched as U+FFFD, the character it stands for when decoded leniently
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


# Patterns RE2 surely compiles, proven without loading it (~2.5 ms): ASCII literals, ``.``,
# escapes, classes of characters and ascending ranges, each item repeated at most once (``*``,
# ``+``, ``?``, ``{n,m}`` up to 100, lazy or not), anchored or not; short, so the program stays
# far below the memory bound. What this cannot prove goes to RE2, which says why.
_PUNCT = r"\\[dDwWsS.\-/\\+*?()\[\]{}^$|]"
_CLASS_ITEM = rf"(?:[0-9]-[0-9]|[a-z]-[a-z]|[A-Z]-[A-Z]|[A-Za-z0-9 _.:/@,=%~#+*?()$|]|{_PUNCT})"
_COUNT = r"(?:[0-9]{1,2}|100)"
_SURE = re.compile(rf"\^?(?:(?:[A-Za-z0-9 _:/@,=%~#-]|\.|{_PUNCT}|\[\^?{_CLASS_ITEM}+-?\])"
                   rf"(?:(?:[*+?]|\{{{_COUNT}(?:,{_COUNT}?)?\}})\??)?)*\$?")
_RANGE = re.compile(r"([0-9A-Za-z])-([0-9A-Za-z])")
_BOUNDS = re.compile(r"\{([0-9]+),([0-9]+)\}")


def _surely_compiles(pattern: str) -> bool:
    return (len(pattern) <= 200 and _SURE.fullmatch(pattern) is not None
            and all(a <= b for a, b in _RANGE.findall(pattern))
            and all(int(n) <= int(m) for n, m in _BOUNDS.findall(pattern)))


def problem(pattern: str) -> str:
    """Why ``pattern`` cannot be used, or "" when it can."""
    if isinstance(pattern, str) and _surely_compiles(pattern):
        return ""  # RE2 compiles it at its first match
    try:
        compile(pattern)
    except RegexError as exc:
        return str(exc)
    return ""


@functools.lru_cache(maxsize=1024)
def compile(pattern: str) -> Pattern:
    """Compile ``pattern`` for RE2, or raise ``RegexError`` saying why (and what to write
    instead when the pattern uses a feature RE2 leaves out)."""
    if not isinstance(pattern, str):
        raise RegexError(f"a regular expression is a string, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise RegexError(f"regular expression too long ({len(pattern):,} characters, the "
                         f"limit is {MAX_PATTERN_CHARS:,})")
    import re2  # type: ignore[import-untyped]  # lazily: most commands never match a configured pattern

    options = re2.Options()
    options.log_errors = False  # RE2 would print to stderr itself
    options.max_mem = _MAX_MEM
    try:
        rx = re2.compile(pattern, options=options)
    except Exception as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise RegexError(_explain(pattern, str(reason))) from None
    return Pattern(pattern, rx)


def _explain(pattern: str, reason: str) -> str:
    from toolhost.excerpt import cut

    text = f"invalid regular expression: {cut(reason, 200)}"
    if "(?=" in reason or "(?!" in reason or "(?<" in reason:
        return (text + " (lookaround is not supported: toolhost matches patterns with RE2, "
                "in linear time; match the text itself, or split the check into two rules)")
    if "invalid escape sequence: \\" in reason and reason[-1:].isdigit():
        return (text + " (backreferences are not supported: toolhost matches patterns with "
                "RE2, in linear time; repeat the group instead of \\1)")
    if "pattern too large" in reason or "bad repetition" in reason:
        return text + " (the pattern is too large for a linear-time match: simplify it)"
    return text


MAX_KEY_MATCHES = 1_000_000  # keys of an argument times patternProperties patterns


@functools.lru_cache(maxsize=1)
def validator_class() -> Any:
    """``Draft202012Validator`` with ``pattern`` and ``format: regex`` answered by RE2: the
    class every tool's inputSchema is checked with. Built on first use (jsonschema is heavy)."""
    from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

    from toolhost.excerpt import cut

    def pattern(validator: Any, wanted: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "string"):
            return
        try:
            rx = compile(wanted)
        except RegexError as exc:
            yield ValidationError(f"the schema's pattern cannot be used: {exc}")
            return
        if not rx.search(instance):
            yield ValidationError(f"{cut(repr(instance))} does not match {cut(repr(wanted))}")

    def matches(wanted: Any, key: str) -> bool:
        try:
            return compile(wanted).search(key)
        except RegexError:
            return False  # check_schema and validate report the pattern itself

    def too_many(patterns: Any, instance: Any) -> Any:
        # each key is matched with each pattern: 5,000 patterns and 20,000 keys took minutes
        if len(patterns) * len(instance) > MAX_KEY_MATCHES:
            return ValidationError(
                f"an object of {len(instance):,} keys, with {len(patterns):,} "
                f"patternProperties, is more than {MAX_KEY_MATCHES:,} key-pattern matches to "
                "check: send fewer keys")
        return None

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        refused = too_many(patterns, instance)
        if refused is not None:
            yield refused
            return
        for wanted, subschema in patterns.items():
            for key, value in instance.items():
                if matches(wanted, key):
                    yield from validator.descend(value, subschema, path=key,
                                                 schema_path=wanted)

    def additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        declared = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        if too_many(patterns, instance) is not None:
            return  # said once, by patternProperties
        extras = [key for key in instance if key not in declared
                  and not any(matches(p, key) for p in patterns)]
        if validator.is_type(extra, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra, path=key)
        elif not extra and extras:
            shown = cut(", ".join(repr(key) for key in sorted(extras)))
            yield ValidationError(f"Additional properties are not allowed ({shown} "
                                  f"{'was' if len(extras) == 1 else 'were'} unexpected)")

    formats = FormatChecker()
    formats.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)

    from toolhost.jsonformats import CHECKERS

    # what jsonschema leaves to optional packages: ours, installed or not, so that a format
    # means the same on every machine
    for name, check in CHECKERS.items():
        formats.checks(name)(check)

    @formats.checks("regex", raises=RegexError)
    def is_regex(instance: object) -> bool:
        return not isinstance(instance, str) or compile(instance) is not None

    from toolhost.compile.unique_items import unique_items

    keywords = {"pattern": pattern, "patternProperties": pattern_properties,
                "additionalProperties": additional_properties, "uniqueItems": unique_items}
    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, keywords, format_checker=formats)

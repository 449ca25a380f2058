"""A YAML scalar event -> its value, as PyYAML's resolver and ``SafeConstructor`` make it.

The commonest scalars (quoted strings, plain words, decimal integers, plain floats, YAML
1.1's nulls and booleans) are read without the resolver's loop of patterns; every other one
goes through it and the constructor, and what cannot be a value of the config (an integer of
more than ``MAX_DIGITS`` digits, an infinity, an invalid ``!!int``, an unknown tag) is a
located problem. ``ScalarReader`` is the scalar half of the event builder
(``toolhost.config.yaml_events``), which says where a problem is.
"""

from __future__ import annotations

import re
from typing import Any

import toolhost.config.yaml_prime  # noqa: F401  (before PyYAML: its slowest pattern)

# isort: split
import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode

from toolhost.config.limits import MAX_DIGITS, check_finite, float_underflow
from toolhost.config.tree import Path
from toolhost.config.yaml_numbers import yaml11_number
from toolhost.excerpt import cut

__all__ = ["ScalarReader"]

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_T + k for k in ("str", "int", "float", "bool", "null"))
_PLAIN_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL}
_TIMESTAMP = _T + "timestamp"
_BOOLS = SafeConstructor.bool_values
# plain scalars YAML 1.1's resolvers read as null or a bool, exactly as they spell them
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("~", "null", "Null", "NULL")),
    **{word: _BOOLS[word.lower()] for base in ("yes", "no", "true", "false", "on", "off")
       for word in (base, base.capitalize(), base.upper())}}
# what the float resolvers (YAML 1.1's and the JSON exponent one) and the int resolver read
# alike, and float() or int() builds as PyYAML does: no `_`, no base 60, no octal
_SIMPLE_NUMBER = re.compile(
    r"[-+]?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)|[-+](?:0|[1-9][0-9]*)")


class ScalarReader:
    """Each scalar event's value under ``loader``'s resolvers (``tag``, ``scalar``)."""

    def __init__(self, loader: Any, layer: str) -> None:
        self.strict_numbers = layer != "openapi"  # see yaml_numbers
        self.resolve = loader.resolve
        resolvers = type(loader).yaml_implicit_resolvers
        # first characters an implicit resolver looks at: a plain scalar starting otherwise
        # is a string (no set, so no shortcut, if one resolver looks at every character)
        self.first: frozenset[str] = frozenset(k for k in resolvers if k) \
            if None not in resolvers else frozenset(map(chr, range(0x110000)))
        self.constructor = SafeConstructor()
        self.spelled: dict[Path, str] = {}  # Doc.spelled: integers not written as Python does

    def problem(self, event: Any, path: Path, message: str, hint: str = "") -> None:
        raise NotImplementedError  # the builder's: it knows the file and the marks

    def tag(self, event: Any) -> str:
        tag = event.tag
        if tag is None or tag == "!":
            return str(self.resolve(ScalarNode, event.value, event.implicit))
        return str(tag)

    def scalar(self, event: Any, path: Path) -> Any:
        tag, text = event.tag, event.value
        if tag is None:  # the commonest scalars first, without the resolver's loop
            if not event.implicit[0]:
                return text  # quoted
            if text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1) \
                    and len(text) <= MAX_DIGITS:
                return int(text)
            if text and text[0] not in self.first:
                return text
            if text in _WORDS:  # null, true, false in YAML 1.1's spellings (yes, off, ~)
                return _WORDS[text]
            if _SIMPLE_NUMBER.fullmatch(text) is not None and len(text) <= MAX_DIGITS:
                # a signed integer or a float of plain digits: what the resolver and the
                # constructor make of it, without them (499,000 floats took 5 s, not 1.5)
                value = float(text) if "." in text or "e" in text or "E" in text \
                    else int(text)
                if type(value) is int or (value != 0.0 and value - value == 0.0):
                    if type(value) is int and text != str(value):
                        self.spelled[path] = text  # +12, -0: '12' and '0' as text
                    return value  # (else inf, or an underflow: said below)
        if tag is None or tag == "!":
            tag = self.resolve(ScalarNode, text, event.implicit)
        if tag == _STR:
            return text
        if tag == _INT:
            if (text.isascii() and text.isdigit() and (text[0] != "0" or text == "0")
                    and len(text) <= MAX_DIGITS):
                return int(text)  # plain decimal digits (most integers): what PyYAML builds
            if sum(c.isdigit() for c in text) > MAX_DIGITS:
                self.problem(event, path, f"an integer of more than {MAX_DIGITS:,} digits")
                return None
        elif tag == _NULL:
            return None
        elif tag == _BOOL and text.lower() in _BOOLS:
            return _BOOLS[text.lower()]
        if tag in _PLAIN_TAGS:
            node = ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
            try:
                value = self.constructor.construct_object(node)
                self.constructor.constructed_objects.clear()
            except (ValueError, LookupError, yaml.YAMLError) as exc:
                # an empty `!!int` or `!!float` fails as an IndexError, `!!bool maybe` as a
                # KeyError (an internal error, exit 2, before)
                name = tag[len(_T):]
                self.problem(event, path, f"invalid {name}: " + (
                    cut(str(exc), 120) if text.strip() and not isinstance(exc, LookupError)
                    else f"{cut(text, 40)!r} is not a valid !!{name}"),
                    f"write a valid !!{name} value, or remove the tag")
                return None
            if tag in (_INT, _FLOAT) and (":" in text or "0" in text[:2]) \
                    and self.strict_numbers:
                wrong = yaml11_number(text, value, tag == _INT)
                if wrong:
                    self.problem(event, path, *wrong)
                    return None
            reason = check_finite(value) or (
                float_underflow(text, value) if type(value) is float else "")
            if reason:
                self.problem(event, path, reason)
                return None
            if type(value) is int and text != str(value):  # 0x10, 0b11, 1_000
                self.spelled[path] = text
            return value
        if tag == _TIMESTAMP:  # kept as written: the model is JSON-like data
            return text
        self.problem(event, path, f"unsupported YAML tag {cut(str(tag), 80)}")
        return None

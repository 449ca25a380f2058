"""Characters that make text read as something it is not, an elicitation form whose every
label carries one (tests/gateway/test_elicit_pass.py), and every string of a JSON value
(``texts``: where the hidden-character tests look)."""

from __future__ import annotations

from typing import Any

# a bidi override and isolate, a zero-width space and joiner-less mark, an Arabic letter
# mark, a byte order mark, a C1 CSI, a line separator, a tag letter, a combining grapheme
# joiner, an escape, a carriage return
HIDING = ["\u202e", "\u2066", "\u200b", "\u200e", "\u061c", "\ufeff", "\u009b", "\u2028",
          "\U000e0041", "\u034f", "\x1b", "\r"]


def hiding_schema(char: str) -> dict[str, Any]:
    """A form whose title, descriptions and choice labels each hold ``char``; the choices'
    own values hold it too (``a<char>``, ``b<char>``: what an answer must match)."""
    return {
        "type": "object", "title": f"T{char}", "description": f"D{char}",
        "properties": {
            "pick": {"type": "string", "title": f"P{char}", "description": f"Q{char}",
                     "enum": [f"a{char}"], "enumNames": [f"A{char}"]},
            "many": {"type": "array", "title": f"M{char}",
                     "items": {"anyOf": [{"const": f"b{char}", "title": f"B{char}"}]}},
        },
    }


def texts(value: Any) -> list[str]:
    """Every string inside ``value`` (keys too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*texts(k), *texts(v))]
    if isinstance(value, list):
        return [t for v in value for t in texts(v)]
    return []

"""What an upstream answers shows what it is: the model reads no text a person cannot see.

An upstream is a server or service toolhost imports: an MCP server (``toolhost.gateway``) or
an OpenAPI service, whose operations are http tools marked ``shown`` (``CompiledTool.shown``).
An upstream's answers go to the model (a call's result, a resource it reads, a prompt it
gets) and to the person only through a client that shows them as text. A character that
shows nothing there, or makes a line read as something it is not, lets an upstream tell the
model what no person reviewing the transcript sees: Unicode tag characters (U+E0000-E007F,
which a model reads as the ASCII they mirror: "ASCII smuggling"), variation selectors
other than the emoji ones (bytes hidden after a letter), bidi overrides and isolates,
zero-width and other invisible format characters, C0 and C1 controls (an escape sequence,
a lone carriage return that overwrites a terminal's line), line and paragraph separators,
lone surrogates. Each of them is written as a visible escape (``\\U000e0041``,
``\\u202e``: ``toolhost.visible``), before the answer is cut, so the output limit holds as
the model reads it.

Kept as they are: printable text of every script, newline, tab, a carriage return before
a newline (CRLF line ends), a zero-width joiner between two emoji (a family, a profession:
elsewhere it is written as ``\\u200d``, as it can carry bits between letters) and the emoji
flags of England, Scotland and Wales (the only tag sequences Unicode recommends). Base64
data (a blob, an image's or audio's ``data``) is printable ASCII, so it is unchanged; what
is not base64 there is shown like any text.

Names are how things are called, and an escape would change them: an upstream's listed
resource URI, template, prompt or prompt argument name, or an inputSchema property name that
holds such a character is left out instead (``hiding``, ``hidden_name``), with a warning.

Where (an MCP upstream): every string of a call's content blocks and ``structuredContent``
(keys too), an upstream's error message, a read's contents (``text``, ``uri``,
``mimeType``), a prompt's ``description`` and messages. What it *lists* (descriptions,
titles) is escaped the same way by ``toolhost.gateway.bounds``. An OpenAPI service: every
string of a call's result or error (``shown_result``), before toolhost cuts it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.results import ToolResult
from toolhost.visible import visible

__all__ = ["MAX_DEPTH", "TooDeep", "hidden_name", "hiding", "shown", "shown_answer",
           "shown_result", "shown_value"]

MAX_DEPTH = 300  # the wire's own parse refuses nesting far shallower (256)
_FLAG = "\U0001f3f4"  # the black flag the subdivision flags' tags follow
_JOINER = "\u200d"
_EMOJI = "\u2190-\u2bff\U0001f000-\U0001faff"  # (arrows, symbols, dingbats, emoji)
# kept: a line end, the three recommended subdivision flags (gbeng, gbsct, gbwls), and a
# joiner between two emoji (after a presentation selector or skin tone too)
_KEPT = re.compile(
    "\r\n|" + _FLAG + "\U000e0067\U000e0062(?:\U000e0065\U000e006e\U000e0067|"
    "\U000e0073\U000e0063\U000e0074|\U000e0077\U000e006c\U000e0073)\U000e007f|"
    f"(?<=[{_EMOJI}\ufe0f\U0001f3fb-\U0001f3ff]){_JOINER}(?=[{_EMOJI}])")


# ASCII's hiding characters: the controls but tab and newline (CR is judged by _KEPT)
_ASCII = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_HIDING: list[tuple[Any, Any, re.Pattern[str]]] = []  # RE2 (text, UTF-8), re: at first use
# what a string is shown of, per answer: past it, a hiding character becomes U+FFFD (one
# pass in C, no escape): answers are cut to 40,000 characters after, so that part is never
# read, and escaping a 10 MB answer of accented text held the interpreter for 1.7 s
BUDGET = 200_000
_SHORT = 4_096  # shorter text is escaped at once (no class to build for a listing)
_REPLACED = "\ufffd"


def _classes() -> tuple[Any, Any, re.Pattern[str]]:
    """Every character ``shown`` may not keep as it is (what ``visible`` escapes, CR, the
    joiner), as a class for RE2 (linear and ~10x faster than ``re`` over non-ASCII text; it
    cannot hold surrogates), for RE2 over UTF-8 (its ``sub`` on text mangles a non-ASCII
    replacement) and for ``re``. Planes 0, 1 and 14 hold every format,
    control and blank character: made once, ~0.2 s."""
    if not _HIDING:
        import re2  # type: ignore[import-untyped]  # (google-re2, as toolhost.regex)

        codes = [c for c in (*range(0x20000), *range(0xE0000, 0xE0200))
                 if c == 0x200D or c == 0x0D or visible(chr(c), lines=True) != chr(c)]
        ranges, start = [], codes[0]
        for before, code in zip(codes, [*codes[1:], -1], strict=True):
            if code != before + 1:
                ranges.append((start, before))
                start = code
        outside = [(a, min(b, 0xD7FF)) for a, b in ranges if a < 0xD800] + \
            [(max(a, 0xE000), b) for a, b in ranges if b > 0xDFFF]
        spelled = "[" + "".join(f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in outside) + "]"
        _HIDING.append((
            re2.compile(spelled), re2.compile(spelled.encode()),
            re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                                     for a, b in ranges) + "]")))
    return _HIDING[0]


def _finds(text: str) -> bool:
    if text.isascii():
        return _ASCII.search(text) is not None
    if len(text) <= _SHORT:
        return shown(text) != text
    try:
        return _classes()[0].search(text) is not None
    except UnicodeEncodeError:  # a lone surrogate: hiding, and RE2 cannot read it
        return True


def _replaced(text: str) -> str:
    """``text`` with every hiding character replaced by U+FFFD."""
    if text.isascii():
        return _ASCII.sub(_REPLACED, text)
    try:
        raw = text.encode()
    except UnicodeEncodeError:  # a lone surrogate
        return _classes()[2].sub(_REPLACED, text)
    return bytes(_classes()[1].sub(_REPLACED.encode(), raw)).decode()


class TooDeep(ValueError):
    """A value nested deeper than ``MAX_DEPTH``: not shown, so not passed on (fail closed)."""


def shown(text: str) -> str:
    """``text`` with every character that hides from a person written as a visible escape
    (see the module docstring)."""
    if len(text) > _SHORT and not _finds(text):
        return text  # (long text: one scan in C before any escape)
    if "\r" not in text and _FLAG not in text and _JOINER not in text:
        return visible(text, lines=True)
    out, at = [], 0
    for kept in _KEPT.finditer(text):
        out.append(_escaped(text[at:kept.start()]))
        out.append(kept.group())
        at = kept.end()
    out.append(_escaped(text[at:]))
    return "".join(out)


def _escaped(text: str) -> str:
    # (visible keeps every joiner: here only those between emoji are kept, by _KEPT)
    return visible(text, lines=True).replace(_JOINER, "\\u200d")


def shown_value(value: Any, budget: list[int] | None = None, depth: int = 0) -> Any:
    """A JSON value (a content block, ``structuredContent``, a read's contents), a copy with
    every string shown, keys too (base64 is printable ASCII: unchanged). ``budget``: how
    many characters are still shown with escapes (``BUDGET`` when None); past it a hiding
    character becomes U+FFFD. TooDeep past ``MAX_DEPTH``."""
    if budget is None:
        budget = [BUDGET]
    if isinstance(value, str):
        return _shown_within(value, budget)
    if depth > MAX_DEPTH:
        raise TooDeep(f"it is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        return {_shown_within(k, budget) if isinstance(k, str) else k:
                shown_value(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown_value(v, budget, depth + 1) for v in value]
    return value


def _shown_within(text: str, budget: list[int]) -> str:
    left = budget[0]
    budget[0] = max(0, left - len(text))
    if len(text) <= left:
        return shown(text)
    if not _finds(text):
        return text
    return shown(text[:left]) + _replaced(text[left:])


def shown_answer(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tools/call`` result with its content blocks and ``structuredContent`` shown
    (TooDeep: see ``shown_value``)."""
    out = dict(answer)
    for key in ("content", "structuredContent"):
        if key in out:
            out[key] = shown_value(out[key])
    return out


def shown_result(result: ToolResult) -> ToolResult:
    """A tool's result (or error) with every string of its content blocks and structured
    content shown (one budget for both, as ``shown_answer``); a value too deep to show is
    an error result (fail closed: it is not passed on)."""
    budget = [BUDGET]
    try:
        content = tuple(shown_value(block, budget) for block in result.content)
        structured = (None if result.structured is None
                      else shown_value(result.structured, budget))
    except TooDeep as exc:
        return ToolResult.error(f"the service's answer cannot be passed on: {exc}")
    return ToolResult(content=content, structured=structured, is_error=result.is_error)


def hiding(text: str) -> bool:
    """Whether ``text`` holds a character ``shown`` would escape."""
    return shown(text) != text


def hidden_name(schema: Any) -> str | None:
    """The first property name anywhere in ``schema`` (a JSON Schema) that holds a character
    ``shown`` would escape, shown; None when there is none. (A walk with its own stack:
    the schema was bounded in depth and size before.)"""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            props = node.get("properties")
            if isinstance(props, Mapping):
                for name in props:
                    if isinstance(name, str) and hiding(name):
                        return shown(name)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None

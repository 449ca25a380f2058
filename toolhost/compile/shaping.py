"""What the model reads of a result, and cutting it to a size the CLI passes intact.

The Claude CLI shows the model only the compact JSON of ``structuredContent`` when a result has
one (text blocks are dropped), and replaces any result over about 49,000 characters with a 2 KB
preview. So each tool says what the model should read:

- ``structured``: ``structuredContent`` is kept; the model reads its JSON.
- ``text``: ``structuredContent`` is left out (unless the tool declares an outputSchema, which
  MCP says must then be honoured); the model reads the text blocks.

Then the part the model reads is cut to ``max_output_chars`` with a note saying how much was cut
and how to get the rest. A structured result that is too long loses its ``structuredContent``
and the model reads the (cut) JSON text; with a declared outputSchema it becomes an error
instead, since the schema promises structured content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from toolhost.compile.jsoncut import TooDeep, json_head, non_finite, too_long
from toolhost.redaction import active
from toolhost.results import ToolResult

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["CUT_NOTE", "check_structured", "compact_json", "cut_head", "cut_text",
           "mask_cut_edges", "shape_result"]


def compact_json(value: Any) -> str:
    """The JSON the CLI shows the model for ``structuredContent``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str,
                      allow_nan=False)


_ASK_LESS = ("To see the rest, call the tool again asking for less: a narrower query, a "
             "filter, or a range.]")
CUT_NOTE = "\n\n[toolhost: output cut: "  # how every note of a cut starts
_NOTE = re.compile(r"\n\n\[toolhost: output cut: showing the first [\d,]+ of (more than )?"
                   r"([\d,]+) characters [^\n]*\]\Z")
_NOTE_TAIL = 400  # a note is shorter than this


def _note(kept: int, total: int, *, exact: bool = True) -> str:
    if not exact:
        return (f"\n\n[toolhost: output cut: showing the first {kept:,} of more than "
                f"{total:,} characters (the rest was not even produced). {_ASK_LESS}")
    return (f"\n\n[toolhost: output cut: showing the first {kept:,} of {total:,} characters "
            f"({total - kept:,} not shown). {_ASK_LESS}")


def cut_head(head: str, total: int, *, exact: bool = True) -> str:
    """``head`` (the kept start of a longer output of ``total`` characters) with the cut note;
    ``exact=False`` when ``total`` is only a lower bound. Used by backends that cut before
    building the whole output; ``cut_text`` keeps such a note and its figures. A cut made
    before redaction may end inside a secret: such an end is ``***``."""
    return active().mask_edges(head, tail=True) + _note(len(head), total, exact=exact)


def _measure(text: str) -> tuple[int, int, bool]:
    """(characters before any cut note, total it stands for, whether that total is exact)."""
    if text.endswith("]") and "[toolhost: output cut:" in text[-_NOTE_TAIL:]:
        match = _NOTE.search(text, max(0, len(text) - _NOTE_TAIL))
        if match:
            return match.start(), int(match.group(2).replace(",", "")), not match.group(1)
    return len(text), len(text), True


def mask_cut_edges(result: ToolResult) -> ToolResult:
    """``result`` with the end of every text cut before it reached this process (its cut
    note says so) ``***`` where it is the start of a secret: the cut of a process that knows
    no secret (an ``isolation: process`` worker's). Whole secrets are left for whoever
    redacts the result (a tool's ``redact_results`` may keep them)."""
    hide = active()
    if not hide:
        return result
    blocks: list[Mapping[str, Any]] = []
    changed = False
    for block in result.content:
        text = block.get("text") if block.get("type") == "text" else None
        if isinstance(text, str):
            body, total, exact = _measure(text)
            if total > body or not exact:
                masked = hide.mask_edges(text[:body], tail=True)
                if masked != text[:body]:
                    block, changed = {**block, "text": masked + text[body:]}, True
        blocks.append(block)
    if not changed:
        return result
    return ToolResult(content=tuple(blocks), structured=result.structured,
                      is_error=result.is_error)


def _precut(result: ToolResult) -> bool:
    """Whether a text block was cut by its backend (carries a cut note)."""
    for block in result.content:
        if block.get("type") == "text":
            body, total, exact = _measure(str(block.get("text", "")))
            if total > body or not exact:
                return True
    return False


def _body(block: Mapping[str, Any], resources: bool = True) -> tuple[str, str] | None:
    """(where, text) of a block the model reads as text: ``text`` for a text block, ``resource``
    for an embedded resource's ``text``, ``blob`` for its ``blob`` (base64); None for any
    other block."""
    kind = block.get("type")
    if kind == "text":
        text = block.get("text", "")
        return "text", text if isinstance(text, str) else str(text)
    inner = block.get("resource") if kind == "resource" and resources else None
    if isinstance(inner, Mapping):
        for key, where in (("text", "resource"), ("blob", "blob")):
            if key in inner:
                value = inner[key]
                return where, value if isinstance(value, str) else str(value)
    return None


def cut_text(result: ToolResult, max_chars: int, *, resources: bool = False) -> ToolResult:
    """Cut the text blocks to ``max_chars`` characters in all, with a note; other blocks stay.

    With ``resources`` (an upstream's answer: toolhost.gateway) embedded resources count too:
    an embedded text is cut like a text block, a blob that does not fit whole is replaced by
    a text block saying so (half an image or archive is of no use). A tool of the config's
    own may return a file as a blob of any size.

    A text already cut by its backend (see ``cut_head``) counts as its full length."""
    raw = 0  # the usual case first: every text together is shorter than the limit
    for block in result.content:
        read = _body(block, resources)
        if read is not None:
            raw += len(read[1])
    if raw <= max_chars:  # (what a backend kept of a cut text is shorter still)
        return result
    measured = [(b, *_measure(found[1])) for b in result.content
                if (found := _body(b, resources)) is not None]
    total = sum(m[2] for m in measured)
    shown = sum(m[1] for m in measured)
    exact = all(m[3] for m in measured)
    if total <= max_chars or (shown <= max_chars and shown < total):
        return result  # short enough, or cut by the backend to a size that fits
    budget = max_chars
    blocks: list[Mapping[str, Any]] = []
    noted = False
    for block in result.content:
        part = _body(block, resources)
        if part is None:
            blocks.append(block)
            continue
        if noted:
            continue
        what, text = part
        body, whole, _ = _measure(text)
        if whole <= budget:
            blocks.append(block)
            budget -= whole
            continue
        used = max_chars - budget
        if what == "blob":
            uri = str(block["resource"].get("uri", ""))[:200]
            blocks.append({"type": "text", "text": (
                f"[toolhost: output cut: an embedded resource ({uri!r}, {len(text):,} "
                f"characters of base64) is left out: with the {used:,} characters before it, "
                f"it would pass the {max_chars:,} the model is shown. {_ASK_LESS}")})
            noted = True
            continue
        # (in a worker process, before the host redacts: a cut secret's start is hidden)
        kept = active().mask_edges(text[:min(budget, body)], tail=True)
        cut = kept + _note(used + len(kept), total, exact=exact)
        blocks.append({**block, "text": cut} if what == "text" else
                      {**block, "resource": {**block["resource"], "text": cut}})
        noted = True
    return ToolResult(content=tuple(blocks), structured=None, is_error=result.is_error)


def check_structured(result: ToolResult, validator: Validator, tool: str) -> ToolResult | None:
    """An error result when ``structuredContent`` breaks the outputSchema, else None."""
    if result.structured is None:
        return ToolResult.error(f"Tool '{tool}' declares an outputSchema but returned no "
                                "structured content.")
    errors = sorted(validator.iter_errors(result.structured), key=lambda e: list(e.path))
    if not errors:
        return None
    described = "; ".join(f"{'.'.join(str(p) for p in e.path) or '(root)'}: {e.message}"
                          for e in errors[:5])
    return ToolResult.error(f"Tool '{tool}' returned a result that does not match its "
                            f"outputSchema: {described}")


class NotJson(ValueError):
    """Structured content JSON cannot carry (a NaN or an infinite number)."""


def _seen(structured: Mapping[str, Any], max_chars: int) -> str:
    """The compact JSON of ``structured`` if it fits, else its cut head (never encoding more
    than is kept). Raises ``TooDeep`` or ``NotJson``."""
    if not too_long(structured, max_chars):
        try:
            seen = compact_json(structured)
        except ValueError as exc:  # NaN, Infinity: JSON has no such number
            where = non_finite(structured)
            raise NotJson(f"a number JSON cannot carry ({where}; return null or a string "
                          "instead)" if where else str(exc)) from None
        if len(seen) <= max_chars:
            return seen
    return cut_head(json_head(structured, max_chars), max_chars, exact=False)


def shape_result(result: ToolResult, *, tool: str, output: Literal["structured", "text"],
                 output_validator: Validator | None, max_chars: int) -> ToolResult:
    """Apply the outputSchema check, the structured/text choice and the size cut."""
    if result.is_error:
        return cut_text(ToolResult(content=result.content, is_error=True), max_chars)
    structured = result.structured
    seen = ""
    if structured is not None:
        try:
            seen = _seen(structured, max_chars)
        except (TooDeep, NotJson) as exc:
            return ToolResult.error(f"Tool '{tool}' returned a result toolhost cannot pass "
                                    f"on: {exc}.")
    fits = structured is not None and len(seen) <= max_chars
    if output_validator is not None and structured is None and _precut(result):
        # cut by its backend (too long to keep): what the model reads is the cut JSON text
        return cut_text(ToolResult(content=result.content, is_error=True), max_chars)
    if output_validator is not None and (structured is None or fits):
        failure = check_structured(result, output_validator, tool)
        if failure is not None:
            return failure
    if structured is None:
        return cut_text(result, max_chars)
    has_text = any(b.get("type") == "text" for b in result.content)
    if output == "text" and output_validator is None:
        content = result.content if has_text else (*result.content, {"type": "text", "text": seen})
        return cut_text(ToolResult(content=content, is_error=False), max_chars)
    if fits:
        return result
    # Too long to pass as structured JSON: the model reads the cut JSON text instead.
    text_blocks = tuple(b for b in result.content if b.get("type") == "text")
    others = tuple(b for b in result.content if b.get("type") != "text")
    content = text_blocks or ({"type": "text", "text": seen},)
    cut = cut_text(ToolResult(content=others + content), max_chars)
    if output_validator is not None:
        return ToolResult(content=cut.content, is_error=True)
    return cut

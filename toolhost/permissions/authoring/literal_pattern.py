"""A deny or ask condition whose pattern has nothing of a pattern in it.

A ``regex`` must match the whole value and a ``glob`` the whole text, so
``deny: {when: {sql: {regex: "drop table"}}}`` holds for the value ``drop table`` and for
nothing else: ``DROP TABLE x``, ``select 1; drop table users`` pass it. The author almost
always meant "anywhere in the value"; an exact value is written ``equals``. ``validate`` says
so (a warning: ``--strict`` fails on it), with the pattern that finds the text anywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["literal_pattern"]

# Inline flags at the start (``(?i)``, ``(?is)``): they change how, not what, a regex matches.
_FLAGS = re.compile(r"\A(?:\(\?[aiLmsux]+\))+")
_REGEX_META = frozenset(".^$*+?{}[]|()")
_GLOB_META = frozenset("*?[")


def _regex_text(pattern: str) -> str | None:
    """The text a regex matches when it is a plain literal (``\\.env`` is ``.env``), else
    None: a metacharacter, or an escape that is a class or an anchor (``\\d``, ``\\b``)."""
    body = _FLAGS.sub("", pattern, count=1)
    out: list[str] = []
    escaped = False
    for char in body:
        if escaped:
            if char.isalnum() or char == "_":
                return None  # \d, \w, \b, \x41, \1 ...: a pattern, not a literal
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in _REGEX_META:
            return None
        else:
            out.append(char)
    return None if escaped else "".join(out)


def literal_pattern(effect: str, key: str, ops: Mapping[str, Any]) -> tuple[str, str] | None:
    """(message, hint) for a deny/ask condition whose ``regex`` or ``glob`` is a plain text,
    or None. Allow rules are left alone: there a literal is only stricter than meant."""
    if effect not in ("deny", "ask"):
        return None
    regex, glob = ops.get("regex"), ops.get("glob")
    if isinstance(regex, str) and regex:
        text = _regex_text(regex)
        if text:
            flags = _FLAGS.match(regex)
            letters = "".join(sorted(set(re.sub(r"[^a-zA-Z]", "", flags.group(0)) if flags
                                         else "") | {"s"}))  # s: across lines too
            anywhere = f"(?{letters}).*"
            shown = json.dumps(cut(regex, 80))
            body = "".join("\\" + c if c in _REGEX_META or c == "\\" else c for c in text)
            wide = json.dumps(cut(f"{anywhere}{body}.*", 100))
            exactly = "in any case" if "i" in letters else "exactly"
            return (f"when.{key}: regex {shown} has no pattern characters, so this {effect} "
                    f"rule holds only for the value {json.dumps(cut(text, 80))} {exactly} (a "
                    f"regex must match the whole value): any other text holding it passes",
                    f"to hold wherever it occurs write {{regex: {wide}}}; for the exact value "
                    f"write {{equals: {json.dumps(cut(text, 80))}}}")
    if isinstance(glob, str) and glob and not _GLOB_META & set(glob):
        shown = json.dumps(cut(glob, 80))
        wide = json.dumps(cut(f"*{glob}*", 100))
        return (f"when.{key}: glob {shown} has no wildcard, so this {effect} rule holds only "
                f"for that value exactly (a glob must match the whole text): any other text "
                f"holding it passes",
                f"to hold wherever it occurs write {{glob: {wide}}}; for the exact value "
                f"write {{equals: {shown}}}")
    return None

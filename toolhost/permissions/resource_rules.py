"""Rules on ``ReadMcpResourceTool``'s ``uri``, written in any spelling of the URI.

A read is decided on the URI's canonical spelling (``toolhost.compile.resource_uri``: scheme
lower-cased, hex digits upper-cased, unreserved characters decoded, dot-segments resolved) and,
when it differs, its fully decoded form. A rule author writes the URI as the config declares it
(``Notes://kb``), as ``resources/list`` shows it, or with ``%2f`` or ``%7E``: compared as
written, such a rule would never match. So the literal URIs of a rule on ``uri`` (``equals``,
``one_of``, ``glob`` and a plain value) are brought to the same canonical spelling when the
rule loads; a ``regex`` cannot be rewritten, and ``validate`` warns when its text spells
something the canonical form never contains. ``validate`` also warns about a rule whose URI
pattern can match no declared resource or template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from toolhost import regex
from toolhost.compile.resource_uri import decoded, normalize, resolved

__all__ = ["READ_RESOURCE_TOOL", "canonical_when", "never_matches", "read_forms",
           "regex_spelling"]

READ_RESOURCE_TOOL = "ReadMcpResourceTool"
_LITERAL_OPS = ("equals", "glob")
_GLOB_META = re.compile(r"[*?\[]")
_LOWER_HEX = re.compile(r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-Fa-f])")
_UNRESERVED_ESCAPE = re.compile(r"%(?:2[DEde]|3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]"
                                r"|7[0-9Aa]|7[Ee])")
_UPPER_SCHEME = re.compile(r"\^?(?:\\A)?[A-Za-z][A-Za-z0-9+.\\-]*:")


def _canonical(value: Any) -> Any:
    return normalize(value) if isinstance(value, str) else value


def _both(value: Any) -> list[Any]:
    """A literal URI in canonical spelling and decoded: reads are asked about both forms, so
    a rule spelled half one way and half the other (``%3A|``) still meets one of them."""
    if not isinstance(value, str):
        return [value]
    canonical = normalize(value)
    return list(dict.fromkeys((canonical, decoded(canonical))))


def _glob_tokens(pattern: str) -> Iterator[tuple[bool, str]]:
    """``(is_literal, text)`` runs of a glob (``*``, ``?`` and ``[...]`` as fnmatch reads them)."""
    i, literal = 0, ""
    while i < len(pattern):
        char = pattern[i]
        close = pattern.find("]", i + 2) if char == "[" else -1
        if char in "*?" or close > 0:
            if literal:
                yield True, literal
                literal = ""
            end = i + 1 if char in "*?" else close + 1
            yield False, pattern[i:end]
            i = end
        else:
            literal += char
            i += 1
    if literal:
        yield True, literal


def _glob_regex(pattern: str, decode: bool) -> str:
    out = []
    for is_literal, text in _glob_tokens(pattern):
        if is_literal:
            out.append(re.escape(decoded(text) if decode else text))
        elif text == "*":
            out.append(".*")
        elif text == "?":
            out.append(".")
        else:
            body = text[1:-1]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            body = body.replace("\\", "\\\\")
            body = "\\" + body if body.startswith("^") else body
            out.append("[" + ("^" if negate else "") + body + "]")
    return "".join(out)


def canonical_when(when: Mapping[str, Any]) -> dict[str, Any]:
    """``when`` with its ``uri`` entry matched spelling-independently: each literal URI
    (plain, ``equals``, ``one_of``, ``glob``) in canonical spelling or decoded, whichever
    form of the read it meets. A ``glob`` with percent-escapes becomes the equivalent
    linear-time ``regex`` matching both (unless the entry has a ``regex`` of its own: then it
    is only canonicalised)."""
    out = dict(when)
    spec = out.get("uri")
    if isinstance(spec, str):
        out["uri"] = {"one_of": _both(spec)}
    elif isinstance(spec, Mapping):
        ops = dict(spec)
        if "equals" in ops and "one_of" not in ops:
            ops["one_of"] = _both(ops.pop("equals"))
        elif "equals" in ops:
            ops["equals"] = _canonical(ops["equals"])
        if isinstance(ops.get("one_of"), (list, tuple)):
            ops["one_of"] = [form for v in ops["one_of"] for form in _both(v)]
        glob = ops.get("glob")
        if isinstance(glob, str):
            canonical = normalize(glob)
            either = "(?s)(?:" + "|".join(dict.fromkeys(
                _glob_regex(canonical, d) for d in (False, True))) + ")"
            ops["glob"] = canonical
            if "regex" not in ops and decoded(canonical) != canonical \
                    and not regex.problem(either):  # else the glob alone says it (faster)
                del ops["glob"]
                ops["regex"] = either
        out["uri"] = ops
    return out


def _literals(spec: Any) -> list[str]:
    """The URI patterns a ``uri`` condition names (canonical), [] when unknown (regex)."""
    if isinstance(spec, str):
        return [normalize(spec)]
    if not isinstance(spec, Mapping) or "regex" in spec:
        return []
    found: list[str] = []
    for op in _LITERAL_OPS:
        if isinstance(spec.get(op), str):
            found.append(normalize(spec[op]))
    if isinstance(spec.get("one_of"), (list, tuple)):
        found += [normalize(v) for v in spec["one_of"] if isinstance(v, str)]
    return found


def _prefix(pattern: str) -> str:
    hit = _GLOB_META.search(pattern)
    return pattern if hit is None else pattern[:hit.start()]


def _may_meet(pattern: str, kind: str, own: str) -> bool:
    """Whether the canonical glob ``pattern`` can match a URI of a resource declared as
    ``own`` (canonical): a file is that URI, a directory any path below it, a template any
    URI starting with its text up to its first variable."""
    literal = _prefix(pattern)
    exact = literal == pattern
    if kind == "file":
        return own == pattern if exact else own.startswith(literal)
    if kind == "template":
        own = own.split("{", 1)[0]
    if exact:
        return pattern.startswith(own) and len(pattern) > len(own)
    return literal.startswith(own) or own.startswith(literal)


def never_matches(spec: Any, declared: Iterable[tuple[str, str]]) -> list[str]:
    """The URI patterns of the ``uri`` condition ``spec`` that no declared resource can
    answer (in canonical or decoded spelling); ``declared`` is ``(kind, uri)`` per resource
    (``file``, ``directory`` or ``template``)."""
    known = [(kind, form) for kind, uri in declared
             for form in {normalize(uri), decoded(normalize(uri))}]
    if not known:
        return []
    return [p for p in _literals(spec)
            if not any(_may_meet(p, kind, own) for kind, own in known)]


def regex_spelling(spec: Any) -> str | None:
    """Why a ``regex`` on ``uri`` can never match what the rules see, or None."""
    pattern = spec.get("regex") if isinstance(spec, Mapping) else None
    if not isinstance(pattern, str):
        return None
    scheme = _UPPER_SCHEME.match(pattern)
    if scheme is not None and scheme.group(0) != scheme.group(0).lower():
        return "its scheme has capitals, and the rules see the scheme in lower case"
    if _LOWER_HEX.search(pattern):
        return "it has lower-case hex (%2f), and the rules see upper-case hex (%2F)"
    if _UNRESERVED_ESCAPE.search(pattern):
        return ("it escapes a character that needs no escape (%7E for ~), and the rules see "
                "such characters decoded")
    return None


def read_forms(tool: str, tool_input: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The inputs a running host decides a resource read on (``serve.guard.read_guard``), for
    the offline deciders (``permissions check``, ``permissions test``): the URI's normal form
    (``ServerContent.canonical_uri``), its fully decoded form and what it means decoded with
    its dot-segments resolved; the read needs every one allowed. So ``x://t/%73ecret`` and
    ``x://t/a/../secret`` meet a rule on ``x://t/secret`` offline as they do there. Any
    other call: its input alone."""
    uri = tool_input.get("uri")
    if tool != READ_RESOURCE_TOOL or not isinstance(uri, str):
        return [tool_input]
    canonical = normalize(uri)
    final = resolved(canonical)
    forms = dict.fromkeys((canonical, decoded(canonical), canonical if final is None else final))
    return [{**tool_input, "uri": form} for form in forms]

"""The parts of an http tool's request rendered from the arguments: query, headers, form and
JSON body, each checked so that a value that cannot be sent is a located error, never a raw
exception from the HTTP library.

Header values: a list value is one header, its items joined with ``", "`` (RFC 9110 5.3: the
same as repeating the field; an empty list leaves the header out); the rendered text is
stripped of surrounding spaces and tabs (RFC 9110 5.5: they are not part of the value) and must
be printable ASCII, else the error names the header and the params it prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.backends import templating

__all__ = ["UnsendableValue", "compile_body", "compile_fields", "header_values",
           "pairs", "render_body", "render_fields", "unencodable_message"]


class UnsendableValue(ValueError):
    """A value that cannot go into the request; the message names where and which param."""


def compile_body(value: Any) -> Any:
    """Strings become templates; exactly '{{ name }}' becomes a typed reference."""
    if isinstance(value, str):
        name = templating.single_variable(value)
        return ("var", name) if name else ("tpl", templating.compile_template(value))
    if isinstance(value, Mapping):
        return {str(k): compile_body(v) for k, v in value.items()}
    if isinstance(value, list):
        return [compile_body(v) for v in value]
    return ("lit", value)


def render_body(node: Any, context: Mapping[str, Any]) -> Any:
    """The JSON body for one call (a typed reference keeps the argument's JSON type)."""
    if isinstance(node, dict):
        return {k: render_body(v, context) for k, v in node.items()}
    if isinstance(node, list):
        return [render_body(v, context) for v in node]
    kind, payload = node
    if kind == "var":
        return context.get(payload)
    if kind == "tpl":
        return payload.render(context)
    return payload


def compile_fields(values: Mapping[str, str]) -> dict[str, Any]:
    """key -> (template, exact variable or None, names the template prints as values)."""
    from toolhost.backends.argv import printed_names

    return {k: (templating.compile_template(v), templating.single_variable(v),
                printed_names(v)) for k, v in values.items()}


def render_fields(fields: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """Query/header/form values. An entry is left out only when the params it prints were all
    not given (left out or null), or when it prints no value and renders empty (``{% if %}``);
    a given empty string is sent (``key=``). A list variable repeats the key."""
    out: dict[str, Any] = {}
    for key, (template, name, printed) in fields.items():
        value = context.get(name) if name else None
        if name and isinstance(value, (list, tuple)):
            out[key] = [templating.render_value(v) for v in value]
            continue
        if printed and all(context.get(n) is None for n in printed):
            continue
        text = template.render(context)
        if text or printed:
            out[key] = text
    return out


def pairs(fields: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, value) pairs, a list value repeating its key."""
    return [(k, str(v)) for k, vs in fields.items()
            for v in (vs if isinstance(vs, list) else [vs])]


def header_values(fields: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, str]:
    """The rendered headers, each one line of printable ASCII; raises ``UnsendableValue``
    naming the header and its params."""
    out: dict[str, str] = {}
    for key, value in render_fields(fields, context).items():
        if isinstance(value, list):
            if not value:
                continue  # zero items: no field, as a query key with an empty list
            value = ", ".join(value)
        if "\0" in value:
            raise UnsendableValue(f"the value of header {key!r}{_from(fields[key][2])} "
                                  "contains a NUL character, which a header cannot carry")
        if "\r" in value or "\n" in value:
            raise UnsendableValue(f"the value of header {key!r}{_from(fields[key][2])} "
                                  "contains a line break")
        trimmed = value.strip(" \t")
        if trimmed != value and fields[key][2]:
            # HTTP drops it (RFC 9110): the service would get another value than the one the
            # rules judged (a deny `equals: admin` met no " admin", and "admin" was sent)
            raise UnsendableValue(f"the value of header {key!r}{_from(fields[key][2])} "
                                  "begins or ends with a blank, which HTTP drops: the service "
                                  "would get another value than the call gave (send it "
                                  "without the blanks)")
        value = trimmed
        bad = next((c for c in value if not (" " <= c <= "~" or c == "\t")), None)
        if bad is not None:
            raise UnsendableValue(
                f"the value of header {key!r}{_from(fields[key][2])} must be printable ASCII, "
                f"and {bad!r} (U+{ord(bad):04X}) is not; encode it in the template "
                "(e.g. '{{ v | urlencode }}') if the server expects that")
        out[key] = value
    return out


def _from(printed: frozenset[str]) -> str:
    if not printed:
        return ""
    names = ", ".join(sorted(printed))
    return f" (from param{'s' if len(printed) > 1 else ''} {names})"


def unencodable_message(arguments: Mapping[str, Any]) -> str:
    """Which argument holds text that is not valid Unicode (a lone surrogate, which no URL,
    header or body encoding can carry)."""
    for name, value in arguments.items():
        stack = [value]
        while stack:  # a loop, not recursion: arguments may nest deeply
            node = stack.pop()
            if isinstance(node, dict):
                stack.extend(node.keys())
                stack.extend(node.values())
            elif isinstance(node, (list, tuple)):
                stack.extend(node)
            elif isinstance(node, str):
                try:
                    node.encode("utf-8")
                except UnicodeEncodeError as exc:
                    char = node[exc.start]
                    return (f"the value of '{name}' is not valid Unicode text (it holds a lone "
                            f"surrogate, U+{ord(char):04X}), so it cannot be sent")
    return "a value is not valid Unicode text, so it cannot be sent"

"""Whether an imported tool is still what its upstream lists, at the moment a call is sent.

A call is decided on the tool it looked up: its schema, the defaults toolhost fills in, the
rules that judged them. An upstream may re-list its tools (``tools/list_changed``) while the
call waits (for a person answering an ``ask``, for its turn), and the tool the call then
runs is the one of the old listing: it would send what was judged to an upstream tool that is
now another one (a new default the upstream fills in itself, ``mode: wipe``, that no rule
saw), or that the lock withdrew (a changed definition nobody reviewed). So just before a
call is sent (``Current.stale``), its tool's definition is compared with the one served
now, and, when the upstream announced a change the host has not listed yet, with a listing
taken there and then; a call whose tool changed or went away is not sent (its caller calls
again, and that call is judged against the new tool).

What is compared is what the call's judgement and its answer's check rest on (``judged``):
the name, the input schema (its types, bounds, defaults, required arguments), the output
schema its answer is checked against, and the annotations' hints a client may act on
(``readOnlyHint`` ...). What is only shown to the model (the tool's description and title,
``annotations.title``, icons, and the ``description``, ``title``, ``examples`` and
``$comment`` of each subschema) is not: a re-listing that rewords a description leaves the
calls in flight alone. Anything else an upstream adds is compared as it is (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolhost.permissions.sameness import same_json

__all__ = ["Current"]


class Current:
    """The definitions one upstream's tools are served with now, by upstream name, and
    how many of its tool-list announcements (``Channel.count``) the listing they came from
    had seen when it was taken."""

    def __init__(self, announced: Callable[[], int]) -> None:
        self._announced = announced
        self.at = announced()
        self.sources: Mapping[str, Mapping[str, Any]] = {}

    def serve(self, sources: Mapping[str, Mapping[str, Any]], at: int) -> None:
        """The tools of a listing taken after ``at`` announcements are served now
        (``sources``: none when its tools are withdrawn)."""
        self.sources, self.at = dict(sources), at

    def announced(self) -> int:
        """How many tool-list announcements the upstream has made so far."""
        return self._announced()

    def stale(self, name: str, source: Mapping[str, Any],
              listing: Callable[[], list[dict[str, Any]]]) -> bool:
        """Whether the upstream tool ``name``, built from the definition ``source``, is no
        longer served as that (in a worker thread: ``listing`` may be called, to list the
        upstream's tools when it announced a change not followed yet)."""
        if not _alike(self.sources.get(name), source):
            return True
        if self._announced() == self.at:
            return False
        # news not followed yet: the first definition of that name is the one served
        listed = next((tool for tool in listing() if tool.get("name") == name), None)
        return not _alike(listed, source)


def _alike(a: Mapping[str, Any] | None, b: Mapping[str, Any]) -> bool:
    # types included: a default of `true` is not one of `1`
    return a is b or (a is not None and same_json(judged(a), judged(b)))


# keys of a tool definition that are only shown (to the model, or a person)
_SHOWN = frozenset({"description", "title", "icons"})
# keywords of a subschema that no validator reads
_SCHEMA_SHOWN = frozenset({"description", "title", "examples", "$comment"})
# keywords whose value is a schema / a list of schemas / a mapping of names to schemas
_ONE = frozenset({"items", "additionalItems", "additionalProperties", "contains",
                  "propertyNames", "not", "if", "then", "else", "unevaluatedItems",
                  "unevaluatedProperties", "contentSchema"})
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions",
                  "dependentSchemas", "dependencies"})
_DEEPEST = 100  # below this a schema is compared whole (never stripped: fail closed)


def judged(tool: Mapping[str, Any]) -> dict[str, Any]:
    """What of an upstream's tool definition a call's judgement rests on: the definition
    without what is only shown (see the module's docstring)."""
    out = {k: v for k, v in tool.items() if k not in _SHOWN}
    for key in ("inputSchema", "outputSchema"):
        if key in out:
            out[key] = _schema(out[key], 0)
    notes = out.get("annotations")
    if isinstance(notes, Mapping):  # (a title alone is as good as none)
        out["annotations"] = {k: v for k, v in notes.items() if k != "title"} or None
    if out.get("annotations") is None:
        out.pop("annotations", None)
    return out


def _schema(node: Any, depth: int) -> Any:
    """``node`` (a schema) without the keywords only shown, at every schema position (a
    property *named* ``description`` stays: names are not keywords)."""
    if not isinstance(node, Mapping) or depth > _DEEPEST:
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _SCHEMA_SHOWN:
            continue
        if key in _LIST and isinstance(value, list):
            value = [_schema(part, depth + 1) for part in value]
        elif key in _ONE:
            value = _schema(value, depth + 1)
        elif key in _MAP and isinstance(value, Mapping):
            value = {name: _schema(part, depth + 1) for name, part in value.items()}
        out[key] = value
    return out

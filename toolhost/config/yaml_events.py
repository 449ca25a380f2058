"""libyaml's event stream -> plain data and the mark of every value, in one pass.

No node tree is composed: each event becomes its value as it comes, and the limits are
checked on the way (nesting depth, values, aliases in the text: a problem there is the only
one reported, as a prescan would have it). An anchored value's events are kept (only those),
and an alias replays them at its own path, so every node walked again through an alias
counts against ``LIMITS.alias_nodes`` (a "billion laughs" stops there) and an alias inside
its own anchor is a "recursive YAML alias". Merge keys (``<<: *base``, ``<<: [*a, *b]``):
keys written in the mapping win, then earlier merges over later ones.

A file of 499,000 values took 2.9 s composed and walked (nodes, a Python resolver call per
scalar, the walk); built from the events, ~1 s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator
from typing import Any

import toolhost.config.yaml_prime  # noqa: F401  (before PyYAML: its slowest pattern)

# isort: split
import yaml
from yaml.composer import ComposerError
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from toolhost.config.limits import LIMITS, MAX_DIGITS
from toolhost.config.load_budget import values_message
from toolhost.config.tree import Doc, Mark, Path, deep_path, format_path
from toolhost.config.yaml_scalars import ScalarReader
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["Limit", "build_doc"]

_T = "tag:yaml.org,2002:"
_SEQ, _MAP, _MERGE = _T + "seq", _T + "map", _T + "merge"
_OPEN = (MappingStartEvent, SequenceStartEvent)
_CLOSE = (MappingEndEvent, SequenceEndEvent)
_new_tuple = tuple.__new__
Event = Any  # PyYAML's event classes, whose attributes its stubs do not list


class Limit(Exception):
    """A limit passed in the text itself: its problem is the only one the file reports.
    ``deep``: the nesting limit, whose line also names the key path where it was passed
    (the builder's innermost collection sets it on the way out)."""

    def __init__(self, problem: Problem, deep: bool = False) -> None:
        super().__init__(problem.message)
        self.problem, self.deep = problem, deep

    def within(self, path: Path) -> None:
        """Name ``path`` (the value that opened one level too many) unless named already."""
        if self.deep and not self.problem.key_path:
            self.problem = dataclasses.replace(self.problem, key_path=deep_path(path))


class _Builder(ScalarReader):
    def __init__(self, loader: Any, doc: Doc, problems: list[Problem], values: int,
                 reached: list[int], aliases_possible: bool) -> None:
        super().__init__(loader, doc.layer)
        self.loader, self.doc, self.problems = loader, doc, problems
        self.marks, self.file, self.layer = doc.marks, doc.file, doc.layer
        self.depth_limit, self.alias_limit, self.value_limit = LIMITS.depth, LIMITS.aliases, values
        self.expand_limit = LIMITS.alias_nodes
        self.depth = self.values = self.aliases = self.expanded = 0
        self.reached = reached  # the depth and place of the last open/close (libyaml's stop)
        self.tape: list[tuple[Any, ...]] = []  # the events of anchored values, packed
        self.recording = 0  # anchored values open in the text (kept only if aliases can be)
        self.aliases_possible = aliases_possible
        self.anchors: dict[str, tuple[int, int]] = {}  # name -> its events in the tape
        self.open: set[str] = set()  # anchors being built or replayed: an alias to one recurses
        self.rest = self.events()
        self.stream: Callable[[], Event] = self.rest.__next__
        self.next = self.stream
        self.replaying = False
        self.merging = 0  # inside a merge source: keys written in the mapping keep their marks
        self.stopped = False

    # -- the event source --------------------------------------------------------------------
    def events(self) -> Generator[Event, None, None]:
        """The events of the text, with the limits a prescan would check (a generator: its
        counters are locals, the cheapest per event)."""
        get, file, reached, tape = self.loader.get_event, self.file, self.reached, self.tape
        value_limit, alias_limit, depth_limit = self.value_limit, self.alias_limit, \
            self.depth_limit
        anchor_limit = LIMITS.anchors
        values = aliases = depth = anchors = 0
        while True:
            event = get()
            kind = type(event)
            if kind is ScalarEvent:
                values += 1
                if values > value_limit:
                    raise Limit(_at(event, file, values_message(value_limit),
                                    "raise TOOLHOST_MAX_CONFIG_VALUES if this is meant"))
                if event.anchor is not None:
                    anchors += 1
                    if anchors > anchor_limit:
                        raise Limit(_anchors(event, file, anchor_limit))
            elif kind is AliasEvent:
                values += 1
                aliases += 1
                if values > value_limit:
                    raise Limit(_at(event, file, values_message(value_limit),
                                    "raise TOOLHOST_MAX_CONFIG_VALUES if this is meant"))
                if aliases > alias_limit:
                    raise Limit(_at(event, file, f"more than {alias_limit:,} YAML aliases",
                                    "raise TOOLHOST_MAX_YAML_ALIASES if this is meant"))
            elif kind in _OPEN:
                values += 1
                depth += 1
                reached[0], reached[1] = depth, event.start_mark.index
                if values > value_limit:
                    raise Limit(_at(event, file, values_message(value_limit),
                                    "raise TOOLHOST_MAX_CONFIG_VALUES if this is meant"))
                if depth > depth_limit:
                    raise Limit(_at(event, file, f"nested more than {depth_limit} mappings "
                                    "or lists deep",
                                    "raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant"),
                                deep=True)
                if event.anchor is not None:
                    anchors += 1
                    if anchors > anchor_limit:
                        raise Limit(_anchors(event, file, anchor_limit))
            elif kind in _CLOSE:
                depth -= 1
                reached[0], reached[1] = depth, event.start_mark.index
            if self.recording:
                tape.append(_pack(event))
            yield event
            if kind is StreamEndEvent:
                return

    def drain(self) -> int:
        """Read the rest of the text (its limits and syntax errors come first); the count of
        documents started on the way."""
        self.recording, documents = 0, 0
        for event in self.rest:
            documents += type(event) is DocumentStartEvent
        return documents

    # -- problems and marks ------------------------------------------------------------------
    def problem(self, event: Event, path: Path, message: str, hint: str = "") -> None:
        mark = event.start_mark
        self.problems.append(Problem(message, self.file, mark.line + 1, mark.column + 1,
                                     cut(format_path(path), 200), hint))

    def mark(self, event: Event, path: Path) -> None:
        m = event.start_mark  # a big file has tens of thousands: built as the tuple it is
        mark = _new_tuple(Mark, (self.file, m.line + 1, m.column + 1, self.layer))
        if self.merging:
            self.marks.setdefault(path, mark)
        else:
            self.marks[path] = mark

    def target(self, event: Event) -> Event:
        """An alias's anchored event (where its value is written), else the event."""
        if type(event) is AliasEvent:
            alias: Any = event  # (the stubs type an alias's anchor and mark as optional)
            span = self.anchors.get(alias.anchor)
            if span is None:
                raise ComposerError(None, None, "found undefined alias", alias.start_mark)
            return _unpack(self.tape[span[0]])
        return event

    # -- values ------------------------------------------------------------------------------
    def node(self, event: Event, path: Path) -> Any:
        """The value that starts with ``event`` (read already), its events read to its end."""
        kind = type(event)
        if kind is AliasEvent:
            return self.alias(event, path)
        if self.stopped:
            return self.skip(event)
        if self.replaying:
            self.expanded += 1
            if self.expanded > self.expand_limit:
                self.stopped = True
                self.problem(event, path, f"YAML aliases expand to more than "
                             f"{self.expand_limit:,} nodes (an alias bomb?)",
                             "raise TOOLHOST_MAX_YAML_ALIAS_NODES if this is meant")
                return self.skip(event)
        # aliases can nest what the text did not; a chain of merges (each mapping merging
        # the one before) nests the reading without a longer path: both count
        if len(path) + self.merging > self.depth_limit:
            self.stopped = True
            self.problem(event, path, f"nested more than {self.depth_limit} levels deep "
                         f"(through {'merge keys' if self.merging else 'aliases'})",
                         "raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")
            return self.skip(event)
        anchor = event.anchor
        if anchor is not None and not self.replaying:
            return self.anchored(event, anchor, path)
        if kind is ScalarEvent:
            return self.scalar(event, path)
        if anchor is not None:  # replayed: an alias to it inside recurses
            self.open.add(anchor)
        try:
            return self.mapping(event, path) if kind is MappingStartEvent \
                else self.sequence(event, path)
        finally:
            if anchor is not None:
                self.open.discard(anchor)

    def register(self, event: Event, anchor: str) -> int:
        """Keep ``event`` (read from the text) as the start of the anchor's events."""
        if anchor in self.anchors:
            first = _unpack(self.tape[self.anchors[anchor][0]]).start_mark
            raise ComposerError("found duplicate anchor; first occurrence", first,
                                "second occurrence", event.start_mark)
        if not self.recording:
            self.tape.append(_pack(event))
        start = len(self.tape) - 1
        self.anchors[anchor] = (start, start + 1)
        return start

    def anchored(self, event: Event, anchor: str, path: Path) -> Any:
        start = self.register(event, anchor)
        self.recording += self.aliases_possible
        self.open.add(anchor)
        try:
            if type(event) is ScalarEvent:
                return self.scalar(event, path)
            return self.mapping(event, path) if type(event) is MappingStartEvent \
                else self.sequence(event, path)
        finally:
            self.open.discard(anchor)
            self.recording -= self.aliases_possible
            self.anchors[anchor] = (start, len(self.tape))

    def alias(self, event: Event, path: Path) -> Any:
        target = self.target(event)
        if self.stopped:
            return None
        if event.anchor in self.open:
            self.problem(target, path, "recursive YAML alias")
            return None
        start, end = self.anchors[event.anchor]
        saved = self.next, self.replaying
        self.next, self.replaying = map(_unpack, self.tape[start + 1:end]).__next__, True
        try:
            return self.node(target, path)
        finally:
            self.next, self.replaying = saved

    def skip(self, event: Event) -> None:
        """Read past the value ``event`` starts (after a stop)."""
        depth = 1 if type(event) in _OPEN else 0
        while depth:
            kind = type(self.next())
            depth += 1 if kind in _OPEN else -1 if kind in _CLOSE else 0
        return None

    def sequence(self, event: Event, path: Path) -> list[Any]:
        if event.tag not in (None, "!", _SEQ):
            self.problem(event, path, f"unsupported YAML tag {cut(event.tag, 80)}")
        out: list[Any] = []
        try:
            return self.items(out, path)
        except Limit as exc:  # (a try costs nothing until it catches)
            exc.within((*path, len(out)))  # the item that opened one level too many
            raise
        except yaml.MarkedYAMLError as exc:  # a syntax error inside the item being read
            _within(exc, (*path, len(out)))
            raise

    def items(self, out: list[Any], path: Path) -> list[Any]:
        """A sequence's items, read to its end, into ``out``."""
        nxt, node, marks, file, layer = self.next, self.node, self.marks, self.file, self.layer
        fast, first = not self.replaying and not self.merging, self.first
        while True:
            item = nxt()
            kind = type(item)
            if kind is SequenceEndEvent:
                return out
            here = (*path, len(out))
            if fast and kind is ScalarEvent and item.anchor is None:
                m = item.start_mark  # the commonest item, a plain scalar, without calls
                marks[here] = _new_tuple(Mark, (file, m.line + 1, m.column + 1, layer))
                text = item.value
                if item.tag is None and not self.stopped:
                    if item.implicit[0]:
                        if text.isdigit() and text.isascii() and (text[0] != "0" or
                                                                  len(text) == 1) \
                                and len(text) <= MAX_DIGITS:
                            out.append(int(text))
                            continue
                        if text and text[0] not in first:
                            out.append(text)
                            continue
                    else:  # quoted
                        out.append(text)
                        continue
                out.append(node(item, here))
                continue
            self.mark(item if kind is not AliasEvent else self.target(item), here)
            out.append(node(item, here))

    def mapping(self, event: Event, path: Path) -> dict[str, Any]:
        if event.tag not in (None, "!", _MAP):
            self.problem(event, path, f"unsupported YAML tag {cut(event.tag, 80)}")
        out: dict[str, Any] = {}
        at = [path]  # the value being read, for a nesting limit passed inside it
        try:
            self.entries(out, path, at)
        except Limit as exc:
            exc.within(at[0])
            raise
        except yaml.MarkedYAMLError as exc:
            _within(exc, at[0])
            raise
        return out

    def entries(self, out: dict[str, Any], path: Path, at: list[Path]) -> None:
        """A mapping's entries, read to its end, into ``out`` (merged keys last);
        ``at[0]`` is kept at the path of the value being read."""
        merged: dict[str, Any] = {}
        merges = 0
        while True:
            at[0] = path
            key_event = self.next()
            if type(key_event) is MappingEndEvent:
                break
            key = self.target(key_event)
            if type(key) is ScalarEvent and key.value == "<<" and self.tag(key) == _MERGE:
                merges += 1
                if merges == 2:  # PyYAML would merge both; YAML says a key is written once
                    self.problem(key, path, "duplicate key '<<' (a mapping has one merge key)",
                                 "merge several mappings with one key: <<: [*a, *b]")
                self.merge(key_event, self.next(), path, merged)
                continue
            if type(key) is not ScalarEvent:
                self.problem(key, path, "a mapping key must be a plain string",
                             "quote templates: unquoted, {{ x }} is read as a mapping"
                             if type(key) is MappingStartEvent else "")
                self.muted(key_event, path)
                self.muted(self.next(), path)
                continue
            if key is key_event and key.anchor is not None and not self.replaying:
                self.register(key, key.anchor)  # an anchored key: kept for its aliases
            text = key.value
            child = (*path, text)
            if text in out:
                self.problem(key, child, "duplicate key (the earlier one would be lost)")
                self.muted(self.next(), child)
                continue
            self.mark(key, child)
            at[0] = child
            out[text] = self.node(self.next(), child)
        for text, item in merged.items():
            out.setdefault(text, item)

    def merge(self, key: Event, value: Event, path: Path, merged: dict[str, Any]) -> None:
        """``<<: value``: a mapping, an alias of one, or a list of those. What is not a
        mapping is one problem, at the ``<<`` (not one per item, at the anchor's line)."""
        source = self.target(value)
        if type(source) is not SequenceStartEvent:
            if not self.merge_one(value, path, merged):
                self._bad_merge(key, path, f"not {_kind(source)}")
            return
        saved = self.next, self.replaying
        if type(value) is AliasEvent:
            name: str = value.anchor or ""
            if self.stopped or name in self.open:
                return
            start, end = self.anchors[name]
            self.next, self.replaying = map(_unpack, self.tape[start + 1:end]).__next__, True
        bad: list[str] = []
        try:
            while True:
                item = self.next()
                if type(item) is SequenceEndEvent:
                    break
                if not self.merge_one(item, path, merged) and len(bad) < 3:
                    bad.append(_kind(self.target(item)))
        finally:
            self.next, self.replaying = saved
        if bad:
            self._bad_merge(key, path, f"its list holds {' and '.join(dict.fromkeys(bad))}")

    def _bad_merge(self, key: Event, path: Path, got: str) -> None:
        self.problem(key, path, "invalid YAML merge: '<<' takes a mapping or a list of "
                     f"mappings, {got}",
                     "anchor a mapping (x: &x {...}) "
                     "and merge it: <<: *x")

    def merge_one(self, event: Event, path: Path, merged: dict[str, Any]) -> bool:
        """One mapping merged in; False (and the value read unused) when it is not one."""
        source = self.target(event)
        if type(source) is not MappingStartEvent:
            self.muted(event, path)
            return False
        self.merging += 1
        try:
            value = self.node(event, path)
        finally:
            self.merging -= 1
        if isinstance(value, dict):
            for key, item in value.items():
                merged.setdefault(key, item)
        return True

    def muted(self, event: Event, path: Path) -> None:
        """Read a value nobody uses (a collection as a key, the value of a duplicate key):
        its anchors still count, its marks and problems do not."""
        if type(event) is AliasEvent:
            self.target(event)
            return
        marks, problems = self.marks, self.problems
        self.marks, self.problems = {}, []
        try:
            self.node(event, path)
        finally:
            self.marks, self.problems = marks, problems

def _kind(event: Event) -> str:
    """What a merged value is, in a problem's words."""
    if type(event) is SequenceStartEvent:
        return "a list"
    if type(event) is ScalarEvent:
        return "an empty value" if event.value == "" and event.implicit[0] else "a plain value"
    return "a value that is no mapping"  # pragma: no cover


def _within(exc: yaml.MarkedYAMLError, path: Path) -> None:
    """Name on ``exc`` (a syntax error) the key path being read when libyaml stopped, unless
    an inner value named it already: ``syntax_path`` reads it."""
    if not hasattr(exc, "toolhost_path"):
        exc.toolhost_path = cut(format_path(path), 200)  # type: ignore[attr-defined]


def syntax_path(exc: yaml.MarkedYAMLError) -> str:
    """The key path where the event builder was when ``exc`` stopped it ("" at the top)."""
    return str(getattr(exc, "toolhost_path", ""))


def _pack(event: Event) -> tuple[Any, ...]:
    """An event as a tuple: about half the memory of the event and its two marks (an
    anchored list of 499,000 values is kept whole for its aliases)."""
    mark = event.start_mark
    return (type(event), getattr(event, "anchor", None), getattr(event, "tag", None),
            getattr(event, "implicit", None), getattr(event, "value", None),
            getattr(event, "style", None), mark.line, mark.column)


def _unpack(packed: tuple[Any, ...]) -> Event:
    kind, anchor, tag, implicit, value, style, line, column = packed
    mark = yaml.error.Mark("", 0, line, column, None, 0)
    if kind is ScalarEvent:
        return ScalarEvent(anchor, tag, implicit, value, mark, mark, style)
    if kind is AliasEvent:
        return AliasEvent(anchor, mark, mark)
    if kind in _OPEN:
        return kind(anchor, tag, implicit, mark, mark)
    return kind(mark, mark)


def _at(event: Any, file: str, message: str, hint: str) -> Problem:
    mark = event.start_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    return Problem(message, file, line, column, hint=hint)


def _anchors(event: Any, file: str, limit: int) -> Problem:
    # each anchor keeps its event for the aliases (and the duplicate check): 499,000 of them
    # took 378 MB and 2.5 s, where honest files have a few dozen
    return _at(event, file, f"more than {limit:,} YAML anchors (&name)",
               "raise TOOLHOST_MAX_YAML_ANCHORS if this is meant")


def build_doc(loader: Any, file: str, layer: str, problems: list[Problem], values: int,
              reached: list[int], aliases_possible: bool = True) -> tuple[Doc, int, int]:
    """Build the first document of ``loader``'s text and read the rest: (the doc, the count
    of documents, the line where the second one starts). Raises ``Limit``, or PyYAML's
    errors for the text (a syntax error anywhere wins over an undefined alias).
    ``aliases_possible``: False when the text has no ``*``, so anchored values are not kept."""
    doc = Doc(data=None, file=file, layer=layer)
    doc.marks[()] = Mark(file, 1, 1, layer)
    builder = _Builder(loader, doc, problems, values, reached, aliases_possible)
    doc.spelled = builder.spelled  # (filled as the document is built)
    try:
        return _build(builder, doc)
    finally:
        # the event generator's frame holds the builder (a cycle): closed, nothing of the
        # parse (the loader and its text, the kept events) outlives it, with the cyclic
        # collector paused through a load or not
        builder.rest.close()


def _build(builder: _Builder, doc: Doc) -> tuple[Doc, int, int]:
    nxt = builder.stream
    nxt()  # the stream's start
    if type(nxt()) is StreamEndEvent:
        return doc, 0, 0
    try:
        doc.data = builder.node(nxt(), ())
        nxt()  # the document's end
        second = nxt()
    except ComposerError:
        builder.drain()
        raise
    doc.partial = builder.stopped
    if type(second) is StreamEndEvent:
        return doc, 1, 0
    root = nxt()
    line = (second if second.explicit else root).start_mark.line + 1
    return doc, 2 + builder.drain(), line

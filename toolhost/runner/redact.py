"""Secrets never reach the screen: every renderer sees the session through ``redact``.

The config knows which values are secret (``HostConfig.secrets``: values interpolated into
``env``, ``headers`` and ``auth``, and keys listed in ``secrets:``); a tool may still echo one
back, or the model may repeat it. ``RedactingRenderer`` wraps any renderer and replaces each
secret (in any encoding, see ``toolhost.redaction``) with ``***`` in every string it is
shown: messages (tool arguments, results, text, the raw ``--output json`` stream), permission
decisions and status lines.

Streamed pieces (``stream_event`` deltas, ``--include-partial-messages``) are joined by whoever
reads them, so a secret cut in two would pass a per-string check: each content block's text is
redacted as one text (``Redactor.stream_split``): a piece that could be the start of a secret
is held back until the next piece (or the block's end, when what is left is sent in one more
delta). The pieces shown join to exactly the redacted whole.

Tool results are one flow too (``toolhost.redaction.flow``): a built-in
tool's output (``Bash``: ``echo s3cr3t``, then ``echo T0k3nX``) is read after the results
before it, so a secret cut between two results is ``***`` where it is known.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.permissions.decision import Decision
from toolhost.redaction import Redactor, active
from toolhost.redaction.flow import Continued
from toolhost.redaction.values import mask_arguments, redact_strings
from toolhost.runner.render import Renderer

__all__ = ["RedactingRenderer", "redact_value"]

Redact = Callable[[str], str]


def redact_value(value: Any, redact: Redact) -> Any:
    """``value`` with ``redact`` applied to every string in it (keys too), at any depth; the
    ``input`` of every ``tool_use`` block is shown as ``mask_arguments`` shows arguments
    (secret-named ones are ``***``), as the audit log and the ask prompt show them."""
    if isinstance(value, Mapping) and value.get("type") == "tool_use" \
            and isinstance(value.get("input"), Mapping):
        return {**redact_strings({k: v for k, v in value.items() if k != "input"}, redact),
                "input": mask_arguments(value["input"], redact)}
    if isinstance(value, Mapping):
        return {redact(k) if isinstance(k, str) else k: redact_value(v, redact)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, redact) for v in value]
    return redact(value) if isinstance(value, str) else value


class RedactingRenderer:
    """A ``Renderer`` that hands ``inner`` only redacted text.

    ``redact`` is looked up on every call (a reload may bring new secrets): pass a function
    that reads the current config, e.g. ``lambda s: live.config.redact(s)``. ``redactor``
    gives the ``Redactor`` that streamed pieces are redacted with across their joins (at least
    the secrets ``redact`` hides; by default every secret this process knows). ``plain``,
    when given, says whether ``redact`` returns every text as it is right now (no secret to
    hide): a decision is then shown without a call of it, as it would have been anyway.
    """

    def __init__(self, inner: Renderer, redact: Redact,
                 redactor: Callable[[], Redactor] = active, *,
                 plain: Callable[[], bool] | None = None) -> None:
        self.inner = inner
        self.redact = redact
        self.plain = plain
        self.streams = DeltaStreams(redactor, redact)

    def message(self, message: Mapping[str, Any]) -> None:
        for shown in self.streams.message(message):
            self.inner.message(shown)

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        if decision.updated_input is None and self.plain is not None and self.plain():
            # one per call, no secret to hide: what the redactions below would give
            self.inner.decision(tool_name, decision, tool_use_id=tool_use_id)
            return
        r = self.redact
        message = r(decision.message)
        rule = r(decision.rule) if decision.rule is not None else None
        shown = decision  # one per call: a copy only when something is hidden
        if message != decision.message or rule != decision.rule \
                or decision.updated_input is not None:
            shown = dataclasses.replace(
                decision, message=message, rule=rule,
                updated_input=(mask_arguments(decision.updated_input, r)
                               if decision.updated_input is not None else None))
        self.inner.decision(r(tool_name), shown, tool_use_id=tool_use_id)

    def status(self, text: str) -> None:
        self.inner.status(self.redact(text))

    def close(self) -> None:
        for shown in self.streams.flush():
            self.inner.message(shown)
        self.inner.close()


MAX_STREAMS = 256  # content blocks streaming at once (the oldest is let go past it)


@dataclasses.dataclass
class _Stream:
    """One content block being streamed."""

    held: str  # raw text that may be the start of a secret
    last: dict[str, Any]  # the block's last delta as shown (a copy carries what is held)
    field: str


def _stream_of(message: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Which streamed text a ``stream_event`` is about: a content block (its deltas, its end)
    or a whole message (its start and end); None for anything else."""
    event = message.get("event")
    if message.get("type") != "stream_event" or not isinstance(event, Mapping):
        return None
    where = (str(message.get("session_id")), str(message.get("parent_tool_use_id")))
    kind = event.get("type")
    if kind in ("content_block_start", "content_block_delta", "content_block_stop"):
        index = event.get("index")
        if isinstance(index, (list, dict)):  # JSON that is no key: keyed by its text
            index = ("json", json.dumps(index, sort_keys=True, default=str))
        return (*where, index)
    return where if kind in ("message_start", "message_stop") else None


class DeltaStreams:
    """The text of each streamed content block, redacted across its pieces (see the module
    docstring): ``message`` gives what to show for a message (the message, with what of a
    delta can be shown; before a block's or message's end, a delta with what was held)."""

    def __init__(self, redactor: Callable[[], Redactor], redact: Redact) -> None:
        self.redactor = redactor
        self.redact = redact
        self.open: dict[tuple[Any, ...], _Stream] = {}
        self.results = Continued()  # the session's tool results, read one after another

    def message(self, message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        key = _stream_of(message)
        shown = redact_value(message, self.redact)
        if key is None and message.get("type") == "user":
            _continued_results(self.results, shown)
        if key is None:  # at the end of a turn, whatever was streamed has ended
            return [*self.flush(), shown] if message.get("type") == "result" else [shown]
        event = message["event"]
        delta = event.get("delta")
        if event.get("type") == "content_block_start":  # a block that starts with text
            out = self.flush(lambda k: k[:len(key)] == key)
            self._seed(key, event, shown)
            return [*out, shown]
        if event.get("type") != "content_block_delta" or not isinstance(delta, Mapping):
            return [*self.flush(lambda k: k[:len(key)] == key), shown]
        hide = self.redactor()
        for name, value in delta.items():
            if name == "type" or not isinstance(value, str):
                continue
            stream = self.open.pop((*key, name), None)
            text, held = hide.stream_split((stream.held if stream else "") + value,
                                           by_line=False)
            shown["event"]["delta"][self.redact(name)] = self.redact(text)
            self.open[(*key, name)] = _Stream(held, shown, name)
        if len(self.open) > MAX_STREAMS:  # memory stays bounded: the oldest one ends
            oldest = next(iter(self.open))
            return [*self.flush(lambda k: k == oldest), shown]
        return [shown]

    def _seed(self, key: tuple[Any, ...], event: Mapping[str, Any],
              shown: dict[str, Any]) -> None:
        """The text a ``content_block_start`` carries is the start of the block's stream
        (the API starts blocks empty; a CLI may not): its open end is held for the deltas."""
        block = event.get("content_block")
        if not isinstance(block, Mapping):
            return
        for name in ("text", "thinking"):
            value = block.get(name)
            if not isinstance(value, str) or not value:
                continue
            text, held = self.redactor().stream_split(value, by_line=False)
            shown["event"]["content_block"][name] = self.redact(text)
            if held:
                last = {**shown, "event": {"type": "content_block_delta",
                                           "index": event.get("index"),
                                           "delta": {"type": f"{name}_delta", name: ""}}}
                self.open[(*key, name)] = _Stream(held, last, name)

    def flush(self, which: Callable[[tuple[Any, ...]], bool] = lambda k: True,
              ) -> list[Mapping[str, Any]]:
        """A last delta for each held text of the streams ``which`` picks, which end."""
        out: list[Mapping[str, Any]] = []
        for key in [k for k in self.open if which(k)]:
            stream = self.open.pop(key)
            if not stream.held:
                continue
            last = copy.deepcopy(stream.last)
            delta = last["event"]["delta"]
            last["event"]["delta"] = {"type": delta.get("type"),
                                      self.redact(stream.field): self.redact(
                                          self.redactor().redact(stream.held))}
            if "uuid" in last:
                last["uuid"] = str(uuid.uuid4())
            out.append(last)
        return out


def _continued_results(flow: Continued, shown: Any) -> None:
    """The text of the ``tool_result`` blocks of a user message (``shown``: redacted, this
    message's own copy), each read after the results before it (``Continued.starts``)."""
    body = shown.get("message")
    content = body.get("content") if isinstance(body, Mapping) else None
    if not isinstance(content, list):
        return
    places: list[tuple[Any, Any]] = []  # (what holds a text, its key)
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        inner = block.get("content")
        if isinstance(inner, str):
            places.append((block, "content"))
        elif isinstance(inner, list):
            places += [(item, "text") for item in inner
                       if isinstance(item, dict) and isinstance(item.get("text"), str)]
    texts = [holder[key] for holder, key in places]
    if texts:
        for (holder, key), text in zip(places, flow.starts(texts), strict=True):
            holder[key] = text

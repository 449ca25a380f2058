"""One client session's messages read as one flow: a secret cut between two results is hidden.

Each tool result is redacted on its own (``toolhost.compile.tool``), and so each log line and
progress message after the ones of its own call (``toolhost.redaction.flow``). A tool that
returns a secret in pieces, one a call (``s3cr3t``, then ``T0k3nX``), had no piece long
enough to be known by, and the client (the model) joined them. ``SessionFlows`` keeps one
``Continued`` per peer (a session; ``None``: stdio's one client, or stateless HTTP requests,
which one client may split its calls over), shared by its results, its calls' log lines and
their progress messages; ``continued`` masks the start of a result that a secret begun in
what the session was sent before runs into.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

from toolhost.compile.shaping import compact_json
from toolhost.redaction import active
from toolhost.redaction.flow import HEAD, Continued
from toolhost.redaction.leaves import replaced as _replaced
from toolhost.redaction.leaves import strings as _strings
from toolhost.results import ToolResult

__all__ = ["SessionFlows", "continued", "continued_content"]


class SessionFlows:
    """The ``Continued`` of each peer, at most ``limit`` of them (the oldest goes first)."""

    __slots__ = ("_flows", "limit")

    def __init__(self, limit: int = 10_000) -> None:
        self._flows: dict[Hashable, Continued] = {}
        self.limit = limit

    def of(self, peer: Hashable) -> Continued:
        """The flow of ``peer`` (made on its first message)."""
        flow = self._flows.get(peer)
        if flow is None:
            if len(self._flows) >= self.limit:  # never grow without bound
                self._flows.pop(next(iter(self._flows)))
            flow = self._flows[peer] = Continued()
        return flow

    def forget(self, peer: Hashable) -> None:
        """``peer``'s session ended."""
        self._flows.pop(peer, None)


def continued(flow: Continued, result: ToolResult, *, mask: bool = True) -> ToolResult:
    """``result`` (redacted) with the part of its text blocks, and of its structured
    content's strings, that a secret begun in the flow's messages before runs into as
    ``***``; its text is what the next message is read after. Without ``mask`` (a tool
    whose results are shown as they are, ``redact_results: false``) only that."""
    if not active():
        return result
    blocks = [i for i, b in enumerate(result.content)
              if b.get("type") == "text" and isinstance(b.get("text"), str)]
    strings: list[str] = []
    if result.structured is not None:
        _strings(result.structured, strings)
    if not blocks and not strings:
        return result
    given = [result.content[i]["text"] for i in blocks]
    texts = _json_texts(flow, given) if result.structured is None and mask else given
    if not mask:
        flow.starts(texts or strings)
        return result
    # (the structured view first: read after the same messages, before the text is kept)
    seen = flow.starts(strings, record=not texts) if strings else strings
    shown = flow.starts(texts) if texts else texts
    if shown == given and seen == strings:
        return result
    content = list(result.content)
    for i, text in zip(blocks, shown, strict=True):
        if text != content[i]["text"]:
            content[i] = {**content[i], "text": text}
    structured = result.structured
    if seen != strings:
        structured = _replaced(structured, iter(seen))
        # the structured content's JSON text (what the model reads of it) is shown as the
        # structured content now is
        raw, now = compact_json(result.structured), compact_json(structured)
        content = [{**block, "text": now} if block.get("type") == "text"
                   and block.get("text") == raw else block for block in content]
    return ToolResult(content=tuple(content), structured=structured,
                      is_error=result.is_error)


def _json_texts(flow: Continued, texts: list[str]) -> list[str]:
    """``texts`` with the first, if it is JSON (a tool that returns JSON as text, with no
    structured content), shown as its value is once its strings are read after the flow
    (their quotes and keys cut a secret's pieces apart: ``{"part": "T0k3nX"}``); a text
    changed is written again as JSON (compact: hiding a piece matters more than layout)."""
    value = _json(texts[0]) if texts else None
    if value is None:
        return texts
    strings: list[str] = []
    _strings(value, strings)
    seen = flow.starts(strings, record=False) if strings else strings
    if seen == strings:
        return texts
    return [compact_json(_replaced(value, iter(seen))), *texts[1:]]


def _json(text: str) -> Any:
    """``text``'s value when it is a JSON object or array (within the flow's ``HEAD``), else
    None."""
    head = text[:64].lstrip()
    if not head.startswith(("{", "[")) or len(text) > HEAD:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


def continued_content(flow: Continued, answer: dict[str, Any]) -> dict[str, Any]:
    """A ``resources/read`` or ``prompts/get`` answer (redacted) read after the flow's
    messages, as ``continued`` reads a tool's result: its contents' and its messages'
    text (a copy where it changes: an answer may be shared)."""
    if not active():
        return answer
    contents, messages = answer.get("contents"), answer.get("messages")
    texts: list[str] = []
    if isinstance(contents, list):
        texts += [item["text"] for item in contents if _text(item)]
    if isinstance(messages, list):
        texts += [m["content"]["text"] for m in messages
                  if isinstance(m, dict) and _text(m.get("content"))]
    shown = flow.starts(texts) if texts else texts
    if shown == texts:
        return answer
    it = iter(shown)
    answer = dict(answer)
    if isinstance(contents, list):
        answer["contents"] = [{**item, "text": next(it)} if _text(item) else item
                              for item in contents]
    if isinstance(messages, list):
        answer["messages"] = [
            {**m, "content": {**m["content"], "text": next(it)}}
            if isinstance(m, dict) and _text(m.get("content")) else m for m in messages]
    return answer


def _text(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("text"), str)

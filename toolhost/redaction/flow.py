"""A secret cut between the messages of one flow: each message is redacted with the ones before.

A tool's log lines to the client (``ctx.log``) and its progress messages (``ctx.progress``)
are each sent as they come, each redacted alone: a secret sent in three pieces
(``ctx.log("info", "sk-live-")``, ``"9f8e7d6c"``, ``"5b4a3921"``) had no piece long enough to
be known by (the pieces finder needs 10 letters and digits) and the client joined them.
``Continued`` redacts each message after the end of the ones before it (``KEEP``
characters, raw): where a secret found in that join runs into the new message, the new
message's part of it is ``***``. What was sent is sent; what shows is at most the first
pieces of a secret, fewer than the 10 letters and digits a piece of one is known by (as one
message with that much of it shows).

One flow is a client's session (``toolhost.mcp.tools_call``): its tool
results (``starts``: their text already redacted), the log lines and the progress messages
of every call, in the order they are made. Two results of 6 characters each
(``s3cr3t``, then ``T0k3nX``) showed a whole secret; the second is ``***`` now.
"""

from __future__ import annotations

import threading

from toolhost.redaction import MASK, active

__all__ = ["HEAD", "KEEP", "Continued"]

KEEP = 512  # raw characters of the messages before that a new one is read after
HEAD = 8192  # characters of a new message's start read after them (a stream holds as many)


class Continued:
    """Redacts the messages of one flow (``__call__``), each after the ones before."""

    __slots__ = ("_lock", "_tail")

    def __init__(self) -> None:
        self._tail = ""
        self._lock = threading.Lock()  # (a sync tool's thread and the loop may both log)

    def __call__(self, text: str) -> str:
        """``text`` redacted, and its start ``***`` where a secret begun in the messages
        before runs into it."""
        hide = active()
        with self._lock:
            before = self._tail
            self._tail = (before + "\n" + text)[-KEEP:] if before else text[-KEEP:]
        if not hide or not before:
            return hide.redact(text)
        at = len(before) + 1  # (a line break between: a program's lines, one a message)
        reach = max((end for start, end in hide.spans(f"{before}\n{text}")
                     if start < at < end), default=at) - at
        if reach <= 0:
            return hide.redact(text)
        return MASK + hide.redact(text[reach:])

    def starts(self, texts: list[str], *, record: bool = True) -> list[str]:
        """The strings of one message (a result's text blocks, in order; each already
        redacted) with the part a secret begun in the messages before runs into as ``***``
        (over several strings too, read joined by line breaks). ``record``: the message's
        end is what the next one is read after (False: another view of the same message,
        such as a result's structured content)."""
        hide = active()
        joined = "\n".join(texts)
        with self._lock:
            before = self._tail
            if record and texts:
                self._tail = (before + "\n" + joined)[-KEEP:] if before else joined[-KEEP:]
        if not hide or not before or not texts:
            return texts
        at = len(before) + 1
        reach = max((end for start, end in hide.spans(f"{before}\n{joined[:HEAD]}")
                     if start < at < end), default=at) - at
        if reach <= 0:
            return texts
        out, pos = [], 0
        for text in texts:  # each string the secret's end reaches into: its part is ***
            k = min(reach - pos, len(text))
            out.append(MASK + text[k:] if k > 0 else text)
            pos += len(text) + 1
        return out

"""Where a text's edge is inside one of a secret's literal forms: the piece of a form a cut
text starts or ends with (``longest``), and the end a stream's next piece could still turn
into a form (``open_tail``)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["longest", "open_tail"]


def longest(text: str, every: Iterable[str], *, at_end: bool) -> int:
    """The length of the longest piece (2 characters or more) of a form at an edge of
    ``text``: a form's start at its end (``at_end``), else a form's end at its start."""
    best = 0
    if not text:
        return 0
    edge = text[-1] if at_end else text[0]
    for form in every:  # only the places of the form that hold the edge's character
        top = min(len(form) - 1, len(text))
        if at_end:  # form[:k] ends the text: form[k - 1] is its last character
            k = form.rfind(edge, 0, top) + 1
            while k > max(best, 1):
                if text.endswith(form[:k]):
                    best = k
                    break
                k = form.rfind(edge, 0, k - 1) + 1
        else:  # form[i:] starts the text: form[i] is its first character
            i = form.find(edge, len(form) - top)
            while i >= 0 and len(form) - i > max(best, 1):
                if text.startswith(form[i:]):
                    best = len(form) - i
                    break
                i = form.find(edge, i + 1)
    return best


def open_tail(text: str, every: Iterable[str]) -> int:
    """The length of the longest end of ``text`` (one character or more) that is the start of
    a form, not the whole of it: what a continuation could still make a secret."""
    best = 0
    size = len(text)
    for form in every:
        start = text.find(form[0], max(size - len(form) + 1, 0), size - best)
        while start != -1:
            if form.startswith(text[start:]):
                best = size - start
                break
            start = text.find(form[0], start + 1, size - best)
    return best

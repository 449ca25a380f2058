"""The ``Redactor``: a fixed set of secret values, hidden in every form they take on the way
out (the forms and finders are this package's other modules; the package's docstring says
which). ``redactor_for`` caches one per set of secrets.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolhost.redaction.edges import longest as _longest
from toolhost.redaction.edges import open_tail as _open_tail
from toolhost.redaction.forms import forms, rare_forms
from toolhost.redaction.marks import JSON_WORDS, MASK, MAX_SECRET, SECRET_KEY
from toolhost.redaction.spell import Matcher
from toolhost.redaction.tail import MAX_HOLD, SpelledTails

if TYPE_CHECKING:
    from toolhost.redaction.cipher import Shifted, Xored
    from toolhost.redaction.decoded import Budget
    from toolhost.redaction.reordered import Reordered
    from toolhost.redaction.squeezed import Squeezed

# The dump and wrapped-line finders (redaction.chardump, .hexdump, .wrapped: ~3 ms of regular
# expressions and classes at import) are imported by the first Redactor that has a secret:
# a config without secrets never needs them (a fresh `serve`'s start-up).

__all__ = ["JSON_WORDS", "MASK", "MAX_SECRET", "SECRET_KEY", "Redactor", "redactor_for"]

@dataclass(frozen=True)
class Redactor:
    """Hides a fixed set of secret values. Immutable; build once, call per output."""

    secrets: frozenset[str] = frozenset()
    _pattern: Matcher | None = field(default=None, init=False, repr=False,
                                             compare=False)
    _forms: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)

    @functools.cached_property
    def _tails(self) -> SpelledTails:
        """Where a text may end inside a spelled secret (for ``stream_split``)."""
        return SpelledTails(self.secrets)

    def __post_init__(self) -> None:
        # JSON's own words are never hidden: "isError": true would become "isError": ***
        # in every JSON toolhost writes (call --json, run --output json, tools --json), and
        # such a value guards nothing
        object.__setattr__(self, "secrets", frozenset(
            s for s in self.secrets if s and s not in JSON_WORDS))
        every: set[str] = set()
        rare: set[str] = set()
        if self.secrets:  # (imported with the first secret: no start-up pays for it)
            from toolhost.redaction.cipher import cipher_forms
        for secret in self.secrets:
            every |= forms(secret)
            rare |= rare_forms(secret) | cipher_forms(secret)
        object.__setattr__(self, "_forms", frozenset(every))  # also looked for at cut edges
        if every:
            from toolhost.redaction.chardump import SpacedChars
            from toolhost.redaction.hexdump import SpacedHex

            # a dump of the secret's base64 (``base64 | xxd``, ``base64 | od -c``) is a
            # dump of a text that is a secret's form: looked for whole
            encoded = {_base64(s) for s in self.secrets if len(s) >= 8}
            dumped = (SpacedHex(encoded), SpacedChars(encoded)) if encoded else None
            object.__setattr__(self, "_pattern", Matcher(self.secrets, every,
                                                         SpacedHex(self.secrets),
                                                         SpacedChars(self.secrets), dumped,
                                                         rare))

    def __call__(self, text: str) -> str:
        return self.redact(text)

    @functools.cached_property
    def multiline(self) -> bool:
        """Whether a secret holds a line break (and may span the lines of a list)."""
        return any("\n" in secret or "\r" in secret for secret in self.secrets)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the secrets are in ``text``, as (start, end), left to right (a secret in
        base64 or hex wrapped over lines, or hex spaced by bytes, too)."""
        if self._pattern is None:
            return []
        found = list(self._pattern.spans(text))
        extra = self._across_lines(text)
        extra += self._more(text, extra)
        if not extra and not found:
            return found
        from toolhost.redaction.wrapped import merged

        return self._with_rest(text, merged(found + extra))

    def _with_rest(self, text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``spans`` (merged, not empty), and the decoded runs of what they leave: the text
        read again with them blanked out, so a run a secret's span cut (a piece of one glued
        to another form of it: ``%59%5A`` then the rest's hex, ``...XYZ`` then a piece's
        base64) is read alone."""
        from toolhost.redaction.wrapped import merged

        parts: list[str] = []
        pos = 0
        for start, end in spans:
            parts += (text[pos:start], " " * (end - start))
            pos = end
        parts.append(text[pos:])
        rest = self._decoded("".join(parts))
        return merged(spans + rest) if rest else spans

    def _across_lines(self, text: str, squeezed: bool = True) -> list[tuple[int, int]]:
        """Secrets whose encoding a line break cuts: wrapped base64 or hex (its breaks maybe
        JSON-escaped), base85 or uuencode, a soft line break, any text folded at a fixed
        width; and (``squeezed``) a secret spread out by punctuation and blanks, or a piece
        of one (in one line too)."""
        pieces = [*self._squeezed.spans(text), *self._reordered.spans(text),
                  *self._keyed(text)] if squeezed else []
        if "\n" not in text and "\\" not in text:
            return pieces
        from toolhost.redaction.folded import folded_spans
        from toolhost.redaction.wrapped import ragged_spans, soft_spans, wrapped_spans

        if self._pattern is None:
            return pieces
        pattern = self._pattern

        def spans() -> Callable[[str], Iterable[tuple[int, int]]]:
            # one budget of places per pass for all the blocks it reads (each block its own:
            # many small blocks made of a secret's start were each tried in full)
            tries = pattern.budget(text)
            return lambda joined: pattern.spans(joined, tries)

        found = list(wrapped_spans(text, spans()))
        if "\n" in text:
            found += [*ragged_spans(text, spans()), *soft_spans(text, spans()),
                      *folded_spans(text, spans())]
        return found + pieces

    @functools.cached_property
    def _max_depth(self) -> int:
        from toolhost.redaction.decoded import MAX_DEPTH

        return MAX_DEPTH

    def _deeper(self, text: str, depth: int, budget: Budget) -> list[tuple[int, int]]:
        """Where the secrets are in a decoded text (``depth`` decodings down)."""
        if self._pattern is None:
            return []
        return [*self._pattern.spans(text), *self._across_lines(text),
                *self._decoded(text, depth, budget), *self._shifted.spans(text)]

    def _decoded(self, text: str, depth: int = 0,
                 budget: Budget | None = None) -> list[tuple[int, int]]:
        """The runs of base64, hex or escapes in ``text`` whose decoding (maybe decompressed)
        holds a secret (``toolhost.redaction.decoded``), ``depth`` decodings down, all of
        them within one ``budget`` (made for ``text`` at the top)."""
        if depth >= self._max_depth:
            return []
        from toolhost.redaction.decoded import Budget, decoded_spans

        spent = Budget(len(text)) if budget is None else budget
        return decoded_spans(text, lambda t: self._deeper(t, depth + 1, spent), spent,
                             self._xored)

    @functools.cached_property
    def _xored(self) -> Xored:
        """The secrets XORed with one byte (``toolhost.redaction.cipher``)."""
        from toolhost.redaction.cipher import Xored

        return Xored(self.secrets)

    @functools.cached_property
    def _shifted(self) -> Shifted:
        """The secrets with letters and digits rotated (``toolhost.redaction.cipher``)."""
        from toolhost.redaction.cipher import Shifted

        return Shifted(self.secrets)

    def _more(self, text: str, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The decoded runs (``_decoded``) that hold none of the spans ``found``: a secret one
        encoding deep is hidden where it is, not with all of the run around it (a wrapped
        base64 block holding the secret's base64 between other data)."""
        runs = self._decoded(text)
        if text.isascii() and self._xored:  # XORed with a key that kept it printable
            runs += self._xored.spans(text.encode("ascii"))
        runs += self._shifted.spans(text)  # letters and digits rotated
        if self._pattern is not None and len(text) >= 2 * _STRIDE_MIN:
            runs += self._interleaved(text)
        if self._pattern is not None and not text.isascii():
            runs += self._look_alike(text)
        elif self._pattern is not None and self._controls.search(text) is not None:
            runs += self._look_alike(text)  # escape sequences, overstrikes, controls
        if not runs:
            return []
        if self._pattern is not None:
            found = [*found, *self._pattern.spans(text)]
        return [(a, b) for a, b in runs if not any(s < b and e > a for s, e in found)]

    def _interleaved(self, text: str) -> list[tuple[int, int]]:
        """The secrets (8 characters or more) read a character in two, from the first
        character or the second: a secret with one other character after each of its own
        (``sxkx-xlx...``), or two outputs mixed a character at a time."""
        assert self._pattern is not None
        found = []
        for first in (0, 1):
            found += [(2 * a + first, 2 * (b - 1) + first + 1)
                      for a, b in self._pattern.spans(text[first::2]) if b - a >= _STRIDE_MIN]
        return found

    @functools.cached_property
    def _controls(self) -> re.Pattern[str]:
        from toolhost.redaction.confusable import CONTROLS

        return CONTROLS

    def _look_alike(self, text: str) -> list[tuple[int, int]]:
        """The secrets in look-alike characters (the same places: one for one), or with
        what a reader does not see between their characters (combining marks, a terminal's
        escape sequences, overstrikes, zero-width characters; tag characters as ASCII:
        ``toolhost.redaction.confusable``)."""
        from toolhost.redaction.confusable import folded, unseen

        assert self._pattern is not None
        found = []
        plain = folded(text)
        if plain != text:
            found += [*self._pattern.spans(plain), *self._squeezed.spans(plain)]
        bare = unseen(plain)
        if bare is not None:
            stripped, where = bare
            # from just after the character before it: what was taken out before the
            # secret's first character (``s\bs``, a colour) is hidden with it
            found += [(where[a - 1] + 1 if a else 0, where[b])
                      for a, b in [*self._pattern.spans(stripped),
                                   *self._squeezed.spans(stripped)]]
        return found

    @functools.cached_property
    def _squeezed(self) -> Squeezed:
        """The secrets spread out by punctuation and blanks (``toolhost.redaction.squeezed``)."""
        from toolhost.redaction.forms import base64_cores
        from toolhost.redaction.squeezed import Squeezed

        return Squeezed((secret, base64_cores(secret.encode("utf-8", "surrogatepass")))
                        for secret in self.secrets)

    @functools.cached_property
    def _reordered(self) -> Reordered:
        """The secrets' parts out of order, or reversed (``toolhost.redaction.reordered``)."""
        from toolhost.redaction.reordered import Reordered

        return Reordered(self.secrets)

    def _keyed(self, text: str) -> list[tuple[int, int]]:
        """A secret's pieces between keys (``toolhost.redaction.keyed``)."""
        if self._pattern is None or ("=" not in text and '"' not in text):
            return []
        from toolhost.redaction.keyed import keyed_spans

        pattern, squeezed = self._pattern, self._squeezed
        return keyed_spans(text, lambda t: [*pattern.spans(t), *squeezed.spans(t)])

    def __bool__(self) -> bool:
        return self._pattern is not None

    def redact(self, text: str, *, squeezed: bool = True) -> str:
        """``text`` with every form of every secret replaced by ``***`` (without
        ``squeezed``, not those spread out by punctuation, nor pieces of one)."""
        if self._pattern is None or not isinstance(text, str):
            return text
        extra = self._across_lines(text, squeezed)
        if squeezed:  # (without: a cut's edges are measured; whole runs would hide them)
            extra += self._more(text, extra)
        if not extra:
            out = self._pattern.sub(text, MASK)
            if out is text or out == text or not squeezed:
                return out
        from toolhost.redaction.wrapped import merged

        spans = merged([*self._pattern.spans(text), *extra])
        if squeezed:
            spans = self._with_rest(text, spans)
        out_parts: list[str] = []
        pos = 0
        for start, end in spans:
            out_parts += (text[pos:start], MASK)
            pos = end
        out_parts.append(text[pos:])
        return "".join(out_parts)

    def value(self, value: Any) -> Any:
        """A copy of ``value`` (JSON-like) with ``redact`` applied to every string, keys too."""
        # redaction.values builds on Redactor: imported here so the import graph has no circle
        from toolhost.redaction.values import redact_strings

        return redact_strings(value, self.redact) if self else value

    def mask(self, value: Any) -> Any:
        """Tool arguments as shown to people: ``value``, and secret-named keys are ``***``."""
        from toolhost.redaction.values import mask_arguments

        return mask_arguments(value, self.redact)

    def cut_edges(self, text: str, *, head: bool = False, tail: bool = False) -> str:
        """``text`` redacted, for a text something else already cut: with ``tail``, an end
        that is the start of a secret (in any form) is ``***`` too; with ``head``, a start that
        is the end of one. (A cut made after redaction needs none of this.)"""
        if not (head or tail):
            return self.redact(text)
        # the edges are measured on the text with whole secrets hidden: a piece hidden
        # first (``redaction.squeezed``) would hide the rest the edge is known by
        return self.redact(self._edges(self.redact(text, squeezed=False), head=head,
                                       tail=tail))

    def mask_edges(self, text: str, *, head: bool = False, tail: bool = False) -> str:
        """Only the edges of ``cut_edges``: whole secrets in ``text`` are left for whoever
        redacts it later (a tool's result, which its ``redact_results`` may keep as it is)."""
        if self._pattern is None or not (head or tail):
            return text
        # Measured on the redacted text: the end of a whole secret can look like the start
        # of another, and that piece must not be masked (the whole one would not be found).
        redacted = self.redact(text, squeezed=False)  # pieces: for whoever redacts it
        if tail:
            kept = self._edges(redacted, tail=True)
            k = len(redacted) - len(kept) + len(MASK)
            if kept != redacted and text.endswith(redacted[-k:]):
                text = text[:len(text) - k] + MASK
        if head:
            kept = self._edges(redacted, head=True)
            k = len(redacted) - len(kept) + len(MASK)
            if kept != redacted and text.startswith(redacted[:k]):
                text = MASK + text[k:]
        return text

    def _edges(self, text: str, *, head: bool = False, tail: bool = False) -> str:
        if self._pattern is None:
            return text
        from toolhost.redaction.wrapped import wrapped_edge

        every = self._forms
        if tail:  # a form's start at the end, a wrapped block's (its lines joined), a dump's
            k = max(_longest(text, every, at_end=True), wrapped_edge(
                text, lambda t: _longest(t, every, at_end=True), at_end=True),
                self._pattern.dump_tail(text, least=2))
            text = text[:len(text) - k] + MASK if k else text
        if head:
            k = max(_longest(text, every, at_end=False), wrapped_edge(
                text, lambda t: _longest(t, every, at_end=False), at_end=False,
                spans=self._pattern.spans), self._pattern.dump_head(text, least=2))
            text = MASK + text[k:] if k else text
        return text

    def stream_split(self, text: str, *, pieces: bool = True,
                     by_line: bool = True) -> tuple[str, str]:
        """For text that goes on in later pieces (a stream cut anywhere): ``(shown, held)``.

        ``shown`` is the redacted start of ``text`` that no continuation can change; ``held``
        is the raw rest (the start of a secret, in any form or spelling, may be in it), to be
        put before the next piece. The ``shown`` parts of every piece, then ``redact(held)``
        at the end, join to exactly ``redact`` of the whole text, wherever the text was cut
        (a rest longer than ``MAX_HOLD`` characters is shown as ``***``, not held). Without
        ``pieces``, an end that only a piece of a secret found later would grow over is
        shown (a line its writer flushed unfinished, a prompt: shown now, not held); with
        ``by_line`` (a stream of lines), not an end past a line break, so each line shows
        as it ends (a model's streamed text holds it: ``by_line=False``)."""
        if self._pattern is None:
            return text, ""
        from toolhost.redaction.decoded import packed_tail
        from toolhost.redaction.wrapped import line_held, wrapped_hold

        tail = max(_open_tail(text, self._forms), self._tails.open_tail(text),
                   wrapped_hold(text, lambda t: _open_tail(t, self._forms)),
                   self._pattern.dump_tail(text),
                   self._squeezed.open_tail(text, MAX_HOLD, by_line=by_line) if pieces else 0,
                   packed_tail(text))  # a compressed run is decoded whole: held to its end
        if not text.isascii() or self._controls.search(text) is not None:
            tail = max(tail, self._unseen_tail(text))  # a colour between its characters
        # held from the start of its line when that is base64 or hex, and a line of it in
        # progress keeps its end: a wrapped block's first line must be read whole
        tail = line_held(text, tail)
        if tail > MAX_HOLD:  # bounded: an absurdly padded spelling is not held, but hidden
            return self.redact(text[:len(text) - tail]) + MASK, ""
        cut = len(text) - tail
        shown: list[str] = []
        pos = 0
        # Every match starting before ``cut`` is final: a form starting there fits in ``text``
        # (else ``text`` would end with a longer start of a form), so more text cannot change
        # which one matches. The last of them may end past ``cut``: it is shown whole. But
        # not one that reaches the end: a run decoded whole (base64 holding a piece) may go
        # on, and what it is then can change which spans the whole text has: it is held.
        found = self.spans(text)
        if pieces and found and found[-1][1] >= len(text) and found[-1][0] < cut \
                and len(text) - found[-1][0] <= MAX_HOLD:
            cut = found[-1][0]
        for start, stop in found:
            if start >= cut:
                break
            shown += (text[pos:start], MASK)
            pos = stop
        end = max(cut, pos)
        shown.append(text[pos:end])
        return "".join(shown), text[end:]

    def _unseen_tail(self, text: str) -> int:
        """The end of ``text`` that may start a secret once what a reader does not see
        between its characters (escape sequences, overstrikes, zero-width and tag
        characters, look-alikes) is taken out (0: none)."""
        from toolhost.redaction.confusable import folded, unseen

        plain = folded(text)
        bare = unseen(plain)
        stripped, where = bare if bare is not None else (plain, range(len(plain) + 1))
        if stripped == text:
            return 0
        k = max(_open_tail(stripped, self._forms), self._tails.open_tail(stripped))
        if not k:
            return 0
        start = len(stripped) - k  # from just after the character before it
        return len(text) - (where[start - 1] + 1 if start else 0)

    def union(self, secrets: Iterable[str]) -> Redactor:
        more = frozenset(s for s in secrets if s) - self.secrets
        return self if not more else redactor_for(self.secrets | more)


_STRIDE_MIN = 8  # a secret read a character in two: 8 characters or more (fewer: by chance)


def _base64(secret: str) -> str:
    import base64

    return base64.b64encode(secret.encode("utf-8", "surrogatepass")).decode()


@functools.lru_cache(maxsize=32)
def redactor_for(secrets: frozenset[str]) -> Redactor:
    """The (shared, cached) ``Redactor`` of a set of secrets."""
    return Redactor(secrets)

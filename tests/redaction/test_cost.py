"""What redaction does per byte of hostile output is bounded: these tests count the work
(places tried, dump bytes followed), never the time."""

from __future__ import annotations

import base64
import gzip
import re
from typing import Any

import pytest

from toolhost.redaction import MASK, Redactor
from toolhost.redaction import hexdump as redaction_hexdump
from toolhost.redaction import spell as redaction_spell

SECRET = "sk-live-zyxwvutsrqponmlk"  # no pair of hex digits in its first characters


def _counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls = [0]
    real = getattr(owner, name)

    def count(*args: Any) -> Any:
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(owner, name, staticmethod(count) if isinstance(
        owner.__dict__[name], staticmethod) else count)
    return calls


def test_near_misses_of_a_secrets_start_are_tried_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 KB of the secret's first 23 characters and another: each is a candidate whose
    # every place was tried (12 s per MB); past the budget the rest is hidden unread
    text = (SECRET[:-1] + "! ") * 8_000 + SECRET
    redactor = Redactor(frozenset({SECRET}))
    tried = _counted(monkeypatch, redaction_spell.Matcher, "_longest")
    shown = redactor.redact(text)
    budget = redaction_spell.PLACES_BASE + len(text) // redaction_spell.PLACES_PER
    assert tried[0] <= budget + 2 * len(SECRET)  # (the old code: 12 per near-miss: 96,000)
    assert "ponmlk" not in shown and shown.endswith(MASK)  # fail closed: the rest hidden
    assert len(shown) < len(text) // 2
    assert shown.startswith(SECRET[:-1] + "! ")  # what was read is shown as it is


def test_real_secrets_each_cost_one_try() -> None:
    # a text that repeats the secret itself (a log echoing a token) is masked exactly
    text = ("key " + SECRET + "\n") * 6_000
    assert Redactor(frozenset({SECRET})).redact(text) == ("key " + MASK + "\n") * 6_000


def test_dump_finders_follow_only_secrets_that_can_start_at_the_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = (SECRET[:-1] + "! ") * 400
    redactor = Redactor(frozenset({SECRET}))
    followed = _counted(monkeypatch, redaction_hexdump.SpacedHex, "_follow")
    redactor.redact(text)
    assert followed[0] == 0  # no place starts with a pair of hex digits of the secret


def test_folded_blocks_walk_each_line_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # many small blocks of a secret's start folded (a line and a shorter one): finding each
    # block's end walked every line before it again (1 MB: 28 s); count the lines walked
    import itertools
    import random

    from toolhost.redaction import folded as redaction_folded

    walked = [0]

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(itertools, name)

        @staticmethod
        def islice(items: Any, *args: Any) -> Any:
            walked[0] += args[0] if len(args) > 1 and args[0] else 0  # skipped: walked too
            for item in itertools.islice(items, *args):
                walked[0] += 1
                yield item

    monkeypatch.setattr(redaction_folded, "itertools", Counting())
    lines = [SECRET[:random.Random(i).randrange(1, 20)] for i in range(4_000)]
    text = "\n".join(lines)
    spans_of = Redactor(frozenset({SECRET}))._pattern
    assert spans_of is not None
    list(redaction_folded.folded_spans(text, spans_of.spans))
    assert walked[0] <= 4 * len(lines)



def test_many_secrets_are_matched_by_small_trigger_programs() -> None:
    # one RE2 program for 100 secrets' starts (~500,000 instructions) outgrew RE2's DFA
    # memory, which then fell back to its slow engine: 4.7 s per MB of prose, whatever it
    # held; in programs of ~15 secrets each pass stays in the DFA (0.03 s)
    import random
    import string

    rnd = random.Random(7)
    secrets = sorted("sk-" + "".join(rnd.choice(string.ascii_lowercase + string.digits)
                                     for _ in range(21)) for _ in range(100))
    redactor = Redactor(frozenset(secrets))
    assert redactor._pattern is not None
    programs = redactor._pattern._triggers
    assert len(programs) > 1 and max(p.programsize for p in programs) < 200_000
    # every secret is still found, whichever program holds its start, in order
    text = " and ".join(f"{s} / {s.upper()} / {s[::-1]}" for s in secrets)
    assert redactor.redact(text) == " and ".join(["*** / *** / ***"] * 100)


def test_pieces_of_a_secret_are_grown_a_bounded_number_of_times(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # each near-miss holds a piece of the secret (10 of its letters and digits in a row),
    # grown and placed in Python (~50 us): 8,000 of them were grown twice each
    from toolhost.redaction import squeezed as redaction_squeezed

    secret = "sk-live-9f8e7d6c5b4a3921"
    text = (secret[:-1] + "x ") * 8_000 + "tail"
    grown = _counted(monkeypatch, redaction_squeezed, "_grown")
    shown = Redactor(frozenset({secret})).redact(text)
    budget = redaction_spell.PLACES_BASE + len(text) // redaction_squeezed.PIECES_PER
    assert grown[0] <= budget + 1  # (the old code: 16,000)
    assert "9f8e7d" not in shown and shown.endswith(MASK)  # fail closed: the rest hidden


def test_the_xor_finder_reads_all_runs_of_a_text_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # each decoded run was one RE2 call (~40 us from Python): 1,000 near-misses, 2,000 calls
    import base64

    from toolhost.redaction import cipher as redaction_cipher

    secret = "sk-live-9f8e7d6c5b4a3921"
    hidden = base64.b64encode(bytes(b ^ 0x42 for b in secret.encode())).decode()
    text = (secret[:-1] + "x ") * 1_000 + hidden
    calls = _counted(monkeypatch, redaction_cipher.Xored, "spans")
    shown = Redactor(frozenset({secret})).redact(text)
    assert calls[0] <= 2 and shown.endswith(MASK)  # (the old code: 2,001)


def test_a_run_repeated_in_a_text_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # 8,000 near-misses of a secret are 8,000 base64url runs, each decoded (and reversed,
    # decoded again) in Python: 16,000 decodings per 200 KB (secrets16: one per distinct run)
    from toolhost.redaction import decoded as redaction_decoded

    secret = "sk-live-9f8e7d6c5b4a3921"
    hidden = base64.b64encode(gzip.compress(secret.encode())).decode()
    text = (secret[:-1] + "x ") * 8_000 + hidden + " " + hidden
    decoded = _counted(monkeypatch, redaction_decoded, "_run")
    shown = Redactor(frozenset({secret}))._decoded(text)
    assert decoded[0] <= 8  # (each distinct run and its decodings, a level deeper too;
    #                            the old code: 16,006)
    assert len(shown) == 2  # both copies of the compressed run hidden


def test_each_character_is_spelled_once_for_many_secrets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # every secret's first 12 characters were spelled anew (the same few dozen characters
    # 12,000 times for 1,000 secrets: a third of their load)
    import random
    import string

    rnd = random.Random(3)
    alphabet = string.ascii_lowercase + string.digits
    secrets = {"sk-" + "".join(rnd.choice(alphabet) for _ in range(21)) for _ in range(50)}
    cached = getattr(redaction_spell, "_spelled", None)
    if cached is not None:  # (other tests filled it)
        cached.cache_clear()
    spelled = _counted(monkeypatch, redaction_spell, "spellings")
    Redactor(frozenset(secrets))
    assert spelled[0] <= 2 * (len(alphabet) + 1)  # (the old code: 600)


def test_rare_forms_start_candidates_with_fewer_characters() -> None:
    # the rare forms (encodings, ciphers: ~140 a secret) were looked for by their first 12
    # characters: their RE2 programs were half of 1,000 secrets' 300 MB and build time
    from toolhost.redaction.forms import rare_forms

    secret = "sk-live-9f8e7d6c5b4a3921"
    redactor = Redactor(frozenset({secret}))
    assert redactor._pattern is not None
    patterns = "|".join(p.pattern for p in redactor._pattern._triggers).split("|")
    rare = sorted(f for f in rare_forms(secret) if len(f) > redaction_spell.TRIGGER)
    assert rare and not any(re.escape(f[:redaction_spell.TRIGGER]) in patterns for f in rare)
    # and each is still hidden whole
    for form in rare[:20]:
        assert redactor.redact(f"x {form} y") == f"x {MASK} y", form


def test_a_long_secret_is_not_spelled_in_base58(monkeypatch: pytest.MonkeyPatch) -> None:
    # base58 is one big number: its cost grows with the square of the length (a 200,000-
    # character token in a config held `validate` for a minute); a key or hash is short
    from toolhost.redaction import forms as redaction_forms

    calls = _counted(monkeypatch, redaction_forms, "_b58encode")
    short, long = "k" * 40, "k" * (redaction_forms._B58_MAX + 1)
    assert redaction_forms._b58encode(short.encode()) in redaction_forms.rare_forms(short)
    redaction_forms.rare_forms(long)
    assert calls[0] == 2  # the short one's (and the check's own), not the long one's

"""toolhost.redaction: every form of a secret hidden, arguments masked, streams scrubbed."""

from __future__ import annotations

import base64
import io
import json
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from toolhost.redaction import MASK, Redactor, ScrubbingStream, remember, scrub
from toolhost.redaction.values import mask_arguments

SECRET = 'p"a\\ss wörd/+tok'
PASSWORD = "b4sic-Pa55word!"
R = Redactor(frozenset({SECRET, PASSWORD}))


@pytest.mark.parametrize("shown", [
    SECRET, json.dumps(SECRET), json.dumps(SECRET, ensure_ascii=False), repr(SECRET),
    json.dumps(json.dumps(SECRET)), quote(SECRET, safe=""), quote(SECRET), quote_plus(SECRET),
    quote_plus(SECRET).lower(), SECRET.encode().hex(), SECRET.encode().hex().upper(),
    base64.b64encode(SECRET.encode()).decode(),
    base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
])
def test_every_form_is_hidden(shown: str) -> None:
    out = R.redact(f"before {shown} after")
    assert MASK in out
    assert "wörd" not in out and "ss w" not in out


@pytest.mark.parametrize("prefix", ["", "a", "ab", "abc", "user:", "alice:"])
def test_base64_at_any_alignment_inside_a_longer_string(prefix: str) -> None:
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        blob = encode((prefix + PASSWORD + "\ntrailer").encode()).decode()
        out = R.redact(f"Authorization: Basic {blob}")
        assert MASK in out
        # the characters made from the password's bits alone are gone
        spelled = blob[-(-8 * len(prefix) // 6):8 * (len(prefix) + len(PASSWORD)) // 6]
        assert len(spelled) >= 16 and spelled not in out
        assert spelled[2:-2] not in out


def test_plain_text_and_short_secrets_stay() -> None:
    text = "a plain sentence with 1234 and abcd"
    assert R.redact(text) == text
    short = Redactor(frozenset({"ab"}))
    assert short.redact("xaby YW") == "x***y YW"  # raw always; encoded forms under 4 chars not


def test_longest_form_wins() -> None:
    r = Redactor(frozenset({"abcd", "abcdefgh"}))
    assert r.redact("abcdefgh abcd") == "*** ***"


def test_mask_arguments_hides_secret_names_at_any_depth() -> None:
    shown = mask_arguments({"token": 5, "q": "x", "nested": [{"Authorization": "Bearer x"}],
                            "api_key": "", "password": None}, R.redact)
    assert shown == {"token": MASK, "q": "x", "nested": [{"Authorization": MASK}],
                     "api_key": "", "password": None}


def test_cut_edges_hides_a_secret_the_capture_cut() -> None:
    assert R.cut_edges("output: " + PASSWORD[:7], tail=True) == "output: " + MASK
    assert R.cut_edges(PASSWORD[-6:] + " rest", head=True) == MASK + " rest"
    assert R.cut_edges("output: plain", tail=True, head=True) == "output: plain"


def test_value_redacts_keys_and_strings_but_keeps_other_types() -> None:
    assert R.value({SECRET: [PASSWORD, 3, None]}) == {MASK: [MASK, 3, None]}


def test_scrubbing_stream_holds_a_line_so_a_split_secret_is_still_caught() -> None:
    remember({PASSWORD})
    inner = io.StringIO()
    stream = ScrubbingStream(inner)
    stream.write("x " + PASSWORD[:5])
    stream.write(PASSWORD[5:] + " y\nrest")
    assert inner.getvalue() == "x *** y\n"
    stream.flush()
    assert inner.getvalue() == "x *** y\nrest"
    assert scrub(PASSWORD) == MASK


def test_cut_redacts_before_cutting() -> None:
    from toolhost.excerpt import cut

    remember({PASSWORD})
    assert PASSWORD[:3] not in cut("ab " + PASSWORD + " tail" * 10, limit=6)


def test_a_number_that_spells_a_secret_is_hidden_whatever_its_type() -> None:
    pin = Redactor(frozenset({"98765432"}))
    assert pin.value({"pin": 98765432, "big": 1987654321, "f": 98765432.5, "n": 7,
                      "ok": True}) == {"pin": MASK, "big": MASK, "f": MASK, "n": 7, "ok": True}
    assert mask_arguments({"limit": 98765432}, pin.redact) == {"limit": MASK}
    assert pin.value(10 ** 5000) == 10 ** 5000  # too long to write out: JSON cannot carry it


def test_mask_edges_hides_only_a_cut_secret_and_never_breaks_a_whole_one() -> None:
    overlap = Redactor(frozenset({"abcdXYZW", "XYZWqrst"}))
    # the end of a whole secret is the start of another: the whole one stays findable
    assert overlap.mask_edges("x abcdXYZW", tail=True) == "x abcdXYZW"
    assert overlap.redact(overlap.mask_edges("x abcdXYZW", tail=True)) == "x ***"
    assert overlap.mask_edges("x XYZWqr", tail=True) == "x ***"
    assert overlap.mask_edges("dXYZW y", head=True) == "*** y"
    assert R.mask_edges(f"{SECRET} then " + PASSWORD[:6], tail=True) == f"{SECRET} then ***"


def test_redact_strings_keeps_binary_values() -> None:
    from toolhost.redaction.values import redact_strings

    blob = base64.b64encode(PASSWORD.encode()).decode()
    assert redact_strings({"data": blob, "text": blob}, R.redact, keep=frozenset({"data"})) \
        == {"data": blob, "text": MASK}


@pytest.mark.parametrize("length", [250, 1200, 20_000])
def test_a_long_secret_is_one_literal_not_a_group_per_character(length: int) -> None:
    token = (base64.b64encode(bytes(range(256)) * (length // 256 + 1)).decode())[:length]
    long = Redactor(frozenset({token}))
    assert long.redact(f"x {token} y") == "x *** y"
    shown = base64.b64encode(f"u:{token}".encode()).decode()
    assert token[:40] not in long.redact(shown) and MASK in long.redact(shown)


def test_secrets_nesting_deeper_than_the_regex_compiler_goes_still_work() -> None:
    # each the prefix of the next, 110 deep (the compiler's nesting ends at 100), and two past
    # LONG (spelled raw): every secret's pattern is built, so the chain is no longer than that
    chain = Redactor(frozenset(["k" * n for n in range(4, 114)] + ["k" * 300, "k" * 399]))
    assert chain.redact("<" + "k" * 399 + ">") == "<***>"
    assert chain.redact("<" + "k" * 113 + ">") == "<***>"


def test_a_secret_over_the_items_of_a_list_is_hidden_in_structured_values() -> None:
    """A structured result holding a secret in pieces (its characters, its bytes as numbers,
    a split) showed it in ``structuredContent`` while its text showed ``[***]``: every item
    that holds part of it is ``***``, the other items are kept."""
    from toolhost.redaction.values import redact_strings

    secret = "sk-live-9f8e7d6c5b4a3921"
    hide = Redactor(frozenset({secret}))
    for items in ([secret[:8], secret[8:]], list(secret),
                  [secret[i:i + 5] for i in range(0, len(secret), 5)],
                  list(secret.encode()), [ord(c) for c in "p@ss w0rd/Ä\"x=1"]):
        around: tuple[Any, Any] = (1000, 2000) if isinstance(items[0], int) else ("a", "b")
        value = {"result": [around[0], *items, around[1]], "n": [1, 2, 3]}
        redactor = hide if items[0] in ("s", "sk-li", "sk-live-", 115) else \
            Redactor(frozenset({"p@ss w0rd/Ä\"x=1"}))
        shown = redact_strings(value, redactor.redact)
        assert shown == {"result": [around[0], *[MASK] * len(items), around[1]],
                         "n": [1, 2, 3]}, items
    ordinary = {"result": ["sk", "-", "live", 115, 107], "n": [115, 107, 45]}
    assert redact_strings(ordinary, hide.redact) == ordinary

"""``Accept`` as RFC 9110 section 12.5.1 reads it: the most specific range naming a type
decides its quality; ``q=0`` refuses it, an invalid quality is ignored."""

from __future__ import annotations

import pytest

from toolhost.serve.headers import accepted

CASES = [
    (None, (True, True)),
    ("", (True, True)),
    ("application/json, text/event-stream", (True, True)),
    ("application/json", (True, False)),
    ("text/event-stream", (False, True)),
    ("*/*", (True, True)),
    ("application/*", (True, False)),
    ("text/*", (False, True)),
    ("APPLICATION/JSON;Q=1", (True, False)),
    ("application/json;q=0", (False, False)),
    ("application/json; q=0.000", (False, False)),
    ("application/json;q=0.001", (True, False)),
    # a more specific range overrides a broader one, whichever comes first
    ("application/json;q=0, */*", (False, True)),
    ("*/*, application/json;q=0", (False, True)),
    ("text/event-stream;q=0, */*", (True, False)),
    ("*/*;q=0, application/json", (True, False)),
    ("application/*;q=0, application/json", (True, False)),
    ("application/json;q=0, application/*", (False, False)),
    ("text/*;q=0, */*", (True, False)),
    ("application/json;q=0.5, text/event-stream;q=0.1", (True, True)),
    # not a quality: ignored (the range counts), as before
    ("application/json;q=nan", (True, False)),
    ("application/json;q=-1", (True, False)),
    ("application/json;q=abc", (True, False)),
    ("application/json;;;", (True, False)),
    (",,,", (False, False)),
    ("text/html", (False, False)),
    ("a" * 5000, (False, False)),
]


@pytest.mark.parametrize(("accept", "expected"), CASES, ids=[repr(c[0])[:40] for c in CASES])
def test_accept_admits_by_the_most_specific_range(accept: str | None,
                                                  expected: tuple[bool, bool]) -> None:
    assert accepted(accept) == expected

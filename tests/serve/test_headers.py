"""``foreign_charset``: which ``Content-Type`` charsets a POST body is refused for (415).
A type naming two charsets was read by its first (``charset=utf-8; charset=latin1`` passed)
while a proxy or a reader in front may take the other: it is refused, whichever comes
first."""

from __future__ import annotations

import pytest

from toolhost.serve.headers import foreign_charset


@pytest.mark.parametrize(("content_type", "refused"), [
    ("application/json; charset=utf-8; charset=latin1", "utf-8; latin1"),
    ("application/json; charset=latin1; charset=utf-8", "latin1; utf-8"),
    ('application/json;charset="UTF-8";CHARSET=utf-8', '"UTF-8"; utf-8'),
    ("application/json; charset=utf-16", "utf-16"),
    ("application/json; charset=utf-8", None),
    ('application/json; charset="us-ascii"', None),
    ("application/json; profile=x", None),
    ("application/json", None),
    (None, None),
])
def test_one_utf8_charset_at_most(content_type: str | None, refused: str | None) -> None:
    assert foreign_charset(content_type) == refused

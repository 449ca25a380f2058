"""``toolhost.jsontext.key_position``: where a value of the wrong type stands in a JSON text
that parsed (the lock, a client's .mcp.json), for its located one-line error."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(("text", "keys", "where"), [
    ('{"a": {"b": 1}, "b": 2}', ("b",), (1, 17)),  # the top level's, not the nested one
    ('{"x": "\\"b\\": 1", "b": 2}', ("b",), (1, 19)),  # not inside a string value
    ('{"a": [{"b": 1}], "a\\u0062": 2}', ("ab",), (1, 19)),  # an escaped key
    ('{\n "s": {\n  "k": {"v": 5}\n }\n}', ("s", "k", "v"), (3, 9)),  # a path
    ('{\n "s": {"k": 1}}', ("s", "none"), (2, 2)),  # ends early: the last key found
    ('\n  [1, 2]', ("a",), (2, 3)),  # no object: the value
    ("  ", ("a",), (0, 0)),
])
def test_a_key_path_is_located_where_its_key_stands(text: str, keys: tuple[str, ...],
                                                     where: tuple[int, int]) -> None:
    from toolhost.jsontext import key_position

    if text.strip():
        json.loads(text)  # a text that parsed: the only kind asked about
    assert key_position(text, *keys) == where

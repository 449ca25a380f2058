"""Looking up one key's origin reads the key's path back instead of formatting every node's
(a note about one key of a 490,000-value file formatted 980,000 paths: 5 s); the answer is
the full table's, for every key and every miss, odd keys (dots, brackets, empty) included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.tree import Mark, Origins, format_path

KEYS = st.one_of(st.sampled_from(["a", "b", "servers", "a.b", "x[1]", "", "]", "["]),
                 st.integers(min_value=0, max_value=3))
PATHS = st.lists(KEYS, min_size=1, max_size=4).map(tuple)


def _marked(paths: list[tuple[str | int, ...]]) -> dict[tuple[str | int, ...], Mark]:
    """Every prefix marked too, as the parsers mark every node."""
    marks = {}
    for n, path in enumerate(paths):
        for end in range(1, len(path) + 1):
            marks.setdefault(path[:end], Mark("f.yaml", n + 1, end))
    return marks


@settings(max_examples=300, deadline=None)
@given(st.lists(PATHS, max_size=8), st.lists(PATHS, max_size=4))
def test_a_lookup_is_the_tables(paths: list[tuple[str | int, ...]],
                                others: list[tuple[str | int, ...]]) -> None:
    marks = _marked(paths)
    table = {format_path(p): m.origin(p) for p, m in marks.items() if p}
    # two paths may read the same ("a.b" is the key a.b, and b inside a): either is right
    alike: dict[str, list[object]] = {}
    for p, m in marks.items():
        if p:
            alike.setdefault(format_path(p), []).append(m.origin(p))
    for key in [*table, *(format_path(p) for p in others), "permissions.default", "a..b",
                "[0]", "a.[1]", ""]:
        found = Origins(marks).get(key)
        if len(alike.get(key, ())) > 1:
            assert found in alike[key], key
        else:
            assert found == table.get(key), key


def test_a_missing_key_of_a_big_file_builds_no_table() -> None:
    marks = {("servers", "s", "tools", "t", "params", "x", "enum", i): Mark("f.yaml", i + 9)
             for i in range(200_000)}
    origins = Origins(marks)
    assert origins.get("permissions.default") is None
    assert origins["servers.s.tools.t.params.x.enum[7]"].line == 16
    assert origins._table is None  # what the lookup must not have built

"""A rule's argument path with a long quoted key (``when: {'a["<1 MB>"]': ...}``, config
text) is parsed in memory of its size: the pattern kept a regex frame per character."""

from __future__ import annotations

import tracemalloc

from toolhost.permissions.conditions import parse_key_path


def test_a_long_quoted_key_is_parsed_in_memory_of_its_size() -> None:
    for key, bound in (("a" * 500_000, 12), ('a\\"b' * 120_000, 40)):  # (unescaping costs)
        text = f'x["{key}"].y'
        tracemalloc.start()
        try:
            path = parse_key_path(text)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < bound * len(text), peak
        assert len(path) == 3 and len(repr(path)) > len(key) // 2

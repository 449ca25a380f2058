"""A TOML key of more dotted parts than the depth limit is refused from the text, before
tomllib builds every prefix of it (one key of 16,000 parts took 1 GB): in memory of the
text's size, located at the key; dots in strings and comments are no key's."""

from __future__ import annotations

import tracemalloc

import pytest

from toolhost.config.toml_keys import too_many_parts
from toolhost.config.toml_source import parse_toml
from toolhost.errors import Problem

N = 8_000
KEYS = {
    "dotted key": "x" + ".a" * N + " = 1\n",
    "spaced and quoted parts": "x" + ' . "a"' * N + " = 1\n",
    "table header": "[x" + ".a" * N + "]\ny = 1\n",
    "array of tables": "[[x" + ".'a'" * N + "]]\ny = 1\n",
    "inline table": "q = {x" + ".a" * N + " = 1}\n",
}


def _toml(text: str) -> tuple[object, list[Problem]]:
    problems: list[Problem] = []
    doc = parse_toml(text, "c.toml", "project", problems)
    return (doc.data if doc else None), problems


@pytest.mark.parametrize("name", sorted(KEYS))
def test_a_key_of_too_many_parts_is_refused_in_memory_of_its_size(name: str) -> None:
    text = "toolhost = 1\n[s]\nd = 'a.b.c' # x.y.z\n" + KEYS[name]
    tracemalloc.start()
    try:
        data, problems = _toml(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data is None and len(problems) == 1
    problem = problems[0]
    assert "a key of more than 101 dotted parts" in problem.message
    # with the tables around it (a header names its path from the top)
    within = {"inline table": "s.q.x.a.a", "table header": "x.a.a",
              "array of tables": "x.a.a"}.get(name, "s.x.a.a")
    assert problem.line == 4 and problem.key_path.startswith(within)
    assert problem.column == text.split("\n")[3].index("x") + 1
    assert peak < 40 * len(text)  # tomllib's prefixes of one key: about N * N / 2 pointers


@pytest.mark.parametrize("text", [
    'd = "' + "a." * 500 + '"\n',
    "d = '''\n" + "a." * 500 + "\n'''\n",
    "# " + "a." * 500 + "\n",
    "x" + ".a" * 100 + " = 1\n",  # (101 parts: the data's own depth check decides)
    "v = [" + ", ".join(["1.5"] * 500) + "]\n",
])
def test_dots_in_strings_comments_and_short_keys_are_not_a_long_key(text: str) -> None:
    assert too_many_parts(text, 100) == (-1, "")


def test_the_limit_follows_the_configured_depth() -> None:
    text = "x" + ".a" * 30 + " = 1\n"
    assert too_many_parts(text, 100) == (-1, "")
    assert too_many_parts(text, 20)[0] == 0

"""A key or a table given twice is said alike in TOML and YAML: "duplicate key" at the
key's line and column, with its key path. TOML said tomllib's words ("invalid TOML: Cannot
overwrite a value", "Cannot declare ('servers', 'a') twice", "Duplicate inline table key")
at the column where tomllib stopped, after the value."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

SAME = {  # the same mistake in both grammars: (YAML, TOML), the line and column said
    "top key": (("toolhost: 1\ntoolhost: 1\n", "toolhost = 1\ntoolhost = 1\n"),
                "2:1: toolhost: duplicate key (the earlier one would be lost)"),
    "key in a table": (
        ("toolhost: 1\nservers:\n  a:\n    description: x\n    description: y\n",
         'toolhost = 1\n# the server\n[servers.a]\n    description = "x"\n    description = "y"\n'),
        "5:5: servers.a.description: duplicate key (the earlier one would be lost)"),
}


@pytest.mark.parametrize("name", sorted(SAME))
@pytest.mark.parametrize("grammar", [0, 1])
def test_a_key_given_twice_is_said_alike_in_both(name: str, grammar: int,
                                                  tmp_path: Path) -> None:
    texts, said = SAME[name]
    path = tmp_path / ("c.yaml", "c.toml")[grammar]
    path.write_text(texts[grammar])
    assert _problems(path) == [f"{path}:{said}"]


@pytest.mark.parametrize(("text", "said"), [
    ('toolhost = 1\n[servers]\na = {description = "x", description = "y"}\n',
     "3:25: servers.a.description: duplicate key (the earlier one would be lost)"),
    ("toolhost = 1\n[servers.a]\n[servers.a]\n",
     "3:1: servers.a: duplicate table [servers.a]: it is declared twice (write its keys "
     "under one [servers.a] header; a dotted key such as servers.a.x = 1 declares it too)"),
    ('toolhost = 1\nservers.a.description = "x"\n  [servers.a]\n',
     "3:3: servers.a: duplicate table [servers.a]: it is declared twice"),
])
def test_a_toml_table_or_inline_key_given_twice_is_located_at_it(
        text: str, said: str, tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    [problem] = _problems(path)
    assert problem.startswith(f"{path}:{said}"), problem
    assert "invalid TOML" not in problem


def _problems(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    return [str(p) for p in raised.value.problems]

"""``toolhost.config.pyyaml``: PyYAML's reader gets a pattern that compiles ~30x faster and
finds exactly the characters its own finds (the start-up side: tests/test_startup_imports.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
import yaml.reader

from toolhost.config.pyyaml import NON_PRINTABLE, YAML_NON_PRINTABLE


def test_pyyamls_pattern_is_still_written_as_the_key_says() -> None:
    """If PyYAML wrote its pattern differently, the faster one would silently not be used."""
    source = Path(yaml.reader.__file__).read_text(encoding="utf-8")
    found = [node.value.args[0] for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
             and any(isinstance(t, ast.Name) and t.id == "NON_PRINTABLE" for t in node.targets)]
    assert len(found) == 1
    assert ast.literal_eval(found[0]) == YAML_NON_PRINTABLE


def test_the_same_characters_for_every_code_point() -> None:
    everything = "".join(map(chr, range(0x110000)))  # lone surrogates included
    theirs = re.compile(f"(?:{YAML_NON_PRINTABLE})")  # another text: not the cached one
    ours = re.compile(NON_PRINTABLE)
    expected = [m.start() for m in theirs.finditer(everything)]
    assert [m.start() for m in ours.finditer(everything)] == expected
    assert 2000 < len(expected) < 2200  # C0 and C1 controls, DEL, surrogates, FFFE/FFFF


@pytest.mark.parametrize(("text", "where"), [("a: b\x07c\n", 4), ("k: \ud800\n", 3),
                                             ("x: \ufffe", 3), ("ok: \U0001F600\n", None)])
def test_the_pure_python_reader_still_refuses_what_it_refused(text: str,
                                                             where: int | None) -> None:
    if where is None:
        assert yaml.load(text, Loader=yaml.SafeLoader) == {"ok": "\U0001F600"}
        return
    with pytest.raises(yaml.reader.ReaderError) as raised:
        yaml.load(text, Loader=yaml.SafeLoader)
    assert raised.value.position == where

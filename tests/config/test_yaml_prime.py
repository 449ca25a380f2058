"""PyYAML's reader pattern, primed in ``re``'s cache by its cheaper complement
(toolhost.config.yaml_prime): the same characters, and PyYAML's import takes it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import yaml.reader

from toolhost.config.yaml_prime import NON_PRINTABLE, PRINTABLE_COMPLEMENT


def test_the_text_is_pyyamls_own() -> None:
    """The cache key is PyYAML's pattern as its installed release writes it."""
    tree = ast.parse(Path(yaml.reader.__file__).read_text(encoding="utf-8"))
    found = [node.value.args[0].value for node in ast.walk(tree)
             if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
             and any(isinstance(t, ast.Name) and t.id == "NON_PRINTABLE" for t in node.targets)]
    assert found == [NON_PRINTABLE]


def test_the_complement_matches_the_same_code_points() -> None:
    """Every code point, surrogates included: the same ones match, at the same places."""
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    own = re.compile(f"(?:{NON_PRINTABLE})")  # another text: compiled as PyYAML wrote it
    ours = re.compile(PRINTABLE_COMPLEMENT)
    assert [m.start() for m in own.finditer(everything)] == \
        [m.start() for m in ours.finditer(everything)]
    assert own.search("a\tb\nc\x85") is None and ours.search("a\tb\nc\x85") is None


def test_pyyaml_imported_by_toolhost_takes_the_complement() -> None:
    code = ("import toolhost.config.yaml_source, yaml.reader\n"
            "print(ascii(yaml.reader.Reader.NON_PRINTABLE.pattern))\n"
            "print(yaml.safe_load('a: [1, x]'), end='')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.splitlines()
    assert out == [ascii(PRINTABLE_COMPLEMENT), "{'a': [1, 'x']}"]

"""The format-version line: a misspelt ``toolhost`` key is named at its line with the fix,
and every hint writes the line as the file's own language does (TOML: ``toolhost = 1``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

CASES = {
    "tolhost.yaml": ("tolhost: 1\nservers: {}\n",
                     "tolhost.yaml:1:1: tolhost: missing format version ('tolhost' is not a key "
                     "of toolhost's format) (did you mean 'toolhost'? write 'toolhost: 1')"),
    "upper.yaml": ("servers: {}\nToolhost: 1\n",
                   "upper.yaml:2:1: Toolhost: missing format version ('Toolhost' is not a key "
                   "of toolhost's format) (did you mean 'toolhost'? write 'toolhost: 1')"),
    "swapped.toml": ("toolhsot = 1\n",
                     "swapped.toml:1:1: toolhsot: missing format version ('toolhsot' is not a "
                     "key of toolhost's format) (did you mean 'toolhost'? write 'toolhost = 1')"),
    "version.toml": ("version = 1\n",
                     "version.toml:1:1: version: missing format version ('version' is not a key "
                     "of toolhost's format) (write 'toolhost = 1' instead of 'version = ...')"),
    "two.toml": ("toolhost = 2\n",
                 "two.toml:1:1: toolhost: unsupported format version 2: this toolhost reads "
                 "version 1 (write 'toolhost = 1')"),
    "none.toml": ("x = 1\n",
                  "none.toml:1:1: toolhost: missing format version (add 'toolhost = 1' at the "
                  "top of the file; a fragment meant to be extended is checked with `toolhost "
                  "validate --fragment`)"),
    # far from the word: no guess, the plain hint
    "tool.yaml": ("tool: 1\n",
                  "tool.yaml:1:1: toolhost: missing format version (add 'toolhost: 1' at the "
                  "top of the file; a fragment meant to be extended is checked with `toolhost "
                  "validate --fragment`)"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_version_line_problem_names_the_fix_in_the_files_language(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    text, expected = CASES[name]
    (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as info:
        load_config(name)
    assert [str(p) for p in info.value.problems] == [expected]

"""A git ``extends`` entry whose ``path`` names a directory of the repository: said so, with
the config files it holds to name instead. It read "has no file 'rules'", as if the name were
wrong, with a did-you-mean elsewhere or none."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config.gitrepos import repo_file
from toolhost.config.model import Origin
from toolhost.errors import ConfigError

AT = Origin(file="team.yaml", line=3, column=5, key_path="extends[0]")
MakeRepo = Callable[..., str]


@pytest.mark.parametrize(("path", "hint"), [
    ("rules", "name one of its files as the path: 'rules/python.yaml' or 'rules/strict.yaml'"),
    ("rules/", "name one of its files as the path: 'rules/python.yaml' or 'rules/strict.yaml'"),
    (".", "name one of its files as the path: 'base.yaml'"),
    ("docs", "name a .yaml, .yml or .toml file of the repository"),
])
def test_a_directory_as_the_path_is_said_with_its_files(
        tmp_path: Path, make_repo: MakeRepo, path: str, hint: str) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "a: 1\n", "rules/strict.yaml": "b: 2\n",
                       "rules/python.yaml": "c: 3\n", "docs/notes.md": "x\n"}, tag="v1")
    with pytest.raises(ConfigError) as info:
        repo_file(origin.as_uri(), "v1", path, where=AT, cache=tmp_path / "cache")
    (problem,) = info.value.problems
    assert (problem.file, problem.line, problem.key_path) == ("team.yaml", 3, "extends[0]")
    assert problem.message.endswith(f"at v1: {path!r} is a directory, not a file"), problem
    assert problem.hint == hint, problem

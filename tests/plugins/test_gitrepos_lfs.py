"""A team repo's config tracked by Git LFS is its pointer in the checkout (LFS content is never
fetched): the error says so and how to fix it, instead of only "a mapping of keys"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

POINTER = ("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69"
           "d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


def test_an_lfs_pointer_is_named_with_the_fix(tmp_path: Path,
                                              make_repo: Callable[..., str]) -> None:
    make_repo(tmp_path / "team", {"base.yaml": POINTER}, tag="v1")
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nextends:\n  - {repo: ./team, rev: v1, path: base.yaml}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    (problem,) = caught.value.problems
    assert problem.message.startswith("a config file is a mapping of keys")
    assert problem.hint.startswith("this is a Git LFS pointer, not the file")
    assert "git lfs untrack" in problem.hint

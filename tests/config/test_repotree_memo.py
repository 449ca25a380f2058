"""``checkout_root`` inside ``remembered()``: the same answers, each file resolved once.

A compile asks where each tool's declaring file lies once per tool (two ``realpath`` calls,
~50 us each time: a tenth of loading 1,000 tools); within one compile the answer is kept.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.compile.build import compile_tools
from toolhost.config import load_config
from toolhost.config.repotree import checkout_root, remembered


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user layer


def _layout(tmp_path: Path) -> dict[str, Path]:
    repo = tmp_path / "cache" / "repos" / "abc123"
    repo.mkdir(parents=True)
    (repo / "team.yaml").write_text("x")
    outside = tmp_path / "mine.yaml"
    outside.write_text("x")
    link = tmp_path / "link.yaml"  # outside the cache, leading into a checkout
    link.symlink_to(repo / "team.yaml")
    return {"inside": repo / "team.yaml", "outside": outside, "link": link}


def test_remembered_answers_are_the_unremembered_ones(tmp_path: Path) -> None:
    files = _layout(tmp_path)
    plain = {name: checkout_root(path) for name, path in files.items()}
    assert plain["inside"] == plain["link"] == Path(os.path.realpath(tmp_path / "cache"
                                                                     / "repos" / "abc123"))
    assert plain["outside"] is None
    with remembered():
        for _ in range(3):
            assert {name: checkout_root(path) for name, path in files.items()} == plain
            assert {name: checkout_root(str(path)) for name, path in files.items()} == plain


def test_a_change_of_the_cache_dir_inside_the_block_is_a_new_question(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _layout(tmp_path)
    with remembered():
        assert checkout_root(files["inside"]) is not None
        monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "elsewhere"))
        assert checkout_root(files["inside"]) is None


def test_nothing_is_kept_past_the_block(tmp_path: Path) -> None:
    files = _layout(tmp_path)
    with remembered():
        assert checkout_root(files["link"]) is not None
    files["link"].unlink()
    files["link"].symlink_to(files["outside"])  # now it leads out of the cache
    assert checkout_root(files["link"]) is None
    with remembered(), remembered():  # nested: the outer block's memory, then none
        assert checkout_root(files["link"]) is None
    assert checkout_root(files["inside"]) is not None


def test_a_compile_resolves_each_declaring_file_once(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["toolhost: 1", "servers:", "  big:", "    tools:"]
    for i in range(20):
        lines += [f"      t{i}:", f"        command: [echo, '{{{{ v }}}}', '{i}']",
                  "        params: {v: string}"]
    path = tmp_path / "big.yaml"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(path)
    asked: list[str] = []
    realpath = os.path.realpath

    def counted(p: str | os.PathLike[str], *args: object, **kwargs: object) -> str:
        asked.append(os.fspath(p))
        return realpath(p, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os.path, "realpath", counted)
    compiled = compile_tools(config, connect=False)
    assert len(compiled.servers["big"]) == 20
    assert asked.count(str(path)) == 1, asked.count(str(path))

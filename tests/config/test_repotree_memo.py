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


CACHE_VARIABLES = ["TOOLHOST_CACHE", "XDG_CACHE_HOME", "HOME"]  # the first one set decides


@pytest.mark.parametrize("variable", CACHE_VARIABLES)
def test_each_variable_the_cache_dir_comes_from_is_part_of_the_question(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    """The memo's key reads the variables from ``os.environ``'s own dict: a change of the one
    that decides is seen inside the block."""
    files = _layout(tmp_path)
    repos = tmp_path / "cache" / "repos"
    xdg, home = tmp_path / "xdg-cache", tmp_path / "home"
    (xdg / "toolhost").mkdir(parents=True)
    (xdg / "toolhost" / "repos").symlink_to(repos)
    (home / ".cache").mkdir(parents=True)
    (home / ".cache" / "toolhost").symlink_to(xdg / "toolhost")
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    monkeypatch.setenv("HOME", str(home))
    for earlier in CACHE_VARIABLES[:CACHE_VARIABLES.index(variable)]:
        monkeypatch.delenv(earlier)
    with remembered():
        assert checkout_root(files["inside"]) is not None
        monkeypatch.setenv(variable, str(tmp_path / "elsewhere"))
        assert checkout_root(files["inside"]) is None


def test_a_relative_file_is_asked_from_the_current_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _layout(tmp_path)
    monkeypatch.chdir(files["inside"].parent)
    with remembered():
        assert checkout_root("team.yaml") is not None
        monkeypatch.chdir(tmp_path)
        (tmp_path / "team.yaml").write_text("x")
        assert checkout_root("team.yaml") is None


def test_a_compile_reads_the_cache_variables_once_per_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not three ``os.environ.get`` per tool (a 1,000-tool compile: ~9,000 calls, ~2% of
    loading it): the variables are read from the mapping's own dict."""
    lines = ["toolhost: 1", "servers:", "  big:", "    tools:"]
    for i in range(20):
        lines += [f"      t{i}:", f"        command: [echo, '{{{{ v }}}}', '{i}']",
                  "        params: {v: string}"]
    path = tmp_path / "big.yaml"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(path)
    asked: list[object] = []
    environ_type = type(os.environ)
    get = environ_type.get

    def counted(self: object, key: object, default: object = None) -> object:
        asked.append(key)
        return get(self, key, default)  # type: ignore[arg-type]

    monkeypatch.setattr(environ_type, "get", counted)
    compiled = compile_tools(config, connect=False)
    assert len(compiled.servers["big"]) == 20
    assert asked.count("HOME") <= 1, asked.count("HOME")

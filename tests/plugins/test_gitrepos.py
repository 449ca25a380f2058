"""Config repos: clone once per (url, rev), read from the cache, work offline, lock."""

from __future__ import annotations

import fcntl
import json
import logging
import multiprocessing
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.config.gitrepos import checkout_dir, fetch_repo, list_tags, repo_file
from toolhost.config.model import Origin
from toolhost.errors import ConfigError

from .conftest import git

MakeRepo = Callable[..., str]
AT = Origin("team.yaml", 3, 5, "extends[0]")


def test_clone_once_then_offline(tmp_path: Path, make_repo: MakeRepo) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "v1\n"}, tag="v1.0.0")
    make_repo(origin, {"base.yaml": "v2\n"}, tag="v2.0.0")
    url = origin.as_uri()
    cache = tmp_path / "cache"
    first = repo_file(url, "v1.0.0", "base.yaml", where=AT, cache=cache)
    assert first.read_text() == "v1\n"
    assert repo_file(url, "v2.0.0", "base.yaml", cache=cache).read_text() == "v2\n"
    assert sorted(list_tags(url)) == ["v1.0.0", "v2.0.0"]

    shutil.rmtree(origin)  # the remote is gone: the cache answers
    assert repo_file(url, "v1.0.0", "base.yaml", where=AT, cache=cache) == first
    with pytest.raises(ConfigError) as info:
        repo_file(url, "v3.0.0", "base.yaml", where=AT, cache=cache)
    assert str(info.value).startswith("team.yaml:3:5: extends[0]: git ls-remote failed")


def test_commit_pin_branch_warning_and_bad_paths(tmp_path: Path, make_repo: MakeRepo,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    origin = tmp_path / "origin"
    sha = make_repo(origin, {"a/base.yaml": "one\n"})
    make_repo(origin, {"a/base.yaml": "two\n"})
    url, cache = origin.as_uri(), tmp_path / "cache"
    assert repo_file(url, sha, "a/base.yaml", cache=cache).read_text() == "one\n"
    assert repo_file(url, sha[:10], "a/base.yaml", cache=cache).read_text() == "one\n"
    assert fetch_repo(url, sha, cache=cache).ref == "commit"

    with caplog.at_level(logging.WARNING, logger="toolhost.config"):
        assert repo_file(url, "main", "a/base.yaml", where=AT, cache=cache).read_text() == "two\n"
    assert "team.yaml:3:5: extends[0]: rev 'main' of" in caplog.text
    assert "is a branch, which moves" in caplog.text

    with pytest.raises(ConfigError, match=r"path '\.\./x' must be relative and inside"):
        repo_file(url, sha, "../x", where=AT, cache=cache)
    with pytest.raises(ConfigError, match=r"has no file 'nope\.yaml'"):
        repo_file(url, sha, "nope.yaml", where=AT, cache=cache)
    (origin / "new.yaml").write_text("servers: {}\n")  # written in the local repository, not
    with pytest.raises(ConfigError) as info:  # committed: the hint says so
        repo_file(url, sha, "new.yaml", where=AT, cache=cache)
    assert info.value.problems[0].hint == (
        f"{origin / 'new.yaml'} is in the working tree of {origin}, but not in the commit "
        f"{sha} names: commit it, tag it and pin that tag (`toolhost update`)")
    with pytest.raises(ConfigError, match="has no tag or branch 'v9'"):
        repo_file(url, "v9", "a/base.yaml", where=AT, cache=cache)
    with pytest.raises(ConfigError, match="must be non-empty and not start with '-'"):
        repo_file(url, "--upload-pack=touch x", "a/base.yaml", cache=cache)
    git(origin, "tag", "tree-tag", "HEAD^{tree}")  # was: git's "cannot switch branch to a
    with pytest.raises(ConfigError, match=r"rev 'tree-tag' names no commit \(a tag of a tree"):
        repo_file(url, "tree-tag", "a/base.yaml", where=AT, cache=cache)  # non-commit"


def _fetch_in_child(url: str, cache: str, out: str) -> None:
    checkout = fetch_repo(url, "v1", cache=Path(cache))
    Path(out).write_text(f"{checkout.path}\n{checkout.sha}")


def test_two_processes_share_one_clone(tmp_path: Path, make_repo: MakeRepo) -> None:
    origin = tmp_path / "origin"
    sha = make_repo(origin, {"base.yaml": "x\n"}, tag="v1")
    cache = tmp_path / "cache"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_fetch_in_child,
                         args=(origin.as_uri(), str(cache), str(tmp_path / f"out{i}")))
             for i in range(3)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    outs = {(tmp_path / f"out{i}").read_text() for i in range(3)}
    assert len(outs) == 1 and outs.pop().endswith(sha)
    repos = cache / "repos"
    assert [p.name for p in repos.iterdir() if not p.name.endswith(".lock")] == [
        p.name for p in repos.iterdir() if p.is_dir()]
    assert len([p for p in repos.iterdir() if p.is_dir()]) == 1  # no leftover temp clones


def test_a_held_lock_makes_another_process_wait(tmp_path: Path, make_repo: MakeRepo) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "x\n"}, tag="v1")
    url, cache, out = origin.as_uri(), tmp_path / "cache", tmp_path / "out"
    lock = checkout_dir(url, "v1", cache=cache)
    lock = lock.with_name(lock.name + ".lock")
    lock.parent.mkdir(parents=True)
    ctx = multiprocessing.get_context("spawn")
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        child = ctx.Process(target=_fetch_in_child, args=(url, str(cache), str(out)))
        child.start()
        child.join(2.0)  # long enough for an unlocked clone of a one-file repo
        assert child.is_alive() and not out.exists()
    child.join(60)
    assert child.exitcode == 0 and out.exists()


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["url", "rev", "sha", "ref", "x"]),
                                       inner, max_size=5), max_leaves=10)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meta=_JSON)
def test_any_checkout_metadata_is_a_checkout_or_a_reclone(tmp_path: Path, meta: object) -> None:
    from toolhost.config.gitrepos import _read_meta

    dest = tmp_path / "checkout"
    dest.mkdir(exist_ok=True)
    dest.joinpath(".toolhost-checkout.json").write_text(json.dumps(meta))
    found = _read_meta(dest, "file:///r", "v1")  # never raises
    assert found is None or (found.url, found.rev) == ("file:///r", "v1")


def test_corrupt_checkout_metadata_is_cloned_again(
        tmp_path: Path, make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """Each corrupt record in turn, on one repository (in-process: the load is the same)."""
    from toolhost.cli import main

    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "servers: {}\n"}, tag="v1")
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      "path: base.yaml}\n")
    validate = ["validate", "-q", str(config)]
    assert main(validate) == 0
    (meta_file,) = (tmp_path / "toolhost-cache" / "repos").glob("*/.toolhost-checkout.json")
    for meta in ["{}", "[]", '{"url":1,"rev":2,"sha":null,"ref":"tag"}',
                 '{"url": "file:///elsewhere", "rev": "v1", "sha": "' + "a" * 40
                 + '", "ref": "tag"}', "[" * 100000, "\xff"]:
        meta_file.write_text(meta, encoding="utf-8", errors="surrogateescape")
        capsys.readouterr()
        assert main(validate) == 0, (meta[:40], capsys.readouterr().err)
        assert "internal error" not in capsys.readouterr().err
        assert json.loads(meta_file.read_text())["rev"] == "v1"  # a fresh clone wrote it


def test_a_copy_another_process_fetched_again_meanwhile_is_used(
        tmp_path: Path, make_repo: MakeRepo) -> None:
    """Several loads that found the same edited checkout each cloned it again in turn (all
    under the lock, one after the other): the second one now takes the first one's copy."""
    from toolhost.config.gitrepos import record_id, refetch_repo

    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "v1\n"}, tag="v1.0.0")
    url, cache = origin.as_uri(), tmp_path / "cache"
    first = fetch_repo(url, "v1.0.0", cache=cache)
    seen = record_id(first.path)
    refetch_repo(url, "v1.0.0", cache=cache)  # another process's fresh copy
    shutil.rmtree(origin)  # a clone now fails: only the copy in place can answer
    again = refetch_repo(url, "v1.0.0", cache=cache, seen=seen)
    assert again.sha == first.sha and again.path.joinpath("base.yaml").read_text() == "v1\n"
    with pytest.raises(ConfigError):  # the copy the caller found is the one in place
        refetch_repo(url, "v1.0.0", cache=cache, seen=record_id(first.path))


@pytest.mark.parametrize(("entry", "key", "says"), [
    ("{repo: ./team, path: base.yaml}", "", "`rev` is required: pin a tag or a commit"),
    # YAML reads rev: 1.10 as the number 1.1: quoting it keeps the tag's name
    ("{repo: ./team, rev: 1.10, path: base.yaml}", "rev",
     "`rev` must be a string, not the number 1.1 (quote it as written: rev: \"...\")"),
    ("{repo: ./team, rev: v1, path: [a]}", "path", "`path` must be a string, not a list"),
    ("{repo: ./team, rev: null}", "rev", "`rev` must be a string, not null"),
    ("{rev: v1, path: base.yaml}", "", "got a mapping without `repo`"),
    # each of these ran git before: an empty repo is the config's own directory to git
    ("{repo: '', rev: v1, path: base.yaml}", "repo", "`repo` is empty"),
    ("{repo: ./team, rev: ' ', path: base.yaml}", "rev", "`rev` is empty"),
    ("{repo: ./team, rev: v1, path: ''}", "path", "`path` is empty"),
    ("{repo: ./team, rev: --upload-pack=x, path: a}", "rev", "`rev` must not start with '-'"),
    ("{repo: ./team, rev: v1, pth: a}", "pth", "unknown key(s) 'pth' in a git extends"),
])
def test_an_extends_entry_of_the_wrong_shape_says_which_key(tmp_path: Path, entry: str,
                                                              key: str, says: str) -> None:
    """Every one of them was '`repo`, `rev` and `path` must be strings' (or 'got dict'); a
    wrong key's line is the key's own, found before any git runs."""
    from toolhost.config import load_config

    config = tmp_path / "c.yaml"
    config.write_text(f"toolhost: 1\nextends:\n  - {entry}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    (problem,) = caught.value.problems
    column = 5 + entry.index(f"{key}:") if key else 5
    assert (problem.line, problem.column) == (3, column)
    assert problem.key_path == "extends[0]" + (f".{key}" if key else "")
    assert says in f"{problem.message} ({problem.hint})", problem


@pytest.mark.parametrize(("fragment", "says"), [
    ("servers:\n  t:\n    tools:\n      x: {descripton: x, command: [echo, x]}\n",
     "unknown key"),  # the fragment's own schema error
    ("servers:\n  t: [\n", "invalid YAML"),  # a fragment that does not parse
])
def test_a_problem_in_a_fetched_fragment_names_its_repo_and_rev(
        tmp_path: Path, make_repo: MakeRepo, fragment: str, says: str) -> None:
    """It was located in the cache only (.../repos/3f2a.../base.yaml:4:11): correct, and
    no reader could tell which repository or tag that file is of."""
    from toolhost.config import load_config

    origin = tmp_path / "team"
    make_repo(origin, {"sub/base.yaml": fragment}, tag="v1.2.0")
    config = tmp_path / "c.yaml"
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1.2.0, "
                      "path: sub/base.yaml}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    (problem,) = [p for p in caught.value.problems if says in p.message]
    assert str(tmp_path / "toolhost-cache") in problem.file  # still the file to open
    assert problem.hint.endswith(f"sub/base.yaml of {origin.as_uri()} at v1.2.0"), problem


def test_a_rev_the_remote_lacks_is_said_with_what_it_has(tmp_path: Path,
                                                         make_repo: MakeRepo) -> None:
    """The first hour: `rev: 1.2.0` for a tag `v1.2.0` said only "pin a tag or a commit"."""
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "v1\n"}, tag="v1.2.0")
    make_repo(origin, {"base.yaml": "v2\n"}, tag="v1.3.0")
    url, cache = origin.as_uri(), tmp_path / "cache"
    with pytest.raises(ConfigError) as info:
        repo_file(url, "1.2.0", "base.yaml", where=AT, cache=cache)
    (problem,) = info.value.problems
    assert "has no tag or branch '1.2.0'" in problem.message
    assert problem.hint.startswith("did you mean 'v1.2.0'"), problem.hint
    with pytest.raises(ConfigError) as info:
        repo_file(url, "release-x", "base.yaml", where=AT, cache=cache)
    assert "its tags and branches include" in info.value.problems[0].hint
    assert "'v1.3.0'" in info.value.problems[0].hint


@pytest.mark.parametrize(("path", "near"), [
    ("bse.yaml", " (did you mean 'base.yaml'?)"),  # a typo
    ("strict.yaml", " (did you mean 'rules/strict.yaml'?)"),  # in another folder
    ("zzz/qqq.txt", ""),  # nothing near: no guess
])
def test_a_missing_file_names_the_files_near_it(tmp_path: Path, make_repo: MakeRepo,
                                                path: str, near: str) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "a: 1\n", "rules/strict.yaml": "b: 2\n", "notes.md": "x\n"},
              tag="v1")
    with pytest.raises(ConfigError) as info:
        repo_file(origin.as_uri(), "v1", path, where=AT, cache=tmp_path / "cache")
    message = info.value.problems[0].message
    assert message.endswith(f"has no file {path!r}{near}"), message


def test_pins_past_the_limit_are_refused_before_they_are_cloned(
        tmp_path: Path, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1,000 pins of one repository (a tag each) were 1,000 clones: minutes and a full disk
    from toolhost.config import load_config

    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "servers: {}\n"}, tag="t0")
    for i in range(1, 6):
        git(origin, "tag", f"t{i}")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nextends:\n" + "".join(
        f"  - {{repo: ./origin, rev: t{i}, path: base.yaml}}\n" for i in range(6)))
    monkeypatch.setenv("TOOLHOST_MAX_REPO_PINS", "3")
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (6, "extends[3]")
    assert problem.message == ("more than 3 repository pins ({repo, rev}) in one load: each "
                               "is cloned")
    cache = tmp_path / "toolhost-cache" / "repos"
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 3  # the 4th was never cloned
    monkeypatch.setenv("TOOLHOST_MAX_REPO_PINS", "6")
    load_config(config, layers=False)

"""A lock's values are what ``toolhost lock`` writes, or the lock is one located line.

A hand-edited or merged lock (a commit that is an option of git's, a hash that is not one, a
path out of its source, a control character, conflict markers) is refused when it is read, by
every command, before any value reaches git or a message; a lock with a wrong hash of a real
commit's file says the lock was edited, not the cache.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.errors import ConfigError
from toolhost.lockfile import read_lock

TOOLHOST = str(Path(sys.executable).parent / "toolhost")
SHA = "a" * 40
DIGEST = "sha256:" + "b" * 64


def good() -> dict[str, Any]:
    return {"toolhost_lock": 1,
            "sources": {"repo:https://git.example/team@v1": {"commit": SHA,
                                                             "files": {"base.yaml": DIGEST}},
                        "pkg:toolhost-files": {"version": "0.1.0",
                                               "files": {"presets/a.yaml": DIGEST}},
                        "openapi:shop": {"digest": DIGEST, "files": {}}},
            "plugins": {"toolhost-files": "0.1.0"}}


REPO = "repo:https://git.example/team@v1"


def _set(path: list[str], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path
        for key in parents:
            data = data[key]
        data[last] = value
    return edit


def _file(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["sources"][REPO]["files"] = {name: DIGEST}
    return edit


# each edit of a good lock, and what the one problem says
EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "commit an option": (_set(["sources", REPO, "commit"], "--upload-pack=touch pwned"),
                         "not a commit id"),
    "commit short": (_set(["sources", REPO, "commit"], "abc123"), "not a commit id"),
    "commit upper case": (_set(["sources", REPO, "commit"], "A" * 40), "not a commit id"),
    "commit a tag": (_set(["sources", REPO, "commit"], "v1"), "not a commit id"),
    "commit empty": (_set(["sources", REPO, "commit"], ""), "not a commit id"),
    "commit with a newline": (_set(["sources", REPO, "commit"], SHA + "\n"), "not a commit id"),
    "file hash truncated": (_set(["sources", REPO, "files", "base.yaml"], "sha256:00"),
                            "not a file hash"),
    "file hash md5": (_set(["sources", REPO, "files", "base.yaml"], "md5:" + "0" * 32),
                      "not a file hash"),
    "file out by ..": (_file("../../etc/passwd"), "not a relative path"),
    "file absolute": (_file("/etc/passwd"), "not a relative path"),
    "file in .git": (_file(".git/config"), "not a relative path"),
    "file with a newline": (_file("a\nb.yaml"), "not a relative path"),
    "file empty": (_file(""), "not a relative path"),
    "openapi digest": (_set(["sources", "openapi:shop", "digest"], "-x"), "not a digest"),
    "package version with a control": (_set(["sources", "pkg:toolhost-files", "version"],
                                            "0.1\x1b[2J"), "not a version"),
    "plugin version empty": (_set(["plugins", "toolhost-files"], ""), "not a version"),
    "plugin version with a newline": (_set(["plugins", "toolhost-files"], "1\nforged"),
                                      "not a version"),
    "plugin name with a newline": (_set(["plugins", "a\nb"], "1"), "not a distribution name"),
    "source key with a control": (_set(["sources", "pkg:x\x07"], {"version": "1", "files": {}}),
                                  "not a source key"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_value_lock_never_writes_is_one_located_problem(tmp_path: Path, name: str) -> None:
    edit, says = EDITS[name]
    data = good()
    edit(data)
    lock = tmp_path / "toolhost.lock"
    lock.write_text(json.dumps(data, indent=2))
    with pytest.raises(ConfigError) as caught:
        read_lock(lock)
    (problem,) = caught.value.problems
    assert says in problem.message and problem.file == str(lock), problem
    assert problem.line >= 2 and problem.column >= 1, problem  # the line holding it
    assert "\n" not in problem.message and "\x1b" not in problem.message
    assert "toolhost lock" in problem.hint


# a value of the wrong type (a hand edit), and the text of the line the problem must name
TYPE_EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "commit a number": (_set(["sources", REPO, "commit"], 5), '"commit": 5'),
    "version a number": (_set(["sources", "pkg:toolhost-files", "version"], 1),
                         '"version": 1'),
    "files a list": (_set(["sources", REPO, "files"], ["base.yaml"]), '"files": ['),
    "a file hash a number": (_set(["sources", REPO, "files", "base.yaml"], 7),
                             '"base.yaml": 7'),
    "a source a list": (_set(["sources", "openapi:shop"], []), '"openapi:shop": []'),
    "sources a list": (_set(["sources"], []), '"sources": []'),
    "lock format true": (_set(["toolhost_lock"], True), '"toolhost_lock": true'),
    "lock format 1.0": (_set(["toolhost_lock"], 1.0), '"toolhost_lock": 1.0'),
    "lock format newer": (_set(["toolhost_lock"], 9), '"toolhost_lock": 9'),
    "plugins a list": (_set(["plugins"], ["toolhost-files"]), '"plugins": ['),
    "a plugin version a number": (_set(["plugins", "toolhost-files"], 1), '"toolhost-files": 1'),
    "upstreams a string": (_set(["upstreams"], "x"), '"upstreams": "x"'),
    "an upstream's tool a list": (_set(["upstreams"], {"gh": {"a": {}}, "db": {"q": []}}),
                                  '"db": {'),
}


@pytest.mark.parametrize("name", sorted(TYPE_EDITS))
def test_a_value_of_the_wrong_type_is_located_at_its_line(tmp_path: Path, name: str) -> None:
    edit, holding = TYPE_EDITS[name]
    data = good()
    edit(data)
    text = json.dumps(data, indent=2)
    lock = tmp_path / "toolhost.lock"
    lock.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_lock(lock)
    (problem,) = caught.value.problems
    lines = text.splitlines()
    line = next(n for n, shown in enumerate(lines, 1) if holding in shown)
    assert (problem.line, problem.column) == (line, lines[line - 1].index('"') + 1), problem
    assert "toolhost" in problem.hint


def test_the_good_lock_reads(tmp_path: Path) -> None:
    lock = tmp_path / "toolhost.lock"
    lock.write_text(json.dumps(good()))
    read = read_lock(lock)
    assert read is not None and read.sources[REPO].pin == SHA


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=80))
def test_a_read_commit_is_always_a_commit_id(tmp_path_factory: Any, commit: str) -> None:
    lock = tmp_path_factory.getbasetemp() / "read-commit.lock"  # one file, rewritten: a
    # directory per example was most of the test's time
    data = good()
    data["sources"][REPO]["commit"] = commit
    lock.write_text(json.dumps(data))
    try:
        read = read_lock(lock)
    except ConfigError:
        return
    assert read is not None
    pin = read.sources[REPO].pin
    assert len(pin) in (40, 64) and all(c in "0123456789abcdef" for c in pin)


MARKED = ('<<<<<<< HEAD\n{\n  "toolhost_lock": 1\n}\n=======\n{\n  "toolhost_lock": 1,\n'
          '  "plugins": {}\n}\n>>>>>>> feature\n')


@pytest.mark.parametrize("text", [MARKED, '{\n  "toolhost_lock": 1,\n<<<<<<< ours\n'
                                  '  "plugins": {}\n=======\n  "plugins": {"a": "1"}\n'
                                  '>>>>>>> theirs\n}\n'])
def test_conflict_markers_say_so(tmp_path: Path, text: str) -> None:
    lock = tmp_path / "toolhost.lock"
    lock.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_lock(lock)
    (problem,) = caught.value.problems
    assert "merge conflict markers" in problem.message
    assert problem.line == text.splitlines().index(
        next(line for line in text.splitlines() if line.startswith("<<<<<<<"))) + 1
    assert "toolhost lock" in problem.hint


def test_an_option_as_the_locked_commit_never_reaches_git(
        tmp_path: Path, make_repo: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": "servers: {}\n"}, tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      "path: base.yaml}\n")
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess[str]:  # the command line, in-process
        from toolhost.cli import main

        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["toolhost", *args], code, out, err)

    assert run("lock", str(config)).returncode == 0
    lock = config.with_suffix(".lock")
    data = json.loads(lock.read_text())
    (key,) = data["sources"]
    pwned = tmp_path / "PWNED"
    data["sources"][key]["commit"] = f"--upload-pack=touch {pwned};git-upload-pack"
    lock.write_text(json.dumps(data, indent=2))
    for args in (("validate", str(config)), ("lock", "--check", str(config)),
                 ("tools", str(config))):
        done = run(*args)
        assert done.returncode == 1, (args, done.stderr)
        assert not pwned.exists(), args
        assert f"{lock}:5:" in done.stderr and "not a commit id" in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    # `toolhost lock` writes it again, from the commit
    done = run("lock", str(config))
    assert done.returncode == 0 and not pwned.exists(), done.stderr
    assert "written anew" in done.stdout, done.stdout
    assert len(json.loads(lock.read_text())["sources"][key]["commit"]) == 40
    # a wrong hash of the right commit's file: the lock was edited, not the cache
    data = json.loads(lock.read_text())
    data["sources"][key]["files"]["base.yaml"] = DIGEST
    lock.write_text(json.dumps(data, indent=2))
    done = run("validate", str(config))
    assert done.returncode == 1 and "the hash in toolhost.lock was edited" in done.stderr
    assert "reinstall the package" not in done.stderr
    assert "modified on disk" not in done.stderr  # the cache is the commit: nothing re-cloned


def test_a_lock_of_thousands_of_stale_sources_is_listed_bounded(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers: {}\n")
    data = {"toolhost_lock": 1, "plugins": {}, "sources": {
        f"repo:https://x.example/r{i}@v1": {"commit": SHA, "files": {"a.yaml": DIGEST}}
        for i in range(5000)}}
    (tmp_path / "toolhost.lock").write_text(json.dumps(data))
    done = subprocess.run([TOOLHOST, "lock", "--check", str(config)], cwd=tmp_path, text=True,
                          capture_output=True, timeout=120)
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and len(lines) == 201, len(lines)
    assert lines[-1].endswith("... and 4,800 more changes"), lines[-1]


# one value of each wrong type, as JSON text (escapes written as a hand edit writes them)
WRONG_JSON = {"null": "null", "true": "true", "int": "987654321", "float": "2.5",
              "huge int": "9" * 5000, "nan": "NaN", "overflow": "1e400", "string": '"qq"',
              "huge string": '"' + "q" * 100_000 + '"', "list": '[1, "a"]',
              "object": '{"zz": 1}', "deep": "[" * 3000 + "]" * 3000,
              "duplicate key": '{"a": 1, "a": 2}', "escaped controls": '"\\u0000\\u202e"',
              "lone surrogate": '"\\ud800"', "bidi": '"1.0\\u202e"'}


def _key_paths(data: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [path] if path else []
    for key, value in data.items() if isinstance(data, dict) else ():
        out += _key_paths(value, (*path, key))
    return out


def test_every_key_with_every_wrong_value_is_one_located_line(tmp_path: Path) -> None:
    """The lock's sweep: a wrong value at each key is one problem at a line (a value written
    with other escapes than json.dumps writes was found nowhere: a line-less problem), or a
    lock that reads; never another exception."""
    base = good()
    base["upstreams"] = {"gh": {"a": {"name": "a", "inputSchema": {"type": "object"}}}}
    lock = tmp_path / "toolhost.lock"
    failures = []
    for path in _key_paths(base):
        for name, text in WRONG_JSON.items():
            data = json.loads(json.dumps(base))
            holder = data
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = "__WRONG__"
            lock.write_text(json.dumps(data, indent=2).replace('"__WRONG__"', text))
            try:
                read_lock(lock)
            except ConfigError as exc:
                lines = [str(p) for p in exc.problems]
                if len(exc.problems) != 1 or exc.problems[0].line < 1 or \
                        any(len(line) > 1100 or "\n" in line for line in lines):
                    failures.append(f"{'.'.join(path)} = {name}: {[x[:200] for x in lines]}")
    assert not failures, "\n".join(failures)

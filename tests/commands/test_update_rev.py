"""``toolhost update`` rewrites a ``rev`` only in the forms it reads exactly, checks every
rewrite by parsing the result, and refuses anything else with a located line (exit 1), the
file unchanged -- never a different value reported as success, never an internal error."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.cli import main
from toolhost.commands._revedit import RevEditError, rewrite_rev
from toolhost.commands.update import _parser

from ..plugins.conftest import _make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    _make_repo(path, {"toolhost.yaml": "servers: {}\n"}, tag="v1")
    _make_repo(path, {"toolhost.yaml": "servers: {}\n"}, tag="v3")
    return path


def _update(tmp_path: Path, name: str, text: str, *args: str) -> tuple[
        subprocess.CompletedProcess[str], str]:
    """``toolhost update NAME ARGS`` in ``tmp_path``, run through the command line in this
    process (a process per case cost ~1-2 s each: nothing here lives in a process)."""
    config = tmp_path / name
    config.write_bytes(text.encode())
    done = run_cli(["update", name, *args], cwd=tmp_path, env={
        "TOOLHOST_CACHE": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "TOOLHOST_DEBUG": None})
    return done, config.read_bytes().decode()  # as written: \r\n stays


REFUSED = {
    "tag.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: !!str v1\n",
    "anchor.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: &r v1\n",
    "folded.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: >-\n      v1\n",
    "literal.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: |-\n      v1\n",
    "next_line.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev:\n      v1\n",
    "two_words.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1 x\n",
    "hash.yaml": "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1#x\n",
    "quoted_lines.yaml": 'toolhost: 1\nextends:\n  - repo: ./repo\n    rev: "v1\n      "\n',
    "shared.yaml": "toolhost: 1\nbase: &b {repo: ./repo, rev: v1}\nextends:\n  - *b\n",
    "basic3.toml": 'toolhost = 1\n[[extends]]\nrepo = "./repo"\nrev = """v1"""\n',
    "literal3.toml": "toolhost = 1\n[[extends]]\nrepo = \"./repo\"\nrev = '''v1'''\n",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_form_it_cannot_rewrite_exactly_is_refused_and_left_alone(
        tmp_path: Path, repo: Path, name: str) -> None:
    text = REFUSED[name]
    done, after = _update(tmp_path, name, text)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert f"{name}:" in done.stderr and "extends[0].rev: cannot rewrite" in done.stderr
    assert "edit this rev by hand" in done.stderr
    assert " -> v3" not in done.stdout  # no success is reported
    assert after == text


FORMS = [
    ("plain.yaml", "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1   # pin\n",
     "    rev: v3   # pin\n"),
    ("double.yaml", 'toolhost: 1\nextends:\n  - {repo: ./repo, rev: "v1"}\n',
     '  - {repo: ./repo, rev: "v3"}\n'),
    ("single.yaml", "toolhost: 1\nextends:\n  - {repo: ./repo, 'rev': 'v1', path: x.yaml}\n",
     "  - {repo: ./repo, 'rev': 'v3', path: x.yaml}\n"),
    ("basic.toml", 'toolhost = 1\n[[extends]]\nrepo = "./repo"\nrev = "v1"  # c\n',
     'rev = "v3"  # c\n'),
    ("literal.toml", "toolhost = 1\n[[extends]]\nrepo = \"./repo\"\nrev = 'v1'\n",
     "rev = 'v3'\n"),
    ("crlf.yaml", "toolhost: 1\r\nextends:\r\n  - repo: ./repo\r\n    rev: v1\r\n",
     "    rev: v3\r\n"),
]


@pytest.mark.parametrize(("name", "text", "line"), FORMS)
def test_the_forms_it_reads_are_rewritten_in_place(tmp_path: Path, repo: Path, name: str,
                                                   text: str, line: str) -> None:
    done, after = _update(tmp_path, name, text)
    assert done.returncode == 0, done.stderr
    assert " v1 -> v3" in done.stdout
    assert line in after
    assert after.replace("v3", "v1") == text  # nothing else moved


def test_one_refused_pin_does_not_stop_the_others(tmp_path: Path, repo: Path) -> None:
    text = ("toolhost: 1\nextends:\n  - {repo: ./repo, rev: v1}\n"
            "  - repo: ./repo\n    rev: !!str v1\n")
    done, after = _update(tmp_path, "mixed.yaml", text)
    assert done.returncode == 1
    assert "mixed.yaml:5:10: extends[1].rev: cannot rewrite" in done.stderr
    assert after == text.replace("rev: v1}", "rev: v3}")


# -- rewrite_rev on its own -------------------------------------------------------------------

def _rewrite(tmp_path: Path, name: str, text: str, new: str, line: int,
             column: int) -> tuple[str, Any]:
    parse = _parser(tmp_path / name)
    return rewrite_rev(text, line=line, column=column, index=0, new=new, parse=parse,
                       expected=parse(text))


@pytest.mark.parametrize(("new", "written"), [
    ("1.10", '"1.10"'),  # plain 1.10 would read as a number
    ("v2.0.0", "v2.0.0"), ("a b", '"a b"'), ('a"b\\c', '"a\\"b\\\\c"'), ("yes", '"yes"'),
    ("null", '"null"'), ("-x", "-x"),
])
def test_a_plain_value_stays_plain_only_when_it_still_reads_as_the_same_string(
        tmp_path: Path, new: str, written: str) -> None:
    text = "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\n"
    out, data = _rewrite(tmp_path, "c.yaml", text, new, 4, 5)
    assert out == text.replace("rev: v1", f"rev: {written}")
    assert data["extends"][0]["rev"] == new


def test_a_toml_single_quoted_value_with_a_quote_becomes_double_quoted(tmp_path: Path) -> None:
    text = "toolhost = 1\n[[extends]]\nrepo = \"./repo\"\nrev = 'v1'\n"
    out, _ = _rewrite(tmp_path, "c.toml", text, "it's", 4, 1)
    assert out.endswith('rev = "it\'s"\n')


def test_a_key_that_is_not_at_the_mark_is_refused(tmp_path: Path) -> None:
    text = "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\n"
    with pytest.raises(RevEditError, match="cannot find"):
        _rewrite(tmp_path, "c.yaml", text, "v3", 4, 1)


@pytest.mark.parametrize("locked", [False, True])
def test_a_rev_that_does_not_resolve_is_not_written(
        tmp_path: Path, repo: Path, locked: bool, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each rev in turn, on one project (in-process: what it checks is the command's)."""

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLHOST_DEBUG", raising=False)
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    text = f"toolhost: 1\nextends:\n  - repo: {repo.as_uri()}\n    rev: v1\n"
    config = tmp_path / "toolhost.yaml"
    config.write_text(text)
    if locked:
        assert main(["lock", "toolhost.yaml"]) == 0
    lock = (tmp_path / "toolhost.lock").read_bytes() if locked else None
    capsys.readouterr()
    for rev in ["nonexist", "v2", "a" * 40, "deadbeef", "v1:refs/heads/x", "refs/tags/../v1"]:
        assert main(["update", "toolhost.yaml", f"--rev={rev}"]) == 1, rev
        out, err = capsys.readouterr()
        assert config.read_text() == text, (rev, out)
        assert err.count("\n") == 1 and "internal error" not in err, (rev, err)
        assert err.startswith("toolhost.yaml:4:5: extends[0].rev: "), (rev, err)
        if lock is not None:
            assert (tmp_path / "toolhost.lock").read_bytes() == lock


@pytest.mark.parametrize("rev", ["--upload-pack=x", "-v1", "", " ", "v1\nevil: 1", "v1\revil",
                                 "v1\x00", "v1\x1b[31m", "v1\u2028x", "v 1", "v1 --upload-pack=x"])
def test_an_impossible_rev_is_one_line_before_anything(tmp_path: Path, repo: Path,
                                                       rev: str) -> None:
    text = f"toolhost: 1\nextends:\n  - repo: {repo.as_uri()}\n    rev: v1\n"
    done, after = _update(tmp_path, "toolhost.yaml", text, f"--rev={rev}")  # (a NUL too:
    # no process argument can hold one, the API's callers can)
    assert done.returncode == 2 and after == text
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("toolhost update: --rev ")
    assert not (tmp_path / "cache").exists()  # nothing was even fetched


UNPARSABLE = {  # what the loader refuses, anywhere in the file: its own located line
    "dup_rev.yaml": ("toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\n    rev: v1\n",
                     "dup_rev.yaml:5:5: extends[0].rev: duplicate key"),
    "dup_elsewhere.yaml": ("toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\n"
                           "servers: {}\nservers: {}\n",
                           "dup_elsewhere.yaml:6:1: servers: duplicate key"),
    "dup_repo.yaml": ("toolhost: 1\nextends:\n  - repo: ./repo\n    repo: ./repo\n    rev: v1\n",
                      "dup_repo.yaml:4:5: extends[0].repo: duplicate key"),
    "binary.yaml": ("toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\nx: !!binary aGk=\n",
                    "binary.yaml:5:4: x: unsupported YAML tag"),
    "custom.yaml": ("toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\nx: !local 1\n",
                    "custom.yaml:5:4: x: unsupported YAML tag"),
    "set.yaml": ("toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\nx: !!set {a}\n",
                 "set.yaml:5:4: x: unsupported YAML tag"),
    "dup.toml": ('toolhost = 1\nx = 1\nx = 2\n[[extends]]\nrepo = "./repo"\nrev = "v1"\n',
                 "dup.toml:3:"),
}


@pytest.mark.parametrize("args", [(), ("--dry-run",), ("--rev", "v3")])
@pytest.mark.parametrize("name", sorted(UNPARSABLE))
def test_a_file_the_loader_refuses_is_its_located_line_and_left_alone(
        tmp_path: Path, repo: Path, name: str, args: tuple[str, ...]) -> None:
    text, expected = UNPARSABLE[name]
    done, after = _update(tmp_path, name, text, *args)
    assert done.returncode == 1, done
    assert expected in done.stderr, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert after == text


def test_a_config_it_cannot_write_is_one_line_and_left_alone(
        tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only directory (root ignores modes, so the file system says it here): was
    `internal error: OSError: [Errno 30] Read-only file system`."""
    import errno
    import tempfile

    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    text = "toolhost: 1\nextends:\n  - {repo: ./repo, rev: v1, path: toolhost.yaml}\n"
    done, after = _update(tmp_path, "toolhost.yaml", text)
    assert done.returncode == 1 and after == text
    assert done.stderr == "toolhost.yaml: cannot write it: Read-only file system; nothing changed\n"


def test_update_skips_tags_of_trees_and_says_a_newer_pre_release(tmp_path: Path) -> None:
    """The newest version tag naming a tree (``git tag v9 'HEAD^{tree}'``) made the whole
    update fail at the relock; a newer pre-release was left out without a word."""
    path = tmp_path / "team"
    _make_repo(path, {"toolhost.yaml": "servers: {}\n"}, tag="v1.0.0")
    _make_repo(path, {"toolhost.yaml": "servers: {}\n# 2\n"})
    subprocess.run(["git", "tag", "-a", "v1.1.0", "-m", "annotated"], cwd=path, check=True)
    _make_repo(path, {"toolhost.yaml": "servers: {}\n# 3\n"}, tag="v2.0.0-rc1")
    for tag, obj in (("latest", "HEAD"), ("v9.9.9", "HEAD^{tree}"), ("v9.0.0", "HEAD^{tree}")):
        subprocess.run(["git", "tag", tag, obj], cwd=path, check=True)
    text = "toolhost: 1\nextends:\n  - {repo: ./team, rev: v1.0.0}\n"
    done, after = _update(tmp_path, "u.yaml", text)
    assert done.returncode == 0, done.stderr
    assert after == text.replace("v1.0.0", "v1.1.0")
    assert ("u.yaml:3: ./team: v1.0.0 -> v1.1.0 (v9.9.9, v9.0.0: a tag of a tree or a blob, "
            "no commit: skipped) (v2.0.0-rc1 is a pre-release: --pre moves to it)"
            ) in done.stdout, done.stdout
    done, after = _update(tmp_path, "u.yaml", after, "--pre")
    assert done.returncode == 0 and "rev: v2.0.0-rc1" in after, done.stderr


def test_a_long_double_quoted_rev_is_read_in_memory_of_its_size() -> None:
    """The double-quoted form kept a regex frame per character (a 1 MB rev: 120 MB)."""
    import tracemalloc

    old = "a" * 1_000_000
    text = f'toolhost: 1\nextends:\n  - repo: ./repo\n    rev: "{old}"\n'

    def parse(written: str) -> Any:  # the one value that changes, read without a YAML parser
        rev = written.rsplit('rev: "', 1)[1].split('"', 1)[0]
        return {"toolhost": 1, "extends": [{"repo": "./repo", "rev": rev}]}

    tracemalloc.start()
    try:
        out, data = rewrite_rev(text, line=4, column=5, index=0, new="v2", parse=parse,
                                expected=parse(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.endswith('rev: "v2"\n') and data["extends"][0]["rev"] == "v2"
    assert peak < 12 * len(text), f"{peak:,} bytes"


@pytest.mark.parametrize("tag", ["v" + "9" * 5000, "1." + "2" * 4400, "v1.0"])
def test_a_tag_past_pythons_digit_limit_names_no_version(tag: str) -> None:
    # a team repository's tag: packaging read each part as an int and raised ValueError
    from toolhost.commands._update_tags import tag_version

    version = tag_version(tag)
    assert (version is None) == (len(tag) > 100)


def test_a_repository_it_cannot_reach_leaves_the_pin_and_says_so(tmp_path: Path,
                                                                  repo: Path) -> None:
    """Offline, update printed git's reason alone: not that nothing changed, nor that the
    pinned rev still loads from the cache."""
    import shutil

    shutil.rmtree(repo)  # as unreachable as a remote with no network
    text = "toolhost: 1\nextends:\n  - repo: ./repo\n    rev: v1\n"
    done, after = _update(tmp_path, "t.yaml", text)
    assert done.returncode == 1 and after == text, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("t.yaml:4: ") and "ls-remote failed" in line, line
    assert "nothing changed for this entry" in line and "rev v1 stays pinned" in line, line

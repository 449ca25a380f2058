"""Mercurial patterns, Jujutsu filesets and Subversion URLs chosen by a value (git's pathspec
magic is test_git_pathspecs): `[hg, revert, --, "{{ f }}"]` with `re:.*` reverted every file
of the repository, `listfile:/etc/shadow` made hg read a file the config never named, `[jj,
restore, "{{ f }}"]` with `~x` restored every file but x, `[svn, cat, "{{ f }}"]` with
`svn+ssh://host/x` ran ssh to a host the model chose. A value that writes a kind, fileset
syntax or a URL where these programs read a file operand is refused; a message, a revision, a
grep pattern, a plain name and a kind the config writes still run. No hg, jj or svn is
installed here: the argv is only rendered, never run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.backends.argv import ArgvRefused, compile_argv

HG_ARGVS = [
    ["hg", "revert", "--", "{{ v }}"],
    ["hg", "cat", "-r", "tip", "{{ v }}"],
    ["hg", "status", "{{ v }}"],
    ["hg", "log", "-l", "5", "{{ v }}"],
    ["hg", "commit", "-m", "fix", "{{ v }}"],
    ["hg", "files", "-I", "{{ v }}"],
    ["hg", "status", "--exclude", "{{ v }}"],
    ["hg", "-R", "repo", "forget", "{{ v }}"],
    ["hg", "grep", "TODO", "{{ v }}"],
    ["chg", "annotate", "{{ v }}"],
    ["timeout", "30", "hg", "diff", "{{ v }}"],
    ["env", "HGPLAIN=1", "/usr/bin/hg", "add", "{{ v }}"],
    ["hg", "status", "--unknownflag", "{{ v }}"],  # an option not known: a flag
]
HG_KINDS = ["re:.*", "glob:**", "path:secret/key", "filepath:.hg/hgrc", "relglob:*.key",
            "relpath:x", "relre:.", "rootglob:**", "rootfilesin:secrets",
            "listfile:/etc/shadow", "listfile0:/etc/shadow", "set:size('>1k')",
            "include:/etc/passwd", "subinclude:/etc/passwd"]


@pytest.mark.parametrize("argv", HG_ARGVS, ids=" ".join)
@pytest.mark.parametrize("value", HG_KINDS)
def test_hg_a_value_may_not_choose_the_pattern_kind(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="Mercurial pattern"):
        compile_argv(argv).render({"v": value})


@pytest.mark.parametrize("value", ["file('listfile:/etc/shadow')", "follow(\"include:x\")",
                                   "contains(listfile0:/x)", "tip and file('subinclude:a')"])
@pytest.mark.parametrize("argv", [["hg", "log", "-r", "{{ v }}"],
                                  ["hg", "log", "--rev={{ v }}"],
                                  ["hg", "update", "{{ v }}"]], ids=" ".join)
def test_hg_a_revset_may_not_read_a_file(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="reads a file"):
        compile_argv(argv).render({"v": value})


@pytest.mark.parametrize(("argv", "value"), [
    (["hg", "commit", "-m", "{{ v }}", "a.txt"], "re: the include: step, listfile:x"),
    (["hg", "commit", "--message={{ v }}"], "set: x"),
    (["hg", "log", "-u", "{{ v }}"], "re:bob"),
    (["hg", "log", "-r", "{{ v }}"], "re:x"),  # a revision, not a pattern
    (["hg", "log", "-r", "{{ v }}"], "tip and file('docs/**')"),
    (["hg", "grep", "{{ v }}"], "re:x"),  # grep's first operand is its regular expression
    (["hg", "cat", "./{{ v }}"], "re:x"),
    (["hg", "cat", "path:{{ v }}"], "docs/a.md"),
    (["hg", "cat", "{{ v }}"], "notes:today.txt"),  # not a kind: a path
    (["hg", "cat", "{{ v }}"], "docs/a.md"),
    (["hg", "cat", "{{ v }}.txt"], "docs/a"),
], ids=repr)
def test_hg_what_still_runs(argv: list[str], value: str) -> None:
    out = compile_argv(argv).render({"v": value})
    assert value in " ".join(out)


def test_hg_a_list_item_too() -> None:
    plan = compile_argv(["hg", "add", "--", "{{ files }}"])
    with pytest.raises(ArgvRefused, match="Mercurial pattern"):
        plan.render({"files": ["a.md", "re:.*"]})


def test_hg_through_a_link(tmp_path: Path) -> None:
    """A program that is a link to hg is checked as hg (the target is only read, not run)."""
    real = tmp_path / "hg"
    real.write_text("not run\n")
    real.chmod(0o755)  # found on the search path as execvp would; only its name is read
    (tmp_path / "myvcs").symlink_to(real)
    plan = dataclasses.replace(compile_argv(["myvcs", "cat", "{{ v }}"]),
                               search_path=str(tmp_path))
    with pytest.raises(ArgvRefused, match="Mercurial pattern"):
        plan.render({"v": "listfile:/etc/shadow"})
    assert plan.render({"v": "a.txt"})[-1] == "a.txt"


JJ_ARGVS = [
    ["jj", "restore", "{{ v }}"],
    ["jj", "diff", "--git", "{{ v }}"],
    ["jj", "file", "show", "-r", "@-", "{{ v }}"],
    ["jj", "squash", "--into", "main", "{{ v }}"],
    ["jj", "-R", "repo", "status", "--", "{{ v }}"],
    ["jj", "log", "./{{ v }}"],  # a literal start does not help: jj reads an expression
    ["jj", "file", "show", "cwd-file:{{ v }}"],
]
JJ_SYNTAX = ["~x", "root:secret", "root-file:.jj/repo/store", "glob:**", "all()",
             "a | b", "docs/a.md|root:x", "x & y", "\"x\"", "x\\y", "a,b"]


@pytest.mark.parametrize("argv", JJ_ARGVS, ids=" ".join)
@pytest.mark.parametrize("value", JJ_SYNTAX)
def test_jj_a_value_may_not_write_fileset_syntax(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match="Jujutsu fileset"):
        compile_argv(argv).render({"v": value})


@pytest.mark.parametrize(("argv", "value"), [
    (["jj", "restore", "{{ v }}"], "docs/a b.md"),
    (["jj", "describe", "-m", "{{ v }}"], "fix: all() of it | x"),
    (["jj", "log", "-r", "{{ v }}"], "main::@ | root()"),  # a revset slot
    (["jj", "new", "--revision={{ v }}"], "all()"),
    (["jj", "file", "show", "cwd-file:\"{{ v }}\""], "a (1) ~ b.md"),  # the config quoted it
], ids=repr)
def test_jj_what_still_runs(argv: list[str], value: str) -> None:
    out = compile_argv(argv).render({"v": value})
    assert value in " ".join(out)


@pytest.mark.parametrize("value", ["a\"|all()", "a\\\"b"])
def test_jj_a_value_may_not_leave_the_quotes(value: str) -> None:
    plan = compile_argv(["jj", "file", "show", "cwd-file:\"{{ v }}\""])
    with pytest.raises(ArgvRefused, match="Jujutsu fileset"):
        plan.render({"v": value})


@pytest.mark.parametrize("argv", [["svn", "cat", "{{ v }}"], ["svn", "log", "-l", "3", "{{ v }}"],
                                  ["svn", "export", "{{ v }}", "out"],
                                  ["timeout", "9", "svn", "info", "--", "{{ v }}"]],
                         ids=" ".join)
@pytest.mark.parametrize("value", ["svn+ssh://evil.example/repo", "http://evil.example/r",
                                   "file:///etc", "^/secret", "SVN+SSH://h/x"])
def test_svn_a_value_may_not_write_a_url(argv: list[str], value: str) -> None:
    with pytest.raises(ArgvRefused, match=r"svn|repository"):
        compile_argv(argv).render({"v": value})


def test_svn_allow_remote_lets_a_url_but_not_the_root() -> None:
    plan = compile_argv(["svn", "cat", "{{ v }}"], allow_remote=True)
    assert plan.render({"v": "https://svn.example/r/a.txt"})[-1] == "https://svn.example/r/a.txt"
    with pytest.raises(ArgvRefused, match="root"):
        plan.render({"v": "^/secret"})


@pytest.mark.parametrize(("argv", "value"), [
    (["svn", "commit", "-m", "{{ v }}"], "see https://x.example/1"),
    (["svn", "cat", "./{{ v }}"], "http://x"),
    (["svn", "cat", "{{ v }}"], "docs/a.md"),
    (["svn", "cat", "https://svn.example/{{ v }}"], "r/a.md"),
], ids=repr)
def test_svn_what_still_runs(argv: list[str], value: str) -> None:
    assert value in " ".join(compile_argv(argv).render({"v": value}))


_KINDS = st.sampled_from(["re", "glob", "path", "filepath", "relglob", "relpath", "relre",
                          "rootglob", "rootfilesin", "listfile", "listfile0", "set",
                          "include", "subinclude"])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(kind=_KINDS, rest=st.text(max_size=20).filter(lambda t: "\0" not in t),
       argv=st.sampled_from(HG_ARGVS))
def test_hg_every_kind_with_any_rest_is_refused(kind: str, rest: str, argv: list[str]) -> None:
    with pytest.raises(ArgvRefused, match="Mercurial pattern"):
        compile_argv(argv).render({"v": f"{kind}:{rest}"})


@settings(max_examples=150, deadline=None, derandomize=True)
@given(value=st.text(st.characters(blacklist_characters=":~|&()\"'\\,^\0",
                                   blacklist_categories=["Cs"]), min_size=1, max_size=30)
       .filter(lambda t: t[0] not in "-+@"),
       argv=st.sampled_from([*HG_ARGVS, *JJ_ARGVS[:-2]]))
def test_a_plain_name_always_runs(value: str, argv: list[str]) -> None:
    """A name without a kind's ':', fileset syntax or a URL is never refused here."""
    assert compile_argv(argv).render({"v": value})[-1] == value

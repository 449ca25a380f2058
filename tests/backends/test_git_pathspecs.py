"""git's pathspec magic chosen by a value: `[git, checkout, --, "{{ f }}"]` run in
`repo/docs` with `:/` discarded the changes of every file of the repository, and a rule
`path_under: repo/docs` allowed it (it judged the path `repo/docs/:/`). A value that writes
the magic where git reads a pathspec is refused; a commit message, a grep pattern, an
option's argument and a ':' the config writes before a name still run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolhost.backends.argv import ArgvRefused, compile_argv

ARGVS = [
    ["git", "checkout", "--", "{{ v }}"],
    ["git", "add", "{{ v }}"],
    ["git", "add", "-v", "{{ v }}"],
    ["git", "ls-files", "{{ v }}"],
    ["git", "grep", "-n", "TODO", "--", "{{ v }}"],
    ["git", "grep", "-e", "TODO", "{{ v }}"],
    ["git", "log", "--oneline", "{{ v }}"],
    ["git", "diff", "HEAD", "--", "{{ v }}"],
    ["git", "-C", "repo", "rm", "-r", "--cached", "--", "{{ v }}"],
    ["git", "commit", "-m", "fix", "--", "{{ v }}"],
    ["git", "restore", "--source", "HEAD", "{{ v }}"],
    ["timeout", "30", "git", "stash", "push", "--", "{{ v }}"],
    ["env", "GIT_PAGER=cat", "/usr/bin/git", "show", "HEAD", "--", "{{ v }}"],
    ["git", "checkout", "--", "x", "{{ v }}"],
    ["git", "checkout", "--", ":{{ v }}"],
    # a short option that is a flag of this subcommand (though another's takes a value)
    ["git", "add", "-f", "{{ v }}"],
    ["git", "add", "-n", "{{ v }}"],
    ["git", "add", "-A", "{{ v }}"],
    ["git", "ls-files", "-s", "{{ v }}"],
    ["git", "checkout", "-m", "{{ v }}"],
    ["git", "checkout", "-f", "HEAD", "{{ v }}"],
    ["git", "commit", "-a", "{{ v }}"],
]
MAGIC = [":/", ":(top)secret", ":(top,glob)**", ":!a.md", ":^a.md", ":(exclude)x",
         ":/secret/key.txt", ":(icase)README", ":(attr:x)y"]


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
@pytest.mark.parametrize("value", MAGIC)
def test_a_value_may_not_choose_pathspec_magic(argv: list[str], value: str) -> None:
    if argv[-1] == ":{{ v }}":
        value = value[1:]  # the config wrote the ':', the value the magic after it
    with pytest.raises(ArgvRefused, match="git pathspec magic"):
        compile_argv(argv).render({"v": value})


def test_a_list_item_too() -> None:
    plan = compile_argv(["git", "add", "--", "{{ files }}"])
    with pytest.raises(ArgvRefused, match="git pathspec magic"):
        plan.render({"files": ["a.md", ":/"]})


MUST_RUN = [
    (["git", "commit", "-m", "{{ v }}"], ":sparkles: add a feature"),
    (["git", "commit", "--message", "{{ v }}", "--", "a.md"], ":bug: fix"),
    (["git", "commit", "-F", "-", "-C", "{{ v }}"], ":/fix"),
    (["git", "tag", "-m", "{{ v }}", "v1"], ":tada: release"),
    (["git", "grep", "-n", "{{ v }}"], ":x"),
    (["git", "-C", "{{ v }}", "status"], ":x"),
    (["git", "grep", "{{ v }}"], ":param"),
    (["git", "grep", "-n", "{{ v }}", "--", "docs"], ":/"),
    (["git", "grep", "-e", "{{ v }}"], ":(top)"),
    (["git", "log", "--author", "{{ v }}"], ":x"),
    (["git", "log", "--grep={{ v }}"], ":/x"),
    (["git", "show", ":{{ v }}"], "docs/a.md"),  # the index's copy: the config's ':'
    (["git", "show", "HEAD:{{ v }}"], "docs/a.md"),
    (["git", "checkout", "--", "./{{ v }}"], ":/"),
    (["git", "--literal-pathspecs", "checkout", "--", "{{ v }}"], ":/"),
    (["git", "checkout", "--", "{{ v }}"], "docs/a:b.md"),
    (["ls", "--", "{{ v }}"], ":/"),  # not git
    (["echo", "git", "{{ v }}"], ":/"),
]


@pytest.mark.parametrize(("argv", "value"), MUST_RUN)
def test_what_still_runs(argv: list[str], value: str) -> None:
    assert value in "".join(compile_argv(argv).render({"v": value}))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_real_git_checkout_in_a_subdirectory(tmp_path: Path) -> None:
    """With real git: `:/` from docs/ would have restored a file outside docs/."""
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "a.md").write_text("doc\n")
    (repo / "top.txt").write_text("top\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "."],
                 ["-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "top.txt").write_text("work in progress\n")
    plan = compile_argv(["git", "checkout", "--", "{{ v }}"])
    with pytest.raises(ArgvRefused):
        plan.render({"v": ":/"})
    # what the refused argv would have done, run by hand: the change outside docs/ is lost
    subprocess.run(["git", "checkout", "--", ":/"], cwd=repo / "docs", env=env, check=True,
                   capture_output=True)
    assert (repo / "top.txt").read_text() == "top\n"

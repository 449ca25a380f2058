"""``bash.policy``: a program's name spelled with quotes is read as the name it is (``g''it``,
``m''ake``), and a local shell's ``-c`` string is read as the line itself is (round 21:
``bash -c 'bash s.sh'`` and ``bash -c 'make x'`` were allowed while ``bash s.sh`` and
``make x`` were not). The quick tests for a command that reads files (a patch, an archive, a
Makefile, what git brings) run each regex search only when the command holds a word its
pattern needs, with the answers of the searches alone (issue #18)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.permissions.gitrepo import evil_repo
from tests.permissions.later.test_archive import GUARDED, OPEN, decide
from toolhost.permissions.bash import policy as bashpolicy


@pytest.mark.parametrize("command,want", [
    ("bash -c 'bash s.sh'", "deny"), ("sh -c '. ./s.sh'", "deny"), ("bash -c 'make x'", "deny"),
    ("bash -lc 'make x'", "deny"), ("bash -o pipefail -c 'make x'", "deny"),
    ("env bash -c 'make x'", "deny"), ("echo 1 | xargs sh -c 'make x'", "deny"),
    ("sh -c 'sh -c \"make x\"'", "deny"),
    ("bash -c 'cat s.sh'", "allow"), ("bash -c 'make ok'", "allow"),
    ("bash -c 'echo \"$1\"' _ 'a $(b)'", "allow"),
])
def test_a_shell_s_command_string_reads_what_it_runs(tmp_path: Path, command: str,
                                                      want: str) -> None:
    (tmp_path / "s.sh").write_text("rm -rf ~/x\n")
    (tmp_path / "Makefile").write_text("x:\n\trm -rf ~/x\nok:\n\techo ok\n")
    assert decide(tmp_path, command, GUARDED) == want
    assert decide(tmp_path, command, OPEN) == "allow"



@pytest.mark.parametrize("command,want", [
    ("hyperfine 'make x'", "deny"), ("git rebase -x 'make x' main", "deny"),
    ("git rebase --exec='npm run x' main", "deny"), ("hyperfine 'npm run x'", "deny"),
    ("hyperfine 'bash s.sh'", "deny"), ("git bisect run sh s.sh", "deny"),
    ("entr -s 'make x'", "deny"), ("hyperfine ./s.sh", "deny"),
    ("hyperfine 'make ok'", "allow"), ("git rebase -x 'npm run ok' main", "allow"),
    ("git rebase -x 'ls' main", "allow"), ("hyperfine 'cat s.sh'", "allow"),
    ("hyperfine" + " 'make ok'" * 16, "allow"), ("hyperfine" + " 'make ok'" * 17, "deny"),
])
def test_a_command_line_a_program_is_handed_reads_what_it_runs(tmp_path: Path, command: str,
                                                                want: str) -> None:
    """Round 24: the text of ``git rebase -x 'make x'`` met the deny rules, but the Makefile,
    package scripts or script it runs were read only for a shell's ``-c`` string."""
    (tmp_path / "s.sh").write_text("rm -rf ~/x\n")
    (tmp_path / "Makefile").write_text("x:\n\trm -rf ~/x\nok:\n\techo ok\n")
    (tmp_path / "package.json").write_text('{"scripts": {"x": "rm -rf ~/x", "ok": "echo ok"}}')
    assert decide(tmp_path, command, GUARDED) == want
    assert decide(tmp_path, command, OPEN) == "allow"

@pytest.mark.parametrize("command", [
    "g''it checkout evil", "git che''ckout evil", "\"git\" checkout evil",
    "bash -c 'git checkout evil'", "m''ake x", "\"make\" x", "bash -c 'm\"\"ake x'",
    "kmk x", "mk x",  # (round 22: other makes without 'make' in their name)
])
def test_a_program_name_spelled_with_quotes_is_still_read(tmp_path: Path, command: str) -> None:
    """The quick look for ``git``/``make``/``tar``/``patch`` before anything is read took the
    line as written: ``g''it checkout evil`` (git runs) was never read, and allowed."""
    root = evil_repo(tmp_path / "r")
    (root / "Makefile").write_text("x:\n\trm -rf ~/x\n")
    assert decide(root, command, GUARDED) == "deny"


# the patterns as they were searched on every Bash decision before the quick tests
PATCHERS = re.compile(r"\b(?:apply|am|g?patch)\b")
UNPACKERS = re.compile(r"\b(?:g?tar|bsdtar|unzip)\b")
# (review20: the other makes too, read or refused: gnumake, remake, bmake, colormake, kmk, mk)
MAKES = re.compile(r"\b(?:g|gnu|re|b|p|bsd|f|pdp|k|d|n|color|s)?make(?:pp)?\b|\bk?mk\b")
GIT_BRINGS = re.compile(r"\b(?:checkout|switch|reset|merge|pull|rebase|cherry-pick|revert"
                        r"|stash|restore|read-tree|worktree|clone|submodule|bisect)\b")
# (round 23: a package's script runners, read by later.package)
RUNS_SCRIPTS = re.compile(r"\b(?:p?npm|yarn(?:pkg)?|bun)\b|(?<![\w-])--run\b")

WORDS = ["git", "am", "apply", "patch", "gpatch", "tar", "gtar", "bsdtar", "unzip", "checkout",
         "switch", "reset", "merge", "pull", "rebase", "cherry-pick", "revert", "stash",
         "restore", "read-tree", "worktree", "clone", "submodule", "bisect", "name", "star",
         "tarball", "unzipped", "npm", "ls", "Git", "AM", "x", "-", "_", "/", ".", "é", "1",
         "make", "colormake", "mk", "kmk", "bmake", "pnpm", "yarn", "yarnpkg", "bun", "bundle",
         "npmx", "--run", "node", "--runner", "x--run"]
GLUE = [" ", "", "-", "_", "/", " && ", "|", ";", "\n", "'", '"', "=", "\t", "é"]


def reference(command: str) -> bool:
    return bool(PATCHERS.search(command) or UNPACKERS.search(command) or MAKES.search(command)
                or ("git" in command and GIT_BRINGS.search(command))
                or RUNS_SCRIPTS.search(command))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(GLUE)), max_size=8))
def test_the_quick_tests_answer_as_the_searches(parts: list[tuple[str, str]]) -> None:
    command = "".join(word + glue for word, glue in parts)
    assert bashpolicy.reads_files(command) is reference(command)
    assert bashpolicy._patches(command) is bool(PATCHERS.search(command))
    assert bashpolicy._unpacks(command) is bool(UNPACKERS.search(command))
    assert bashpolicy._scripts(command) is bool(RUNS_SCRIPTS.search(command))
    assert bashpolicy._brings(command) is bool("git" in command
                                              and GIT_BRINGS.search(command))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdeghiklmnoprstuwz- _/\n|&;", max_size=40))
def test_any_text_of_their_letters(command: str) -> None:
    assert bashpolicy.reads_files(command) is reference(command)


def test_each_family_is_found() -> None:
    for command in ("git am < x.patch", "patch -p1 < d", "git apply d", "tar xf a.tar",
                    "bsdtar -xf a", "unzip a.zip", "git checkout HEAD~1 -- f",
                    "git cherry-pick abc", "git read-tree -u HEAD", "git -C r pull",
                    "npm run test", "yarn x", "node --run x"):
        assert bashpolicy.reads_files(command), command
    for command in ("ls -la", "node x.js", "git status", "git log --stat", "star x",
                    "name=1 tarball", "git diff HEAD"):
        assert not bashpolicy.reads_files(command), command

"""``bashpolicy``'s quick tests for a command that reads files (a patch, an archive, what git
brings): each regex search runs only when the command holds a word its pattern needs, and the
answers are those of the three searches alone (issue #18: two of them ran on every Bash
decision, twice)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.permissions import bashpolicy

# the patterns as they were searched on every Bash decision before the quick tests
PATCHERS = re.compile(r"\b(?:apply|am|g?patch)\b")
UNPACKERS = re.compile(r"\b(?:g?tar|bsdtar|unzip)\b")
GIT_BRINGS = re.compile(r"\b(?:checkout|switch|reset|merge|pull|rebase|cherry-pick|revert"
                        r"|stash|restore|read-tree|worktree|clone|submodule|bisect)\b")

WORDS = ["git", "am", "apply", "patch", "gpatch", "tar", "gtar", "bsdtar", "unzip", "checkout",
         "switch", "reset", "merge", "pull", "rebase", "cherry-pick", "revert", "stash",
         "restore", "read-tree", "worktree", "clone", "submodule", "bisect", "name", "star",
         "tarball", "unzipped", "npm", "ls", "Git", "AM", "x", "-", "_", "/", ".", "é", "1"]
GLUE = [" ", "", "-", "_", "/", " && ", "|", ";", "\n", "'", '"', "=", "\t", "é"]


def reference(command: str) -> bool:
    return bool(PATCHERS.search(command) or UNPACKERS.search(command)
                or ("git" in command and GIT_BRINGS.search(command)))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(GLUE)), max_size=8))
def test_the_quick_tests_answer_as_the_searches(parts: list[tuple[str, str]]) -> None:
    command = "".join(word + glue for word, glue in parts)
    assert bashpolicy.reads_files(command) is reference(command)
    assert bashpolicy._patches(command) is bool(PATCHERS.search(command))
    assert bashpolicy._unpacks(command) is bool(UNPACKERS.search(command))
    assert bashpolicy._brings(command) is bool("git" in command
                                              and GIT_BRINGS.search(command))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdeghiklmnoprstuwz- _/\n|&;", max_size=40))
def test_any_text_of_their_letters(command: str) -> None:
    assert bashpolicy.reads_files(command) is reference(command)


def test_each_family_is_found() -> None:
    for command in ("git am < x.patch", "patch -p1 < d", "git apply d", "tar xf a.tar",
                    "bsdtar -xf a", "unzip a.zip", "git checkout HEAD~1 -- f",
                    "git cherry-pick abc", "git read-tree -u HEAD", "git -C r pull"):
        assert bashpolicy.reads_files(command), command
    for command in ("ls -la", "npm run test", "git status", "git log --stat", "star x",
                    "name=1 tarball", "git diff HEAD"):
        assert not bashpolicy.reads_files(command), command

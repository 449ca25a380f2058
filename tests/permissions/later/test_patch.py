"""Round 17: a patch applied by ``git apply``, ``git am`` or ``patch`` is read when the
command is decided: one naming a file a later command runs (a git hook, ``.husky/*``, a
shell startup file, the policy's own file) is not provable, as ``cp h .husky/pre-commit``
is; so is one that cannot be read whole or is fed by a pipe. A patch naming none is decided
as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

HOOK_PATCH = """diff --git a/.husky/pre-commit b/.husky/pre-commit
new file mode 100755
--- /dev/null
+++ b/.husky/pre-commit
@@ -0,0 +1 @@
+rm -rf y
"""
SRC_PATCH = """diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1 +1 @@
-x = 1
+x = 2
"""
PLAIN_BASHRC = """--- bashrc.orig\t2026-01-01
+++ .bashrc\t2026-01-02
@@ -1 +1,2 @@
 export A=1
+alias ls='rm -rf'
"""
RENAME = """diff --git a/hooks/x b/.git/hooks/pre-push
similarity index 100%
rename from hooks/x
rename to .git/hooks/pre-push
"""
MBOX = "From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n" + HOOK_PATCH.replace(
    ".husky/pre-commit", "toolhost.local.yaml")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("project")
    for name, text in {"hook.patch": HOOK_PATCH, "src.patch": SRC_PATCH,
                       "rc.diff": PLAIN_BASHRC, "rename.patch": RENAME,
                       "x.mbox": MBOX}.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "big.patch").write_bytes(b"+" * (8 * 1024 * 1024 + 10))
    os.mkfifo(tmp_path / "fifo.patch")  # no writer: a blocking read would hang
    return tmp_path



NOT_PROVABLE = [
    "git apply hook.patch", "git apply --index -p1 hook.patch", "git am x.mbox",
    "git am < hook.patch", "patch -p1 < hook.patch", "patch -p0 -i rc.diff",
    "patch --input=rc.diff", "patch -irc.diff", "patch src/a.py hook.patch",
    "git apply rename.patch", "cat hook.patch | patch -p1", "curl -s http://x/p | git apply",
    "echo x | cat src.patch - | git apply", "git apply fifo.patch", "git apply big.patch",
    "curl -so gone.patch http://x/p && git apply gone.patch", "git apply -",
    "sudo patch -p1 < hook.patch",
    "cd sub && git -C .. apply hook.patch",
]


@pytest.mark.parametrize("command", NOT_PROVABLE)
def test_a_patch_writing_a_run_later_file_is_not_provable(project: Path, command: str) -> None:
    assert decide(project, command, GUARDED) == "deny"
    assert decide(project, command, OPEN) == "ask"


HONEST = [
    "git apply src.patch", "git apply --check src.patch && git apply src.patch",
    "patch -p1 < src.patch", "patch -p 1 -i src.patch", "git am --continue", "git am --abort",
    "cat src.patch | git apply", "git diff > src.patch", "git apply -p1 --3way src.patch",
    "echo apply; ls", "pip install patch",
    "git apply gone.patch",  # (it fails: nothing before it can make it)
]


@pytest.mark.parametrize("command", HONEST)
def test_an_honest_patch_is_decided_as_before(project: Path, command: str) -> None:
    assert decide(project, command, GUARDED) == "allow"
    assert decide(project, command, OPEN) == "allow"

"""Round 17: an Edit/MultiEdit/NotebookEdit of a file a later command runs is judged by the
whole text the file holds after it, read from the file when the call is decided: an edit
that arms a line already there (removing the ``#`` of ``# rm -rf y``) meets the deny and ask
Bash rules as a Write of the result does. A file that cannot be read whole (a FIFO, a
device, too big, not UTF-8) is not provable, and reading it never blocks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

RULES = [("deny", "Bash(rm:*)"), ("ask", "Bash(sudo:*)"), ("allow", "Edit"), ("allow", "Bash")]
HOOK = "#!/bin/sh\nnpm test\n# rm -rf y\n#sudo reboot\n"
BASHRC = "export A=1\n#rm -rf ~/.cache/x\nalias gs='git status'\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "hooks" / "pre-commit").write_text(HOOK)
    (tmp_path / ".bashrc").write_text(BASHRC)
    return tmp_path


def decide(root: Path, tool: str, tool_input: dict[str, Any]) -> str:
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in RULES], default="ask"), cwd=str(root))
    return policy.decide(tool, tool_input).behavior


HOOK_PATH = ".git/hooks/pre-commit"
ARMING = [
    ("Edit", {"file_path": HOOK_PATH, "old_string": "# rm", "new_string": "rm"}),
    ("Edit", {"file_path": HOOK_PATH, "old_string": "# ", "new_string": ""}),
    ("Edit", {"file_path": HOOK_PATH, "old_string": "#", "new_string": "", "replace_all": True}),
    ("Edit", {"file_path": HOOK_PATH, "old_string": "npm test\n#", "new_string": "npm test\n"}),
    ("Edit", {"file_path": HOOK_PATH, "old_string": "npm test\n# rm -rf y",  # a continuation
              "new_string": "npm test && \\\n rm -rf y"}),
    ("MultiEdit", {"file_path": ".bashrc", "edits": [
        {"old_string": "#rm", "new_string": "rm"}]}),
    ("MultiEdit", {"file_path": ".bashrc", "edits": [
        {"old_string": "export A=1", "new_string": "export A=2"},
        {"old_string": "#rm", "new_string": "rm"}]}),
    ("Edit", {"file_path": "{root}/.bashrc", "old_string": "#rm", "new_string": "rm"}),
    ("Edit", {"file_path": "$HOME/.bashrc", "old_string": "#rm", "new_string": "rm"}),
    # an edit that does not apply to the file's text cannot be judged
    ("Edit", {"file_path": HOOK_PATH, "old_string": "not there", "new_string": "true"}),
    ("Edit", {"file_path": HOOK_PATH, "old_string": "#", "new_string": 3}),
    ("MultiEdit", {"file_path": HOOK_PATH, "edits": [{"old_string": "x"}]}),
]


@pytest.mark.parametrize(("tool", "tool_input"), ARMING)
def test_an_edit_that_arms_a_line_is_denied(project: Path, monkeypatch: pytest.MonkeyPatch,
                                            tool: str, tool_input: dict[str, Any]) -> None:
    monkeypatch.setenv("HOME", str(project))
    tool_input = {k: v.replace("{root}", str(project)) if isinstance(v, str) else v
                  for k, v in tool_input.items()}
    assert decide(project, tool, tool_input) == "deny"


def test_arming_an_asked_line_asks(project: Path) -> None:
    edit = {"file_path": HOOK_PATH, "old_string": "#sudo", "new_string": "sudo"}
    assert decide(project, "Edit", edit) == "ask"


def test_crlf_and_curly_quotes_are_read_as_the_cli_reads_them(project: Path) -> None:
    (project / ".git" / "hooks" / "pre-push").write_bytes(b"npm test\r\n# rm -rf y\r\n")
    edit = {"file_path": ".git/hooks/pre-push", "old_string": "test\n# rm", "new_string": "x\nrm"}
    assert decide(project, "Edit", edit) == "deny"
    (project / ".zshrc").write_text("# alias x=\u2018rm -rf y\u2019\n")
    edit = {"file_path": ".zshrc", "old_string": "# alias x='rm", "new_string": "alias x='rm"}
    assert decide(project, "Edit", edit) == "deny"


def test_a_symlink_to_the_hook_is_read_where_it_leads(project: Path) -> None:
    (project / "h").symlink_to(project / ".git" / "hooks")
    edit = {"file_path": "h/pre-commit", "old_string": "# rm", "new_string": "rm"}
    assert decide(project, "Edit", edit) == "deny"


HONEST = [
    ("Edit", {"file_path": HOOK_PATH, "old_string": "npm test", "new_string": "npm run lint"}),
    ("Edit", {"file_path": ".bashrc", "old_string": "export A=1", "new_string": "export A=2"}),
    ("MultiEdit", {"file_path": ".bashrc", "edits": [
        {"old_string": "export A=1", "new_string": "export A=2"},
        {"old_string": "alias gs='git status'", "new_string": "alias gs='git status -s'"}]}),
    # a file that does not exist yet holds only the call's text
    ("Edit", {"file_path": ".git/hooks/post-merge", "old_string": "", "new_string": "npm ci"}),
    ("Edit", {"file_path": ".zshenv", "old_string": "x", "new_string": "export B=1"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), HONEST)
def test_an_honest_edit_is_decided_as_before(project: Path, tool: str,
                                             tool_input: dict[str, Any]) -> None:
    assert decide(project, tool, tool_input) == "allow"


def test_a_line_already_armed_is_judged_as_a_write_of_the_result(project: Path) -> None:
    (project / ".envrc").write_text("rm -rf y\nexport A=1\n")
    edit = {"file_path": ".envrc", "old_string": "A=1", "new_string": "A=2"}
    assert decide(project, "Edit", edit) == "deny"
    assert decide(project, "Write", {"file_path": ".envrc",
                                     "content": "rm -rf y\nexport A=2\n"}) == "deny"


def test_a_file_that_cannot_be_read_whole_is_not_provable(project: Path) -> None:
    hooks = project / ".git" / "hooks"
    os.mkfifo(hooks / "post-checkout")  # never opened for writing: a blocking read would hang
    (hooks / "pre-push").write_bytes(b"npm test\n" + b"#" * 20000 + b"\n")
    (hooks / "pre-rebase").write_bytes(b"npm test\n\xff\xfe\n")
    (hooks / "post-rewrite").mkdir()
    for name in ("post-checkout", "pre-push", "pre-rebase", "post-rewrite"):
        edit = {"file_path": f".git/hooks/{name}", "old_string": "npm test",
                "new_string": "npm run lint"}
        assert decide(project, "Edit", edit) == "deny", name


def test_notebook_edit_is_judged_with_the_file_text(project: Path) -> None:
    edit = {"notebook_path": ".bashrc", "cell_id": "a", "new_source": "export B=1"}
    (project / ".bashrc").write_text("rm -rf y\n")
    assert decide(project, "NotebookEdit", edit) == "deny"
    (project / ".bashrc").write_text("export A=1\n")
    assert decide(project, "NotebookEdit", edit) == "allow"


def test_no_file_is_read_without_a_deny_or_ask_bash_rule(project: Path) -> None:
    os.mkfifo(project / ".git" / "hooks" / "post-checkout")
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect="allow", tool="Edit")], default="ask"), cwd=str(project))
    edit = {"file_path": ".git/hooks/post-checkout", "old_string": "a", "new_string": "b"}
    assert policy.decide("Edit", edit).behavior == "allow"

"""Round 17: a here-document, a fed program or a run-later file's text longer than what is
looked at (1,024 lines or literals, 8,192 forms of a run-later file's lines) meets every deny
and ask Bash rule. Before, the 257th line of a document was never looked at: ``cat >
~/.bashrc <<EOF`` of 300 ``:`` lines and then ``rm -rf y`` was allowed under ``Bash(rm:*)``."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

RULES = [("deny", "Bash(rm:*)"), ("ask", "Bash(sudo:*)"), ("allow", "Edit"), ("allow", "Bash")]
GUARDED = compile_policy(PermissionsConfig(
    rules=[RuleConfig(effect=e, tool=t) for e, t in RULES], default="ask"))


def decide(tool: str, tool_input: dict[str, Any]) -> str:
    return GUARDED.decide(tool, tool_input).behavior


def doc(target: str, body: str) -> str:
    return f"cat > {target} <<'EOF'\n{body}EOF"


LONG_DODGES = [
    ("Bash", {"command": doc(".bashrc", ":\n" * 300 + "rm -rf y\n")}),
    ("Bash", {"command": doc(".git/hooks/pre-commit", "echo hi\n" * 300 + "rm -rf y\n")}),
    ("Bash", {"command": doc(".git/hooks/pre-commit", "echo hi\n" * 1100 + "rm -rf y\n")}),
    ("Bash", {"command": "python3 <<'EOF'\n" + 'print("x")\n' * 300
              + 'import os; os.system("rm -rf y")\nEOF'}),
    ("Bash", {"command": "python3 <<'EOF'\n" + 'print("x")\n' * 1100
              + 'import os; os.system("rm -rf y")\nEOF'}),
    ("Write", {"file_path": ".git/hooks/pre-commit", "content": ":\n" * 300 + "rm -rf y\n"}),
    ("Write", {"file_path": ".bashrc", "content": "echo hi\n" * 1100 + "rm -rf y\n"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), LONG_DODGES)
def test_a_long_text_is_judged_to_its_end(tool: str, tool_input: dict[str, Any]) -> None:
    assert decide(tool, tool_input) == "deny"


def test_the_sudo_ask_sees_past_the_first_lines() -> None:
    body = ":\n" * 300 + "sudo reboot\n"
    assert decide("Bash", {"command": doc(".bashrc", body)}) == "ask"
    assert decide("Write", {"file_path": ".bashrc", "content": body}) == "ask"


HONEST = [
    ("Bash", {"command": doc(".bashrc", 'alias gs="git status"\nexport A=1\n' * 150)}),
    ("Write", {"file_path": ".bashrc", "content": 'alias gs="git status"\nexport A=1\n' * 150}),
    ("Bash", {"command": "python3 <<'EOF'\n" + 'print("x")\n' * 300 + "EOF"}),
    ("Bash", {"command": doc("notes.txt", "rm -rf y\n" * 2000)}),  # not a run-later file
]


@pytest.mark.parametrize(("tool", "tool_input"), HONEST)
def test_long_honest_text_is_decided_as_before(tool: str, tool_input: dict[str, Any]) -> None:
    assert decide(tool, tool_input) == "allow"


QUOTE_HIDES = [
    "x='\n#' ; rm -rf y ; '\n'\n",
    'x="\n#" ; rm -rf y ; "\n"\n',
    "x='\n#' ; rm -rf y ; '\n'\n'\n",  # the script does not parse: bash still runs the rm
]


@pytest.mark.parametrize("body", QUOTE_HIDES)
def test_a_quote_across_a_comment_line_hides_no_command(body: str) -> None:
    assert decide("Bash", {"command": doc(".git/hooks/pre-commit", body)}) == "deny"
    assert decide("Write", {"file_path": ".git/hooks/pre-commit", "content": body}) == "deny"


@pytest.mark.parametrize("path", ["/etc/skel/.bashrc", "/etc/skel/.profile"])
def test_a_real_startup_file_is_decided_as_before(path: str) -> None:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        pytest.skip(f"{path} is not on this system")
    assert decide("Bash", {"command": doc("~/.bashrc", text)}) == "allow"
    assert decide("Write", {"file_path": "~/.bashrc", "content": text}) == "allow"
    assert decide("Write", {"file_path": "~/.gitconfig",
                            "content": "[alias]\n\tlg = log --format='%h'\n# don't\n"}) == "allow"

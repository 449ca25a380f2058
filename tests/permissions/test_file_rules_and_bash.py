"""Round 9: Edit/Read rules decide the built-in file tools, not what a Bash command reads or
writes (Claude Code's documented semantics, said in docs/permissions.md); no Bash allow rule
allows a redirection to a file, whatever the grouping (``{ ...; }``, ``( ... )``, ``time``,
``!``, loops) or operator (``>|``, ``&>``, ``<>``, ``{fd}>``)."""

from __future__ import annotations

import pytest

from tests.permissions.bash.test_command_strings import policy


@pytest.mark.parametrize(("rules", "default", "command", "want"), [
    # Edit/Read rules are for the file tools, not for Bash (Claude Code's documented
    # semantics; docs/permissions.md says so): Bash rules decide these
    ([("deny", "Edit(//etc/**)")], "allow", "echo x > /etc/passwd", "allow"),
    ([("deny", "Edit(//etc/**)")], "allow", "tee /etc/passwd", "allow"),
    ([("deny", "Edit(//etc/**)")], "ask", "echo x > /etc/passwd", "ask"),
    # ... but no Bash allow rule allows a redirection to a file
    ([("deny", "Edit(//etc/**)"), ("allow", "Bash(echo:*)")], "deny", "echo x > /etc/passwd",
     "deny"),
    ([("allow", "Bash(echo:*)")], "deny", "echo x >| /tmp/f", "deny"),
    ([("allow", "Bash(echo:*)")], "deny", "echo x &> /tmp/f", "deny"),
    ([("allow", "Bash(cat:*)")], "deny", "cat <> /tmp/f", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "{ ls; } > /tmp/x", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "( ls ) 2>/tmp/x", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "time ls > /tmp/x", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "! ls >> ~/.bashrc", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "for i in a; do ls; done > /tmp/x", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "ls {fd}>/tmp/x", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "ls > /dev//null", "deny"),
    ([("allow", "Bash(ls:*)")], "deny", "ls &>/dev/null", "allow"),
    ([("allow", "Bash(ls:*)")], "deny", "time ls", "allow"),
    ([("allow", "Bash(ls:*)")], "deny", "! ls", "allow"),
    ([("allow", "Bash(ls:*)")], "deny", "{ ls; }", "allow"),
])
def test_file_rules_are_not_bash_rules(rules: list[tuple[str, str]], default: str,
                                       command: str, want: str) -> None:
    assert policy(rules, default).decide("Bash", {"command": command}).behavior == want

"""``permissions test``: a case that passes without testing what it names gets a located note.
A tool name that is no tool (``mcp__db__qeury``, ``bash``) gets what any unknown name gets (the
default), and an input a rule's ``expr`` cannot read (a misspelled argument) makes that rule
deny every such call: both passed a deny case with a plain ``ok`` line.
"""

from __future__ import annotations

from pathlib import Path

from tests.inproc import run_cli

CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      query:
        command: [echo]
        params: {sql: {type: string}}
  ext:
    external: {type: stdio, command: some-mcp}
permissions:
  default: deny
  allow:
    - mcp__db__query
    - mcp__ext
    - Bash(ls:*)
  deny:
    - tool: mcp__db__query
      expr: "args.sql.lower().startswith('drop')"
  ask:
    - tool: mcp__ext__run
      expr: "args.cmd.startswith('rm')"
"""

# (name, tool, input, expect, note expected: a word of it, or "" for none)
CASES = [
    ("typo", "mcp__db__qeury", '{sql: "drop t"}', "deny", "did you mean mcp__db__query"),
    ("server typo", "mcp__bd__query", '{sql: "drop t"}', "deny", "not a tool of this config"),
    ("lower-case builtin", "bash", '{command: "rm -rf /"}', "deny", "did you mean Bash"),
    ("lower-case read", "read", '{file_path: "/etc/shadow"}', "deny", "not a tool of this"),
    ("a long unknown name", "B" * 100_000, "{}", "deny", "not a tool of this"),
    ("argument typo", "mcp__db__query", '{sqll: "drop t"}', "deny", "could not be evaluated"),
    ("argument missing", "mcp__db__query", "{}", "deny", "could not be evaluated"),
    ("argument of another type", "mcp__db__query", "{sql: 5}", "deny", "could not be evaluated"),
    ("ask rule argument typo", "mcp__ext__run", '{cmnd: "rm x"}', "deny",
     "could not be evaluated"),
    # not vacuous: no note
    ("deny", "mcp__db__query", '{sql: "DROP t"}', "deny", ""),
    ("allow", "mcp__db__query", '{sql: "select 1"}', "allow", ""),
    ("external tool", "mcp__ext__list", "{}", "allow", ""),
    ("ask", "mcp__ext__run", '{cmd: "rm x"}', "ask", ""),
    ("builtin", "Bash", '{command: "ls -l"}', "allow", ""),
    ("builtin default", "Read", '{file_path: "/etc/shadow"}', "deny", ""),
]


def test_vacuous_cases_get_a_located_note(tmp_path: Path) -> None:
    (tmp_path / "toolhost.yaml").write_text(CONFIG)
    lines = ["config: toolhost.yaml", "cases:"]
    for name, tool, tool_input, expect, _ in CASES:
        lines += [f"  - name: {name}", f"    tool: {tool}", f"    input: {tool_input}",
                  f"    expect: {expect}"]
    (tmp_path / "cases.yaml").write_text("\n".join(lines) + "\n")
    done = run_cli(["permissions", "test", "-v", str(tmp_path / "cases.yaml")],
                   env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr  # notes: the cases still pass
    notes = [line for line in done.stderr.splitlines() if ": note: " in line]
    for k, (name, _, _, _, word) in enumerate(CASES):
        where = f"{tmp_path / 'cases.yaml'}:{3 + 4 * k}:5: note: {name}: "
        mine = [n for n in notes if n.startswith(where)]
        if word:
            assert mine and word in mine[0], (name, notes)
        else:
            assert not mine, mine
    assert "which could not be evaluated (UndefinedError" in done.stdout  # the ok line says so
    assert max(map(len, done.stderr.splitlines())) < 1_000  # a name is cut, not a line

"""``permissions test`` and ``permissions lint`` print their counts with thousands
separators, as ``validate`` does ("12000 case(s): 12000 passed" read as one number)."""

from __future__ import annotations

from pathlib import Path

from tests.inproc import run_cli

CONFIG = "toolhost: 1\nservers:\n  a:\n    tools: {t: {command: [echo, a]}}\n"


def test_a_thousand_cases_are_counted_with_separators(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CONFIG + "permissions: {default: deny}\n")
    case = "  - {tool: Bash, input: {command: ls}, expect: %s}\n"
    (tmp_path / "cases.yaml").write_text("config: c.yaml\ncases:\n" + case % "deny" * 1_000
                                         + case % "allow" * 234)
    done = run_cli(["permissions", "test", str(tmp_path / "cases.yaml")], cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "FAIL: 1,234 case(s): 1,000 passed, 234 failed"


def test_lint_counts_a_thousand_rules_with_separators(tmp_path: Path) -> None:
    rules = "".join(f"    - Bash(cmd{i} *)\n" for i in range(1_001))
    (tmp_path / "c.yaml").write_text(CONFIG + "permissions:\n  allow:\n" + rules
                                     + "    - Bash(cmd0 *)\n")
    done = run_cli(["permissions", "lint", str(tmp_path / "c.yaml")], cwd=tmp_path)
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith("finding(s) in 1,002 rule(s)"), done.stderr

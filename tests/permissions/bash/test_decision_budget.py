"""One Bash decision has one budget of work, shared by every check of the line.

Each check was bounded on its own, but a line multiplied them: forty-five segments of 250
nested ``env A=1`` took 10 s (each check, and each deny rule, made every segment's forms
again and went through them), a line of thousands of ``make`` or ``patch < x.diff`` commands
took minutes (each looked at the whole line, or read every file the line redirects). Now a
command's forms are made once per decision, the line-wide facts a check asks of each command
are worked out once, and the words the checks copy and scan count against one budget: past
it the line is not provable, with a one-line reason. The work is counted, not timed.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.bash import forms
from toolhost.permissions.policy import CompiledPolicy

NESTED = "env A=1 " * 250 + "echo"
TOO_LONG = "too long or too nested to check"


def _policy(rules: list[tuple[str, str]], cwd: Path, default: str = "ask") -> CompiledPolicy:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default), cwd=str(cwd))


def _guarded(cwd: Path, more: int = 0) -> CompiledPolicy:
    extra = [("deny", f"Bash(rm{i}:*)") for i in range(more)]
    return _policy([("deny", "Bash(rm:*)"), *extra, ("allow", "Bash")], cwd)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many words the forms of the decision's commands were made of, in all."""
    words = [0]
    real = forms._command_forms

    def counting(w: tuple[str, ...], depth: int, options: bool,
                 budget: list[int]) -> list[tuple[str, ...]]:
        words[0] += len(w)
        return real(w, depth, options, budget)

    monkeypatch.setattr(forms, "_command_forms", counting)
    forms._cached_forms.cache_clear()
    forms.fed_joined.cache_clear()
    return words


def test_a_long_nested_line_is_refused_with_one_reason(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    words = _counting(monkeypatch)
    line = "; ".join([NESTED] * 45)
    decision = _guarded(tmp_path, more=10).decide("Bash", {"command": line})
    assert decision.behavior == "deny"
    assert TOO_LONG in decision.message and "\n" not in decision.message
    # (old code: every check and every rule made each segment's forms again)
    assert words[0] < 50 * len(NESTED.split())


def test_a_commands_forms_are_made_once_per_decision(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    words = _counting(monkeypatch)
    line = "env A=1 " * 200 + "echo"  # (over the cached size: made for each asker before)
    assert _guarded(tmp_path, more=10).decide("Bash", {"command": line}).behavior == "allow"
    assert words[0] <= 3 * len(line.split())


@pytest.mark.parametrize(("unit", "count"), [("make; ", 1500), ("npm run x; ", 1200),
                                              ("patch -p1 < x.diff; ", 300),
                                              ("bash x.sh; ", 1500), ("ssh h ls; ", 2000)])
def test_each_command_looking_at_the_whole_line_is_bounded(
        unit: str, count: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "Makefile").write_text("all:\n\techo hi\n")
    (tmp_path / "package.json").write_text('{"scripts": {"x": "echo hi"}}')
    (tmp_path / "x.diff").write_text("--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n")
    (tmp_path / "x.sh").write_text("echo hi\n")
    looked = [0]

    def counting_any(items: Iterable[object]) -> bool:  # (the checks scan with any())
        for item in items:
            looked[0] += 1
            if item:
                return True
        return False

    policy = _guarded(tmp_path)
    monkeypatch.setattr(builtins, "any", counting_any)
    decision = policy.decide("Bash", {"command": unit * count})
    monkeypatch.undo()
    assert decision.behavior == "allow" or decision.message.startswith("Denied: ")
    # (old code: each command looked at every word of the line: count squared)
    assert looked[0] < 3_000_000


def test_the_budget_is_per_decision(tmp_path: Path) -> None:
    policy = _guarded(tmp_path)
    assert TOO_LONG in policy.decide("Bash", {"command": "; ".join([NESTED] * 45)}).message
    assert policy.decide("Bash", {"command": "git status && ls -la"}).behavior == "allow"
    assert policy.decide("Bash", {"command": NESTED}).behavior == "allow"


def test_a_spent_line_is_decided_the_same_every_time(tmp_path: Path) -> None:
    policy = _guarded(tmp_path)
    line = "; ".join([NESTED] * 20 + ["ls"] * 50)
    first = policy.decide("Bash", {"command": line})
    assert [policy.decide("Bash", {"command": line}) for _ in range(2)] == [first, first]


@pytest.mark.parametrize(("rules", "default", "behavior"), [
    ([("ask", "Bash(rm:*)"), ("allow", "Bash")], "allow", "ask"),
    ([("allow", "Bash(echo:*)"), ("allow", "Bash(env:*)")], "ask", "ask"),
    ([("allow", "Bash(echo:*)"), ("allow", "Bash(env:*)")], "deny", "deny"),
    ([("allow", "Bash")], "allow", "ask"),
])
def test_a_spent_line_is_never_allowed(rules: list[tuple[str, str]], default: str,
                                       behavior: str, tmp_path: Path) -> None:
    decision = _policy(rules, tmp_path, default).decide(
        "Bash", {"command": "; ".join([NESTED] * 45)})
    assert decision.behavior == behavior
    assert TOO_LONG in decision.message or "cannot be checked" in decision.message


@pytest.mark.parametrize("line", [
    "sudo apt-get install -y " + " ".join(f"pkg{i}" for i in range(300)),
    " && ".join(["git status", "git diff --stat", "ls -la", "make", "npm run x"] * 40),
    "; ".join(["cd sub", "ls", "cd .."] * 200),
])
def test_long_harmless_lines_stay_provable(line: str, tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n\techo hi\n")
    (tmp_path / "package.json").write_text('{"scripts": {"x": "echo hi"}}')
    (tmp_path / "sub").mkdir()
    assert _guarded(tmp_path).decide("Bash", {"command": line}).behavior == "allow"


def test_the_bench_runs_and_prints_its_ratios() -> None:
    import subprocess
    import sys

    bench = Path(__file__).parents[3] / "bench" / "bench_bash_decision_bound.py"
    out = subprocess.run([sys.executable, str(bench), "1"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count(" the short line") == 6, out.stdout

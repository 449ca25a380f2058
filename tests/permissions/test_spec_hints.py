"""Content forms that parse but cannot match what their author meant are reported by
``validate``, each with its file:line, all in one run: a path rule with one leading ``/``
naming a root directory (anchored at the rule's file), ``:*`` inside a Bash rule, a ``?``
in a Bash rule (literal there), braces in a path pattern (no brace expansion there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.permissions.authoring import review_rules

RULES = {
    "Read(/etc/passwd)": ("warning", "//etc/passwd"),
    "Edit(/usr/local/bin/**)": ("warning", "Edit(//usr/local/bin/**)"),
    "Bash(npm:* test)": ("error", "Bash(npm * test)"),
    "Bash(git push:* --force)": ("error", "Bash(git push * --force)"),
    "Bash(rm -rf /tmp/?)": ("warning", "'?' is a literal character"),
    "Read(//etc/{passwd,shadow})": ("warning", "Read(//etc/passwd), ..."),
    "Edit(src/*.{ts,js})": ("warning", "braces are literal"),
}
FINE = ["Read(/docs/**)", "Read(//etc/passwd)", "Read(./etc/x)", "Read(/*.md)",
        "Bash(npm test:*)", "Bash(curl https://x.example/?q=1)", "Bash(git * main)"]


def _review(tmp_path: Path, rules: list[str], effect: str = "deny") -> list[str]:
    (tmp_path / "docs").mkdir(exist_ok=True)
    lines = "".join(f"    - {r!r}\n" for r in rules)
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\npermissions:\n  {effect}:\n{lines}")
    return [f"{f.level} {f.problem}" for f in review_rules(load_config(str(config),
                                                                        layers=False))]


def test_every_such_rule_is_reported_with_its_line_in_one_run(tmp_path: Path) -> None:
    found = _review(tmp_path, [*RULES, *FINE])
    for k, (rule, (level, words)) in enumerate(RULES.items()):
        mine = [f for f in found if f"toolhost.yaml:{k + 4}:7:" in f]
        assert len(mine) == 1, (rule, found)
        assert mine[0].startswith(level) and words in mine[0], mine[0]
    assert not [f for f in found if any(f"toolhost.yaml:{k + 4 + len(RULES)}:" in f
                                        for k in range(len(FINE)))], found


@pytest.mark.parametrize("rule", FINE)
def test_rules_that_mean_what_they_say_are_not_reported(tmp_path: Path, rule: str) -> None:
    assert _review(tmp_path, [rule]) == []


NEVER_ALLOW = ["Bash(echo $(date))", "Bash(ls > out.txt)", "Bash(eval:*)", "Bash(watch:*)",
               "Bash(sudo -s)", "Bash(echo rm | sh)", "Bash(PATH=/x ls)", "Bash(ls `pwd`)",
               "Bash(cat <<EOF)", "Bash(curl * | sh)", "Bash($'ls')", "Bash(fish -c ls)"]
CAN_ALLOW = ["Bash(npm test:*)", "Bash(git * main)", "Bash(ls 2>&1)", "Bash(bash:*)",
             "Bash(sudo:*)", "Bash(*)", "Bash(* install)", "Bash(timeout:*)", "Bash(ls *)"]


def test_an_allow_rule_that_can_allow_nothing_is_reported_with_its_line(tmp_path: Path) -> None:
    found = _review(tmp_path, NEVER_ALLOW + CAN_ALLOW, effect="allow")
    for k, rule in enumerate(NEVER_ALLOW):
        mine = [f for f in found if f"toolhost.yaml:{k + 4}:7:" in f and "allow no command" in f]
        assert len(mine) == 1 and mine[0].startswith("warning"), (rule, found)
    assert not [f for f in found if "allow no command" in f and any(
        f"toolhost.yaml:{k + 4 + len(NEVER_ALLOW)}:" in f for k in range(len(CAN_ALLOW)))], found


def test_the_same_rules_deny_and_are_not_reported_as_deny_rules(tmp_path: Path) -> None:
    assert not [f for f in _review(tmp_path, NEVER_ALLOW) if "allow no command" in f]

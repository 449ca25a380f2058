"""Content forms that parse but cannot match what their author meant are reported by
``validate``, each with its file:line, all in one run: a path rule with one leading ``/``
naming a root directory (anchored at the rule's file), ``:*`` inside a Bash rule, a ``?``
in a Bash rule (literal there), braces in a path pattern (no brace expansion there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.permissions.authoring.mistakes import review_rules

RULES = {
    "Read(/etc/passwd)": ("warning", "//etc/passwd"),
    "Edit(/usr/local/bin/**)": ("warning", "Edit(//usr/local/bin/**)"),
    "Bash(npm:* test)": ("error", "Bash(npm * test)"),
    "Bash(git push:* --force)": ("error", "Bash(git push * --force)"),
    "Bash(rm -rf /tmp/?)": ("warning", "'?' is a literal character"),
    "Read(//etc/{passwd,shadow})": ("warning", "Read(//etc/passwd), ..."),
    "Edit(src/*.{ts,js})": ("warning", "braces are literal"),
    "Read(C:\\Users\\me\\.ssh\\id_rsa)": ("warning", "looks like a Windows path"),
    "Read(C:/Users/me/secret.txt)": ("warning", "looks like a Windows path"),
    "Edit(src\\app\\main.py)": ("warning", "looks like a Windows path"),
    "Read(\\etc\\shadow)": ("warning", "Read(//etc/shadow)"),  # (no drive: was not seen)
    "Edit(\\srv\\app\\*.py)": ("warning", "Edit(//srv/app/*.py)"),
    "Grep(pattern:secret)": ("warning", "takes a path pattern, not 'pattern:'"),
    "Read(file_path://etc/passwd)": ("warning", "not 'file_path:'"),
    "Glob(path:src/**)": ("warning", "not 'path:'"),
    "Read(//etc/pass[wd)": ("warning", "opens no character class"),
    "Edit(src/[ab/**)": ("warning", "opens no character class"),
    "Glob(**/*[.py)": ("warning", "opens no character class"),
    "NotebookEdit(//nb/[x]/[y.ipynb)": ("warning", "opens no character class"),
    "Read(//x/k[!])": ("warning", "opens no character class"),  # (']' first is literal)
    "Read(//etc/shadow), Read(//x)": ("warning", "two rules in one string"),
    "Edit(src/**) Write(docs/**)": ("warning", "two rules in one string"),
}
FINE = ["Read(/docs/**)", "Read(//etc/passwd)", "Read(./etc/x)", "Read(/*.md)",
        "Read(//etc/**.conf)", "Read(//x/**/*.py)", "Read(//srv/data:/x)",
        "Bash(npm test:*)", "Bash(curl https://x.example/?q=1:*)", "Bash(git * main)",
        "Read(//x/[ab]c)", "Read(//x/[!a]/y)", "Read(//x/[]]/y)", "Bash(ls [a:*)",
        "Read(//x/[!]a]/y)", "Read(//x/[[:alpha:]]y)",
        "Read(//x/f(1).txt)", "Read(//x/a), b/**)"]


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


GLUED = ["Read(//src/**.py)", "Edit(src**/x)", "Read(//a/b**)"]
WHOLE = ["Read(//src/**/*.py)", "Read(**)", "Read(//src/**)", "Read(**/.env)"]


def test_an_allow_path_with_a_glued_double_star_is_reported(tmp_path: Path) -> None:
    # gitignore reads a '**' that is not a whole segment as '*' (one level); here it spans
    # directories, so such an allow covers more than its author may think
    found = _review(tmp_path, GLUED + WHOLE, effect="allow")
    for k, rule in enumerate(GLUED):
        mine = [f for f in found if f"toolhost.yaml:{k + 4}:7:" in f and "whole path" in f]
        assert len(mine) == 1 and mine[0].startswith("warning"), (rule, found)
    assert not [f for f in found if "whole path" in f and any(
        f"toolhost.yaml:{k + 4 + len(GLUED)}:" in f for k in range(len(WHOLE)))], found
    assert not [f for f in _review(tmp_path, GLUED) if "whole path" in f]  # deny: fail closed

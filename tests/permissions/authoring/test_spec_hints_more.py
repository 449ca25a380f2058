"""Round 9: more rules that parse but name nothing their author meant are reported by
``validate``, each at its file:line, all in one run: a sub-agent type that is no name
(``Task(explore agent)``, ``Task(Explore*)``, ``Agent(Explore, Plan)``), a Windows variable,
a ``~`` past the start, a URL or quotes or a list in a path rule, a regular expression or a
``|`` meant as "or" in a Bash rule; rules that mean what they say are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.authoring.test_spec_hints import _review

RULES = {
    "Task(explore agent)": "one name of letters",
    "Agent(general purpose)": "one name of letters",
    "Task(subagent_type:Explore)": "write Task(Explore)",
    "Agent(subagent_type: Plan)": "write Agent(Plan)",
    "Agent(Explore, Plan)": "one rule per sub-agent",
    "Task(Explore|Plan)": "one rule per sub-agent",
    "Task(Explore*)": "wildcards are literal",
    "Task(*)": "wildcards are literal",
    "Agent('Explore')": "one name of letters",
    "Read(%USERPROFILE%/.ssh/**)": "Windows variable",
    "Edit(%HOME%/.bashrc)": "Windows variable",
    "Read(//~/.ssh/**)": "only at the start",
    "Read(/~/.aws/**)": "only at the start",
    "Read(./~/.ssh/id_rsa)": "only at the start",
    "Edit(src/~/x)": "only at the start",
    "Read(file:///etc/passwd)": "write Read(//etc/passwd)",
    "Read(https://example.com/x)": "WebFetch(domain:",
    "Read(\"//etc/passwd\")": "quotes are literal",
    "Edit('~/.bashrc')": "quotes are literal",
    "Read(//etc/passwd, //etc/shadow)": "list of paths",
    "Read(~/.ssh/**,~/.aws/**)": "list of paths",
    "Edit(//etc/** | //usr/**)": "list of paths",
    "Bash(^rm.*)": "regular expression",
    "Bash(regex:^rm)": "regular expression",
    "Bash(/rm -rf/)": "regular expression",
    "Bash(rm\\s+-rf)": "regular expression",
    "Bash(git push.+)": "regular expression",
    "Bash(curl .*$)": "regular expression",
    "Bash(git push --force|-f)": "is a pipe, not 'or'",
    "Bash(rm -r|-rf /)": "is a pipe, not 'or'",
    "Bash(rm -rf:*)": "option spelling '-rf'",
    "Bash(git push --force:*)": "option spelling '--force'",
    "Bash(chmod -R 777 *)": "option spelling '-R'",
    "Bash(rm)": "with no arguments",
    "Bash(shutdown)": "write Bash(shutdown:*)",
    "Agent(subagent:Explore)": "write Agent(Explore)",
    "Task(type: Plan)": "write Task(Plan)",
    "Read(%LOCALAPPDATA%/x/**)": "Windows variable",
    "Edit(//home/me/~/.bashrc)": "only at the start",
    "Read(ssh://host/etc/passwd)": "is a URL",
    "Read(HTTP://x.example/y)": "is a URL",
    "Edit('/etc/hosts')": "quotes are literal",
    "Read(./.env, ./.env.local)": "list of paths",
    "Bash(.*rm.*)": "regular expression",
    "Bash(\\brm\\b)": "regular expression",
    "Bash(./deploy.sh)": "with no arguments",
    "Bash(terraform destroy -auto-approve:*)": "option spelling '-auto-approve'",
    "Read(//etc/passwd))": "stray parenthesis",
    "Read((//etc/passwd))": "stray parenthesis",
    "Read(//etc/passwd:*)": "prefix marker",
    "Edit(src/**:*)": "prefix marker",
}
FINE = ["Task(Explore)", "Agent(general-purpose)", "Task(my-plugin:reviewer)", "Task(x.y_z)",
        "Read(~/.ssh/**)", "Read(//x/~backup/y)", "Read(//srv/data:/x)", "Read(//x/f(1).txt)",
        "Read(//x/a,b.txt)", "Bash(ls foo.*)", "Bash(rm *.*)", "Bash(echo $HOME:*)",
        "Bash(ls | grep -v x)", "Bash(grep -E 'a|-b' f:*)", "Bash(curl https://x/?q=1:*)",
        "Bash(git log --format=%H:*)", "Read(//etc/ssh/*_key)", "Edit(src/**)"]


EXACT = ["Bash(git push origin main)", "Bash(rm -rf /)", "Bash(curl https://x/?q=1)",
         "Bash(echo $HOME)"]


@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_an_exact_deny_or_ask_command_is_reported_and_an_allow_is_not(
        tmp_path: Path, effect: str) -> None:
    """``deny: Bash(git push origin main)`` does not deny ``git push origin main -f``: it
    matches that exact command only (Claude Code's semantics); an allow of an exact command is
    what it says."""
    found = _review(tmp_path, EXACT, effect=effect)
    for k in range(len(EXACT)):
        mine = [f for f in found if f"toolhost.yaml:{k + 4}:7:" in f]
        assert any("matches only that exact command" in f and ":*)" in f for f in mine), mine
    assert not [f for f in _review(tmp_path, EXACT, effect="allow") if "exact command" in f]


def test_every_such_rule_is_reported_with_its_line_in_one_run(tmp_path: Path) -> None:
    found = _review(tmp_path, [*RULES, *FINE])
    for k, (rule, words) in enumerate(RULES.items()):
        mine = [f for f in found if f"toolhost.yaml:{k + 4}:7:" in f]
        assert any(words in f for f in mine), (rule, mine)
    assert not [f for f in found if "shadowed:" not in f and any(
        f"toolhost.yaml:{k + 4 + len(RULES)}:" in f for k in range(len(FINE)))], found


def test_a_trailing_backslash_is_named() -> None:
    from toolhost.permissions.authoring.spec_hints_more import path_hints
    assert any("escapes nothing" in h[1] for h in path_hints("Read", "//etc/passwd\\"))
    assert not path_hints("Read", "//etc/pass\\\\")


def test_an_allow_may_name_one_spelling_or_a_bare_command(tmp_path: Path) -> None:
    found = _review(tmp_path, ["Bash(rm -rf:*)", "Bash(ls)", "Bash(git push --dry-run)"],
                    effect="allow")
    assert not [f for f in found if "spelling" in f or "no arguments" in f], found

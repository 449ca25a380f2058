"""Round 16: a Bash word whose globs or braces may expand to a file a later command runs
(``cp x ~/.bash?c``, ``echo ... > ~/.{bashrc,zshrc}``) names one (permissions.laterglob)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


DENY = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")], "allow")
ALLOW_ALL = policy([("allow", "Bash")], "ask")

UNSEEN = [
    "cp x ~/.bash?c", "cp x ~/.bash[r]c", "cp x ~/.bash*", "cp x ~/.*", "cp x ~/.[a-z]*rc",
    "cp x ~/.{bashrc,zshrc}", "cp x ~/{.bashrc,y}", "cp x ~/.{bash,zsh}rc",
    "cp x ~/.bash{rc,_profile}", "cp x ~/.{a,{b,bashrc}}", "cp x ~/.bash{q..s}c",
    "cp x ~/.gitconfi[g]", "cp x ~/.config/g?t/config", "cp x ~/.config/gh/*.yml",
    "cp x .g*/hooks/pre-commit", "cp x /tmp/h/pre-*", "cp x ~/.ss?/config",
    "cp x .git/{config,y}", "cp x /etc/cron.*/x", "echo hi | tee ~/.bash?c",
    "mv x ~/.PROFIL?", "cp x " + "{a,b}" * 20,  # more expansions than are read: fail closed
]


@pytest.mark.parametrize("command", UNSEEN)
def test_a_glob_or_brace_naming_a_run_later_file_is_not_provable(command: str) -> None:
    assert ALLOW_ALL.decide("Bash", {"command": command}).behavior == "ask"
    decision = DENY.decide("Bash", {"command": command})
    assert decision.behavior == "deny"
    assert "cannot be checked" in decision.message


@pytest.mark.parametrize("command", [
    "echo 'rm -rf y' > ~/.bash?c", "echo 'rm -rf y' > ~/.{bashrc,zshrc}",
    "cat > .git/hooks/pre-comm? <<'EOF'\nrm -rf y\nEOF"])
def test_content_written_through_a_glob_meets_the_deny_rules(command: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == "deny"


HONEST = ["cp *.py dist/", "cp -r src/* build/", "mv build/*.whl dist/",
          "tar czf out.tgz src/*", "cp config/{a,b}.json out/", "mkdir -p src/{a,b}/c",
          "cp -r assets/{img,css} public/", "cp x out/*", "python gen.py --out build/{a,b}",
          "cp templates/pre-*.md docs/", "cp scripts/*.sh bin/", "tee logs/{a,b}.log < x",
          "cp ~/.config/*/settings.json backup/", "cp -r .github/* tmp/",
          "cp docs/[A-Z]*.md out/", "cp x ~/*", "cp x " + "*/" * 200 + "y"]


@pytest.mark.parametrize("command", HONEST)
def test_honest_globs_are_decided_as_before(command: str) -> None:
    assert ALLOW_ALL.decide("Bash", {"command": command}).behavior == "allow"


def test_a_hostile_glob_word_is_judged_without_a_traceback() -> None:
    for word in ("*a" * 3000, "[" * 5000, "{" * 3000 + "," + "}" * 3000, "?" * 20000):
        assert ALLOW_ALL.decide("Bash", {"command": f"cp x {word}"}).behavior in (
            "allow", "ask")

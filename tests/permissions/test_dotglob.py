"""Round 17: ``shopt -s dotglob`` (or a non-empty ``GLOBIGNORE``, which turns it on) earlier
in a command lets a leading ``*`` match a dotfile, so ``cp -r dot/* ~`` copies
``dot/.bashrc`` into the home directory: a glob word of a program that may write what it
names is then not provable (readers such as ``ls *`` and ``grep -r x *`` are not)."""

from __future__ import annotations

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]]) -> object:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"))


GUARDED = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")])
OPEN = policy([("allow", "Bash")])


def decide(p: object, command: str) -> str:
    return p.decide("Bash", {"command": command}).behavior  # type: ignore[attr-defined]


DODGES = [
    "shopt -s dotglob && cp -r dot/* ~",
    "shopt -s dotglob; rsync -a dot/* ~/",
    "shopt -s nullglob dotglob; cp -r dot/* ~",
    "GLOBIGNORE=.:..; cp -r dot/* ~",
    "GLOBIGNORE=x && mv dot/* .git/",
    "shopt -s dotglob; echo 'rm -rf y' > ~/*rc",
    "bash -c 'shopt -s dotglob; cp -r dot/* ~'",
]


@pytest.mark.parametrize("command", DODGES)
def test_a_glob_with_dotglob_on_is_not_provable(command: str) -> None:
    assert decide(GUARDED, command) == "deny"
    assert decide(OPEN, command) == "ask"


HONEST = ["cp -r dot/* ~/site", "shopt -s dotglob; ls *", "shopt -s dotglob; grep -r x *",
          "shopt -s dotglob; cp a b", "echo dotglob", "shopt -s globstar; ls **/*.py",
          "cp -r src/* build/"]


@pytest.mark.parametrize("command", HONEST)
def test_honest_globs_are_decided_as_before(command: str) -> None:
    assert decide(GUARDED, command) == "allow"

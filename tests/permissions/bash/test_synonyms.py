"""A deny or ask Bash rule naming a command meets the other spellings its program reads as
that command (toolhost.permissions.bash.synonyms). Before, ``deny: Bash(npm install:*)``
let ``npm i x`` install, ``Bash(docker rm:*)`` let ``docker container rm x`` run and
``Bash(pip install:*)`` let ``python3 -m pip install x`` run."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


SPELLINGS = {
    "Bash(npm install:*)": ["npm i x", "npm add x", "npm isntall x", "npm instal x",
                            "npm -g i x", "sudo npm in x", "npm --prefix . ins x",
                            "bash -c 'npm i x'", "/usr/bin/npm i x", "timeout 9 npm isnt x"],
    "Bash(npm uninstall:*)": ["npm rm x", "npm r x", "npm un x", "npm unlink x",
                              "npm remove x"],
    "Bash(npm run:*)": ["npm run-script x", "npm rum x", "npm urn x", "npm test", "npm t",
                        "npm start", "npm stop", "npm restart", "npm tst"],
    "Bash(npm run-script:*)": ["npm run x", "npm t"],
    "Bash(npm test:*)": ["npm run test", "npm rum test", "npm t"],
    "Bash(npx:*)": ["npm exec x", "npm x y"],
    "Bash(npm exec:*)": ["npx x"],
    "Bash(docker rm:*)": ["docker container rm x", "docker container remove x",
                          "docker -H h container rm x"],
    "Bash(docker container rm:*)": ["docker rm x"],
    "Bash(docker rmi:*)": ["docker image rm x", "docker image remove x"],
    "Bash(podman run:*)": ["podman container run x"],
    "Bash(docker build:*)": ["docker buildx build .", "docker image build ."],
    "Bash(pip install:*)": ["pip3 install x", "python -m pip install x",
                            "python3 -m pip install x", "pip3.12 install x",
                            "python3.11 -m pip install x"],
    "Bash(python3 -m pip install:*)": ["pip install x"],
    "Bash(cargo publish:*)": ["cargo +nightly publish"],
    "Bash(cargo run:*)": ["cargo r"],
    "Bash(git add:*)": ["git stage x", "git -C . stage x"],
    "Bash(brew uninstall:*)": ["brew rm x", "brew remove x"],
    "Bash(helm uninstall:*)": ["helm delete x", "helm del x", "helm un x"],
    "Bash(dnf remove:*)": ["dnf erase x", "dnf rm x"],
    "Bash(yum erase:*)": ["yum remove x"],
    "Bash(composer remove:*)": ["composer rm x", "composer uninstall x"],
    "Bash(bun add:*)": ["bun a x"], "Bash(bunx:*)": ["bun x y"],
    "Bash(pnpm remove:*)": ["pnpm rm x", "pnpm un x"],
}


@pytest.mark.parametrize(("rule", "line"), [(r, line) for r, lines in SPELLINGS.items()
                                            for line in lines])
def test_a_deny_meets_every_spelling_of_its_command(rule: str, line: str) -> None:
    assert policy([("deny", rule)]).decide("Bash", {"command": line}).behavior == "deny"
    assert policy([("ask", rule)]).decide("Bash", {"command": line}).behavior == "ask"


@pytest.mark.parametrize(("rule", "line"), [
    ("Bash(npm install:*)", "npm list"), ("Bash(npm install:*)", "npm info x"),
    ("Bash(npm install:*)", "echo npm i x"), ("Bash(npm install:*)", "nom i x"),
    ("Bash(npm run:*)", "npm view x"), ("Bash(docker rm:*)", "docker ps"),
    ("Bash(docker rm:*)", "docker container ls"), ("Bash(git add:*)", "git status"),
    ("Bash(pip install:*)", "pip3 list"), ("Bash(pip install:*)", "python3 -m venv x"),
    ("Bash(npm uninstall:*)", "rm x"), ("Bash(cargo run:*)", "cargo fmt --check"),
    ("Bash(uv:*)", "pip install x"), ("Bash(uv pip:*)", "python3 -m pip install x"),
])
def test_other_commands_are_not_met(rule: str, line: str) -> None:
    assert policy([("deny", rule)]).decide("Bash", {"command": line}).behavior == "allow"


def test_an_allow_proves_only_the_spelling_it_names() -> None:
    p = policy([("allow", "Bash(npm install:*)")], "deny")
    assert p.decide("Bash", {"command": "npm install x"}).behavior == "allow"
    assert p.decide("Bash", {"command": "npm i x"}).behavior == "deny"

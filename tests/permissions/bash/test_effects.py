"""A deny or ask Bash rule naming a command meets the commands that do its work
(toolhost.permissions.bash.effects). Before, ``deny: Bash(npm install:*)`` let ``npm ci``
install, ``Bash(docker rmi:*)`` let ``docker image prune -a`` remove every image,
``Bash(git push:*)`` let ``git send-pack`` push and ``Bash(terraform destroy:*)`` let
``terraform apply -destroy`` destroy."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


SAME_EFFECT = {
    "Bash(npm install:*)": ["npm ci", "npm clean-install", "npm ic", "npm install-test",
                            "npm it", "npm cit", "npm install-ci-test", "npm sit",
                            "npm update", "npm up x", "npm -w a ci", "sudo npm ci"],
    "Bash(npm i:*)": ["npm ci", "npm it"],
    "Bash(npm ci:*)": ["npm cit", "npm install-ci-test"],
    "Bash(npm test:*)": ["npm it", "npm cit"],
    "Bash(npm uninstall:*)": ["npm prune"],
    "Bash(pnpm install:*)": ["pnpm add x", "pnpm update", "pnpm up", "pnpm it",
                             "pnpm add -g x"],
    "Bash(pnpm i:*)": ["pnpm add x"],
    "Bash(yarn add:*)": ["yarn global add x"],
    "Bash(yarn install:*)": ["yarn add x", "yarn global add x", "yarn upgrade", "yarn up x"],
    "Bash(yarn remove:*)": ["yarn global remove x"],
    "Bash(bun install:*)": ["bun add x", "bun a x", "bun update"],
    "Bash(brew install:*)": ["brew reinstall x", "brew upgrade x"],
    "Bash(git push:*)": ["git send-pack origin main", "git http-push u main",
                         "git subtree push --prefix d origin b", "git -C . send-pack o m"],
    "Bash(git stash drop:*)": ["git stash clear"],
    "Bash(git prune:*)": ["git gc --prune=now", "git gc --prune"],
    "Bash(docker rmi:*)": ["docker image prune -a", "docker image prune",
                           "docker system prune -a", "docker compose down --rmi all"],
    "Bash(docker image rm:*)": ["docker image prune"],
    "Bash(docker rm:*)": ["docker container prune", "docker system prune -f",
                          "docker compose down", "docker-compose down", "docker compose rm"],
    "Bash(docker volume rm:*)": ["docker volume prune", "docker system prune --volumes",
                                 "docker compose down -v", "docker compose down --volumes"],
    "Bash(docker network rm:*)": ["docker network prune", "docker compose down"],
    "Bash(docker create:*)": ["docker run x", "docker container run x"],
    "Bash(podman rmi:*)": ["podman image prune -a", "podman system prune"],
    "Bash(terraform destroy:*)": ["terraform apply -destroy", "terraform apply --destroy",
                                  "terraform apply -auto-approve -destroy",
                                  "terraform -chdir=infra apply -destroy=true"],
    "Bash(terraform apply:*)": ["terraform destroy", "terraform -chdir=x destroy"],
    "Bash(tofu destroy:*)": ["tofu apply -destroy"],
    "Bash(kubectl delete:*)": ["kubectl replace --force -f x.yaml",
                               "kubectl apply -f d/ --prune -l a=b", "kubectl drain node1",
                               "kubectl -n prod replace --force=true -f x",
                               "kubectl apply --force -f x"],
    "Bash(oc delete:*)": ["oc replace --force -f x"],
    "Bash(helm install:*)": ["helm upgrade --install r c", "helm upgrade -i r c"],
    "Bash(apt-get install:*)": ["apt install x", "aptitude install x", "apt reinstall x",
                                "sudo apt install -y x"],
    "Bash(apt install:*)": ["apt-get install x", "apt-get reinstall x"],
    "Bash(apt remove:*)": ["apt purge x", "apt-get purge x", "apt autoremove",
                           "apt-get remove x", "apt autopurge"],
    "Bash(apt-get upgrade:*)": ["apt full-upgrade", "apt-get dist-upgrade", "apt upgrade"],
    "Bash(yum install:*)": ["dnf install x", "dnf in x"],
    "Bash(dnf remove:*)": ["yum remove x", "yum erase x"],
    "Bash(rm:*)": ["unlink x", "shred -u x", "shred -zu x", "find . -delete",
                   "find / -name x -delete",
                   "find -- . -delete"],
    "Bash(shutdown:*)": ["reboot", "poweroff", "halt", "systemctl reboot",
                         "systemctl poweroff", "systemctl halt", "sudo systemctl kexec"],
    "Bash(reboot:*)": ["systemctl reboot", "systemctl soft-reboot"],
}


@pytest.mark.parametrize(("rule", "line"), [(r, line) for r, lines in SAME_EFFECT.items()
                                            for line in lines])
@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_a_deny_or_ask_meets_every_command_with_its_effect(rule: str, line: str,
                                                           effect: str) -> None:
    decision = policy([(effect, rule)]).decide("Bash", {"command": line})
    assert decision.behavior == effect, (rule, line, decision)


NOT_IMPLIED = {
    # the link goes one way: installing is no clean install, a push no send-pack
    "Bash(npm ci:*)": ["npm install x", "npm i"],
    "Bash(npm install-test:*)": ["npm install x", "npm test"],
    "Bash(git send-pack:*)": ["git push origin main"],
    "Bash(docker image prune:*)": ["docker rmi x"],
    "Bash(docker run:*)": ["docker create x"],
    # without the option that gives the effect
    "Bash(kubectl delete:*)": ["kubectl replace -f x", "kubectl apply -f x",
                               "kubectl replace --force=false -f x", "kubectl get pods"],
    "Bash(helm install:*)": ["helm upgrade r c"],
    "Bash(docker volume rm:*)": ["docker system prune -a", "docker compose down"],
    "Bash(rm:*)": ["shred x", "find . -name x", "rmdir d"],
    "Bash(git prune:*)": ["git gc", "git gc --prune=false"],
}


@pytest.mark.parametrize(("rule", "line"), [(r, line) for r, lines in NOT_IMPLIED.items()
                                            for line in lines])
def test_a_command_without_the_effect_is_left_alone(rule: str, line: str) -> None:
    decision = policy([("deny", rule)]).decide("Bash", {"command": line})
    assert decision.behavior == "allow", (rule, line, decision)


def test_terraform_s_destroy_is_read_from_its_options() -> None:
    # (a terraform line meets every Bash deny anyway: it runs the project's files)
    from toolhost.permissions.bash.effects import effect_forms

    said = effect_forms([("terraform", "apply", "-auto-approve", "-destroy")])
    assert ("terraform", "destroy", "-auto-approve", "-destroy") in said
    assert effect_forms([("tofu", "destroy")]) == [("tofu", "apply")]
    for line in (("terraform", "apply"), ("terraform", "plan", "-destroy"),
                 ("terraform", "apply", "-destroy=false")):
        assert effect_forms([line]) == [], line


@pytest.mark.parametrize(("rule", "line"), [
    ("Bash(npm install:*)", "npm ci"), ("Bash(git push:*)", "git send-pack o m"),
    ("Bash(terraform destroy:*)", "terraform apply -destroy"),
    ("Bash(apt install:*)", "apt-get install x"), ("Bash(rm:*)", "unlink x"),
])
def test_an_allow_proves_only_the_command_it_names(rule: str, line: str) -> None:
    assert policy([("allow", rule)], "deny").decide("Bash", {"command": line}).behavior == "deny"

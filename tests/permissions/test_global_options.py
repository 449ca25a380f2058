"""Round 9: a program's own options before its subcommand (``git -C /tmp push``, ``kubectl
-n prod delete``, ``cargo +nightly publish``) do not hide the subcommand from a deny or ask
rule that names it; an allow rule still needs the words as written."""

from __future__ import annotations

import pytest

from tests.permissions.bash.test_command_strings import policy

DENY = policy([("deny", "Bash(git push:*)"), ("deny", "Bash(npm publish:*)"),
               ("deny", "Bash(kubectl delete:*)"), ("deny", "Bash(terraform destroy:*)"),
               ("deny", "Bash(cargo publish:*)"), ("deny", "Bash(make deploy:*)"),
               ("deny", "Bash(gh pr merge:*)"), ("deny", "Bash(aws s3 rm:*)"),
               ("deny", "Bash(docker rm:*)"), ("ask", "Bash(git commit:*)")], "allow")

HIDDEN = [
    ("git -C /tmp push", "deny"), ("git --git-dir=.git push", "deny"),
    ("git -c x=y push origin", "deny"), ("git --no-pager push", "deny"),
    ("git -C /tmp --work-tree=. push -f", "deny"), ("git --namespace x push", "deny"),
    ("git -- push", "deny"), ("sudo git -C /r push", "deny"), ("git -C /r commit -m x", "ask"),
    ("npm --prefix x publish", "deny"), ("npm -w a publish", "deny"),
    ("kubectl -n prod delete pod x", "deny"), ("kubectl --context=prod delete pod x", "deny"),
    ("terraform -chdir=x destroy", "deny"), ("cargo +nightly publish", "deny"),
    ("make -C x deploy", "deny"), ("make -j4 deploy", "deny"), ("gh -R o/r pr merge 1", "deny"),
    ("aws --profile p --region r s3 rm s3://x", "deny"), ("docker -H h rm c", "deny"),
    ("git -c alias.p=push p origin", "deny"), ("git -c Alias.P='push --force' p", "deny"),
    ("git -C x -c alias.c=commit c -m y", "ask"),
]
KEPT = ["git -C /tmp status", "git --no-pager log", "npm --prefix x test", "kubectl -n a get po",
        "make -j4 all", "cargo +nightly fmt", "aws --profile p s3 ls", "docker -H h ps",
        "git -c user.name=x commit-tree t", "git -c alias.l=log l"]


@pytest.mark.parametrize(("command", "want"), HIDDEN)
def test_options_before_the_subcommand_do_not_hide_it(command: str, want: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == want


@pytest.mark.parametrize("command", KEPT)
def test_other_subcommands_stay_allowed(command: str) -> None:
    assert DENY.decide("Bash", {"command": command}).behavior == "allow"


def test_an_allow_rule_still_needs_the_words_as_written() -> None:
    allow = policy([("allow", "Bash(git status:*)")], "deny")
    assert allow.decide("Bash", {"command": "git status"}).behavior == "allow"
    assert allow.decide("Bash", {"command": "git -C /tmp status"}).behavior == "deny"


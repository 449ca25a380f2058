"""Round 16: a copy that makes a file a later command runs from a directory's name
(``cp -r hooks .git/``, ``cp -r evil/.git .``), or fills a directory holding such files with
contents not on the line (``cp -r dot/. ~``, ``rsync -a dot/ ~/``, ``tar xf x.tar -C ~``),
is not provable (toolhost.permissions.later.dirs)."""

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

LANDS = ["cp -r hooks .git/", "cp -r hooks .git", "cp -r evil/.git .", "cp -r dotfiles/. ~",
         "rsync -a dot/ ~/", "rsync -a dot/ $HOME", "tar xf x.tar -C ~",
         "tar -xzf x.tgz --directory=.git", "unzip x.zip -d ~", "cp -rT evil .git",
         "cp -r x/.config ~", "cp -a skel/. /root", "cp -r sub/.husky .", "sudo cp -r dot/. ~",
         "tar -C ~/.ssh -xf k.tar", "cp -r dot/. /etc/cron.d", "cp -t ~ -r dot/.",
         "cp -r x/.github/../.git ."]


@pytest.mark.parametrize("command", LANDS)
def test_a_copy_landing_on_a_run_later_file_is_not_provable(command: str) -> None:
    assert ALLOW_ALL.decide("Bash", {"command": command}).behavior == "ask"
    decision = DENY.decide("Bash", {"command": command})
    assert decision.behavior == "deny" and "cannot be checked" in decision.message


HONEST = ["cp x ~", "cp -r src ~/backup", "rsync -a src/ dest/", "cp -r src/. build/",
          "tar xf x.tar -C build", "unzip x.zip -d out", "cp README.md ~/notes/",
          "mv dist/app ~/bin/", "rsync -avz ./ user@host:/srv/app/", "cp -r .github/workflows ci/",
          "tar czf ~/b.tgz src", "cp ~/.ssh/id_rsa.pub keys/", "ls ~", "cd ~/proj && make",
          "cp -r ~/proj/src .", "cp /etc/hosts /tmp/", "scp file host:~/", "cp"]


@pytest.mark.parametrize("command", HONEST)
def test_honest_copies_are_decided_as_before(command: str) -> None:
    assert ALLOW_ALL.decide("Bash", {"command": command}).behavior == "allow"

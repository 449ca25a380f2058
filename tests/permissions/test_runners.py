"""Round 9: a command a container, pod, package runner or git subcommand runs from its own
arguments (``docker run img rm x``, ``kubectl run p -- rm x``, ``npx rm x``, ``uv run rm x``,
``git rebase --exec 'rm x'``, ``tar --checkpoint-action=exec=``), and a job ``crontab`` reads
from its input (it runs later), meet the deny and ask rules on that command (fail closed);
what runs no such command stays as it was."""

from __future__ import annotations

import pytest

from tests.permissions.test_command_strings import DENY_RM, policy

RUNS = [
    "docker run img rm x", "docker run --rm -it -v /:/h img rm -rf /h",
    "docker run --entrypoint rm img x", "docker container run img rm x",
    "docker -H tcp://h exec c rm x",
    "docker --config a --context b -H c --tls --tlsverify --tlscacert d run img rm x",
    "podman run --rm img sh -c 'rm x'", "nerdctl run img rm x",
    "docker compose run web rm x", "docker-compose run web rm x",
    "kubectl run p --image=i --command -- rm x", "kubectl debug p -it --image=b -- rm x",
    "kubectl -n ns exec p -- rm x", "kubectl --context c exec p -- rm x",
    "toolbox run rm x", "distrobox enter b -- rm x", "flatpak run --command=rm org.x x",
    "vagrant ssh -c 'rm x'", "machinectl shell c /bin/rm x",
    "npx rm x", "npx -c 'rm x'", "npm exec -- rm x", "npm exec -c 'rm x'", "pnpm dlx rm x",
    "yarn dlx rm x", "bunx rm x", "uvx rm x", "uv run rm x", "uv tool run rm x",
    "pipx run rm x", "poetry run rm x", "pdm run rm x", "hatch run rm x", "pipenv run rm x",
    "conda run -n e rm x", "bundle exec rm x", "pyenv exec rm x", "mise exec -- rm x",
    "direnv exec . rm x", "nix develop -c rm x", "nix-shell --run 'rm x'",
    "dotnet tool run rm x", "perf record rm x", "gdb --args rm x", "entr rm x",
    "git --upload-pack='rm x' clone h", "git clone --upload-pack 'rm x' h",
    "git archive --remote=h --exec='rm x'", "git rebase --exec 'rm x' HEAD~3",
    "git rebase -x 'rm x' HEAD~1", "git bisect run rm x", "git submodule foreach 'rm x'",
    "git filter-branch --tree-filter 'rm x' HEAD", "git difftool --extcmd='rm x'",
    "tar -xf a --checkpoint=1 --checkpoint-action=exec='rm x'",
    "make SHELL=/bin/rm", "make --eval='x:;rm y' x", "sed 's/a/rm x/e' f",
    "Rscript -e 'system(\"rm x\")'", "julia -e 'run(`rm x`)'", "tclsh <<< 'exec rm x'",
    "osascript -e 'do shell script \"rm x\"'", "emacs --eval '(shell-command \"rm x\")'",
    "deno eval 'Deno.run({cmd:[\"rm\",\"x\"]})'",
    "sshpass -p pw ssh host rm x", "mosh host -- rm x", "autossh -M 0 host rm x",
    "ssh host -- rm x", "gosu root rm x", "su-exec root rm x", "run0 rm x", "sudo-rs rm x",
    "ip netns exec ns rm x", "wsl -e rm x", "vagrant ssh -- rm x", "ansible all -a 'rm x'",
    "ansible all -m shell -a 'rm x'", "salt '*' cmd.run 'rm x'", "pdsh -w h rm x",
    "heroku run rm x", "fly ssh console -C 'rm x'", "gcloud compute ssh vm --command='rm x'",
    "crontab <<<'* * * * * rm -rf x'", "echo '* * * * * rm -rf x' | crontab -",
    "crontab - <<EOF\n* * * * * rm -rf x\nEOF", "(crontab -l; echo '0 * * * * rm x') | crontab -",
    "crontab -uroot - <<< '* * * * * rm x'", "sudo crontab <<< '@reboot rm x'",
]
HONEST = ["docker run --rm img ls", "kubectl -n a get po", "npm exec -- prettier .",
          "npx prettier --check .", "uv run pytest", "poetry run pytest -q",
          "git push -u origin main", "git rebase -i HEAD~3", "git bisect run make test",
          "gdb --args ./a.out 1", "tar -czf a.tgz d", "sed 's/e/x/' f", "crontab -l",
          "crontab -u me -l", "crontab mycron.txt", "make -f Makefile all", "ssh host -- ls",
          "ip netns exec ns ls", "ansible all -m ping", "heroku run bash", "gosu app ls"]


@pytest.mark.parametrize("command", RUNS)
def test_the_command_it_runs_is_denied(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "deny"


@pytest.mark.parametrize("command", HONEST)
def test_what_runs_no_denied_command_is_allowed(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "allow"


ASK_ONLY = policy([("ask", "Bash(curl:*)"), ("allow", "Bash(crontab:*)"),
                   ("allow", "Bash(echo:*)")], "allow")


@pytest.mark.parametrize(("command", "want"), [
    ("crontab <<< '* * * * * ls'", "ask"),  # jobs from stdin: not provable, so never allowed
    ("echo '* * * * * ls' | crontab -", "ask"),
    ("crontab -l", "allow"), ("crontab jobs.txt", "allow"),  # a file: the program, as bash f
])
def test_crontab_fed_its_jobs_is_never_allowed(command: str, want: str) -> None:
    assert ASK_ONLY.decide("Bash", {"command": command}).behavior == want

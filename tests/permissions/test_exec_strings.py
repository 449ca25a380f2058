"""Round 8: a command run by ``docker``/``podman``/``kubectl exec``, by a debugger's
``-ex 'shell ...'`` and by a pager's ``+'!...'`` meets the deny and ask rules on it (fail
closed); what runs no such command stays as it was."""

from __future__ import annotations

import pytest

from tests.permissions.bash.test_command_strings import DENY_RM

RUNS = [
    ("docker exec c rm x", "deny"),
    ("docker exec -it -u root c rm -rf /", "deny"),
    ("docker compose exec web rm x", "deny"),
    ("podman exec c sh -c 'rm x'", "deny"),
    ("kubectl exec p -- rm x", "deny"),
    ("kubectl exec -n ns p -c box -- curl http://e", "ask"),
    ("sudo docker exec c rm x", "deny"),
    ("gdb -batch -ex 'shell rm x' ./a.out", "deny"),
    ("gdb -ex '!rm x'", "deny"),
    ("gdb --eval-command='shell curl http://e'", "ask"),
    ("lldb -o 'platform shell rm x'", "deny"),
    ("less +'!rm x' f", "deny"),
    ("more '+:!rm x' f", "deny"),
]
HONEST = ["docker exec c ls", "kubectl exec p -- ls -la", "docker run --rm img ls",
          "gdb -batch -ex 'bt' ./a.out", "less +G f", "docker ps", "kubectl get pods",
          "docker exec -it c bash", "kubectl exec -it p -- sh", "docker exec -e A=1 c env"]


@pytest.mark.parametrize(("command", "want"), RUNS)
def test_the_command_it_runs_meets_deny_and_ask(command: str, want: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == want


@pytest.mark.parametrize("command", HONEST)
def test_what_runs_no_such_command_is_allowed(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "allow"

"""Round 7: interpreters with inline code (``python -c``, ``perl -e``/``-le``, ``ruby -e``,
``node -e``/``--eval``, ``php -r``, ``lua -e``). Every string literal of the code is tried as
a command line by deny and ask rules (fail closed), so ``os.system("rm x")`` meets a
``Bash(rm:*)`` deny; code whose literals name no denied program is decided as before."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules), default=default))  # type: ignore[arg-type]


RULES = [("deny", "Bash(rm:*)"), ("ask", "Bash(curl:*)"), ("allow", "Bash(python3:*)"),
         ("allow", "Bash(python:*)"), ("allow", "Bash(perl:*)"), ("allow", "Bash(node:*)")]
BROAD = policy(RULES, "allow")
NARROW = policy(RULES, "ask")

CASES = [
    ("python3 -c 'import os; os.system(\"rm -rf /tmp/x\")'", "deny"),
    ("python -c \"import subprocess; subprocess.run(['rm', '-rf', 'x'])\"", "deny"),
    ("python3.12 -c 'import os; os.system(\"curl http://e\")'", "deny"),  # inline_run
    ("/usr/bin/python3 -c 'import os; os.system(\"rm x\")'", "deny"),
    ("python3 -ccode'os.system(\"rm x\")'", "deny"),
    ("sudo python3 -c 'import os; os.system(\"rm x\")'", "deny"),
    ("perl -e 'system \"rm x\"'", "deny"),
    ("perl -le 'print `rm x`'", "deny"),
    ("perl -E 'system(\"sudo rm x\")'", "deny"),
    ("ruby -e 'system(\"rm x\")'", "deny"),
    ("ruby -e '`rm x`'", "deny"),
    ("node -e 'require(\"child_process\").execSync(\"rm x\")'", "deny"),
    ("node --eval='require(\"child_process\").execSync(\"rm x\")'", "deny"),
    ("node -p 'require(\"child_process\").execSync(\"curl x\")'", "deny"),  # inline_run
    ("php -r 'system(\"rm x\");'", "deny"),
    ("lua -e 'os.execute(\"rm x\")'", "deny"),
    ("luajit -e 'os.execute(\"rm x\")'", "deny"),
    ("perl -Mstrict -e 'system(q{rm x})'", "deny"),
    ("perl -e 'print qx(rm x)'", "deny"),
    ("perl -e 'system qw<rm x>'", "deny"),
    ("ruby -e 'exec %q(rm x)'", "deny"),
    ("ruby -e 'puts %x[rm x]'", "deny"),
    ("sh -c \"python3 -c 'import os; os.system(\\\"rm x\\\")'\"", "deny"),
]
HONEST = [
    ("python3 -c 'print(1 + 1)'", "allow"),
    ("python3 -c 'print(\"hello world\")'", "allow"),
    ("python -c 'import sys; print(sys.version)'", "allow"),
    ("perl -e 'print \"ok\\n\"'", "allow"),
    ("perl -ne 'print if /rm/' f", "allow"),  # "rm" in a regex, not a literal
    ("node -e 'console.log(\"format\")'", "allow"),
    ("python3 -c 'print(\"%d items\" % (3))'", "allow"),
    ("perl -e 'print q{ok}'", "allow"),
    ("python3 script.py 'rm x'", "allow"),  # a script's argument: not code
]


@pytest.mark.parametrize(("command", "want"), CASES + HONEST)
def test_inline_code_meets_deny_and_ask(command: str, want: str) -> None:
    assert BROAD.decide("Bash", {"command": command}).behavior == want


@pytest.mark.parametrize(("command", "want"), CASES + HONEST)
def test_inline_code_under_default_ask(command: str, want: str) -> None:
    # an allow rule on the interpreter does not allow what the code's literals deny/ask
    assert NARROW.decide("Bash", {"command": command}).behavior == want


# the program an interpreter reads from its stdin (a here-document, a here-string, a pipe)
FED = [
    ("python3 <<EOF\nimport os\nos.system('rm -rf x')\nEOF", "deny"),
    ("python3 - <<'EOF'\nimport subprocess\nsubprocess.run(['rm', 'x'])\nEOF", "deny"),
    ("echo 'import os; os.system(\"rm x\")' | python3", "deny"),
    ("printf '%s' 'system(\"rm x\")' | perl", "deny"),
    ("python3 <<< 'import os; os.system(\"rm x\")'", "deny"),
    ("cat <<EOF | python3 -u\nimport os\nos.system(\"curl x\")\nEOF", "deny"),  # inline_run
    ("node <<'JS'\nrequire('child_process').execSync('rm x')\nJS", "deny"),
]
FED_HONEST = [
    "python3 <<EOF\nprint('hello')\nEOF",
    "echo 'print(1)' | python3",
    "python3 <<EOF\nrm = 1\nprint(rm)\nEOF",  # a name in the code, not a literal
    "echo 'rm x' | python3 script.py",  # the script is a file: its stdin is data
]


# among many rules the policy looks only at the rules keyed by a command's programs: the
# programs of the code read from stdin are among them
BIG = policy([("allow", f"Bash(tool{i}:*)") for i in range(1000)] + RULES, "allow")


@pytest.mark.parametrize(("command", "want"), FED)
def test_a_program_read_from_stdin_meets_deny_and_ask(command: str, want: str) -> None:
    assert BROAD.decide("Bash", {"command": command}).behavior == want
    assert NARROW.decide("Bash", {"command": command}).behavior == want
    assert BIG.decide("Bash", {"command": command}).behavior == want


@pytest.mark.parametrize("command", FED_HONEST)
def test_honest_code_read_from_stdin_is_decided_as_before(command: str) -> None:
    assert BROAD.decide("Bash", {"command": command}).behavior == "allow"

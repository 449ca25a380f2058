"""Round 8: an interpreter option that takes a value (``python3 -W ignore``, ``perl -I lib``,
``ruby -r x``, ``node --stack-size 99``, ``php -d k=v``, ``lua -l m``) does not hide the
program the interpreter reads from stdin: its literals still meet deny and ask rules (fail
closed: an option not known to take no value may take the next word). php's ``-B``/``-R``/
``-E`` carry inline code like ``-r``."""

from __future__ import annotations

import pytest

from tests.permissions.test_inline_code import BROAD, NARROW

HIDDEN = [
    ("python3 -W ignore <<EOF\nimport os\nos.system('rm -rf x')\nEOF", "deny"),
    ("python3 -X dev <<EOF\nimport os\nos.system('rm x')\nEOF", "deny"),
    ("python3 -uW ignore <<< 'import os; os.system(\"rm x\")'", "deny"),
    ("python3 -X importtime - <<EOF\nimport os\nos.system('curl x')\nEOF", "deny"),  # inline_run
    ("python3 -- - <<EOF\nimport os\nos.system('rm x')\nEOF", "deny"),
    ("perl -I lib <<EOF\nsystem('rm x');\nEOF", "deny"),
    ("perl -Ilib -w <<EOF\nsystem('rm x');\nEOF", "deny"),
    ("echo 'system(\"rm x\")' | perl -I lib -Mstrict", "deny"),
    ("ruby -r json <<EOF\nsystem('rm x')\nEOF", "deny"),
    ("ruby -I lib -r set <<EOF\nsystem('curl x')\nEOF", "deny"),  # inline_run
    ("node --stack-size 99 <<EOF\nrequire('child_process').execSync('rm x')\nEOF", "deny"),
    ("node -r ts-node/register <<EOF\nrequire('child_process').execSync('rm x')\nEOF", "deny"),
    ("node --input-type module <<EOF\nimport 'x'; execSync('rm x')\nEOF", "deny"),
    ("php -d display_errors=1 <<EOF\n<?php system('rm x');\nEOF", "deny"),
    ("lua -l socket <<EOF\nos.execute('rm x')\nEOF", "deny"),
    ("php -B 'system(\"rm x\");' -R 'echo 1;'", "deny"),
    ("php -R 'system(\"curl x\");'", "deny"),  # inline_run
    ("php -E 'shell_exec(\"rm x\");'", "deny"),
]
HONEST = [
    "python3 -W ignore <<EOF\nprint('hello')\nEOF",
    "echo 'rm x' | python3 -W ignore script.py",  # a script after the option's value
    "echo 'rm x' | perl -I lib script.pl",
    "echo 'rm x' | ruby -w script.rb",
    "echo 'rm x' | python3 -u script.py",
    "echo 'rm x' | python3 -- script.py",
]


@pytest.mark.parametrize(("command", "want"), HIDDEN)
def test_an_option_value_does_not_hide_the_program_on_stdin(command: str, want: str) -> None:
    assert BROAD.decide("Bash", {"command": command}).behavior == want
    assert NARROW.decide("Bash", {"command": command}).behavior == want


@pytest.mark.parametrize("command", HONEST)
def test_a_script_after_the_options_keeps_stdin_as_data(command: str) -> None:
    assert BROAD.decide("Bash", {"command": command}).behavior == "allow"

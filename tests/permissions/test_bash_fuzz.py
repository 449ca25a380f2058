"""Round 19: bash is the judge of the Bash rules. Generated lines (``bash_lines``: a denied
program spelled and run many ways, inside benign commands) run for real with fakes of
``rm``/``curl``/``wget`` (``bash_judge``); whenever ``deny: Bash(rm:*)`` with ``allow: Bash``
allows a line, no fake may have run, and whenever an allow list allows one, only programs it
lists may have run. The families the first runs found each have a fixed case below (they
failed before round 19); the long run is bench/fuzz_bash_rules.py."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.permissions.bash_judge import DENY_POLICY, LIST_POLICY, Judge, deny_policy, verdicts
from tests.permissions.bash_lines import line

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judge]:
    made = Judge(tmp_path_factory.mktemp("judge"))
    yield made
    made.close()


# one line of each family the differential run found allowed while bash ran rm or curl
FOUND = [
    # a command line a program hands to sh, spelled so no deny rule reads `rm` (handed.py)
    "git -c alias.k='!r${E:+}m V' k",
    "git -c alias.k='!`echo rm` V' k",
    "sed -n '1e r$()m V' <<< x",
    "echo x | sed 's/x/${X:-rm} V/e'",
    "awk 'BEGIN{system(\"${X-rm} V\")}'",
    "tar cf a.tar V && tar --to-command='r${X}m V' -xf a.tar",
    "printf 'a:\\n\\t:\\n' > Makefile; make SHELL='r${X}m'",
    # a shell escape in a program's own language (ed `!`, sqlite3 `.shell`, m4 `syscmd`)
    "ed -s V <<< '!r${X}m V'",
    # sed running its input: a bare `e`, the `e` flag of s/// (handed.py)
    "sed e <<< 'rm V'",
    "echo 'rm V' | sed 's/^//e'",
    "echo 'curl V' | sed -n 'e'",
    "printf '\\x72m V\\n' > t; sed -f /dev/stdin t <<< 'e'",
    # a script the line writes, then runs (selfrun.py)
    "echo 'rm V' > s.sh; bash s.sh",
    "printf '%s\\n' 'rm V' > s; source s",
    "echo 'rm V' > s; chmod +x s; ./s",
    "echo 'curl V' | tee s >/dev/null; bash s",
    "cat > s <<'EOF'\nrm V\nEOF\n. ./s",
    # content a later shell or git runs, its program word not plain (later.words.py)
    "echo 'r${X}m V' >> ~/.bashrc; bash -ic :",
    "printf '%s\\n' 'r$()m V' > ~/.profile; bash -lc :",
    "git init -q && printf '#!/bin/sh\\nr${X}m V\\n' > .git/hooks/pre-commit && chmod +x "
    ".git/hooks/pre-commit && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x",
    # interpreter code building the command at run time (inline_run.py)
    "python3 -c 'import os; os.system(\"r\"+\"m V\")'",
    "python3 -c 'import os; os.system(chr(114)+\"m V\")'",
    "python3 -c 'import os; os.system(\"r${X}m V\")'",
    "perl -e 'system(\"r``m V\")'",
    "awk 'BEGIN{c=\"r\" \"m V\"; system(c)}'",
    "python3 - <<< 'import os; os.system(\"r\"+\"m V\")'",
    "awk -f /dev/stdin <<< 'BEGIN{system(\"r\" \"m V\")}'",
    # round 21 (new families: make): options joined (-sf -), a Makefile an expansion feeds
    "printf 'x:\\n\\t%s\\n' 'rm V 2>/dev/null' | make -sf - x",
    "make -sf - x <<< \"$(printf 'x:\\n\\t%s' 'rm -- V')\"",
    "make -sf - x <<< \"$(printf 'x:\\n\\t%s' ''\\''rm'\\'' -f V')\"",
    "make -f /dev/fd/0 x <<< 'x: ; rm V'",
]


@pytest.mark.parametrize("command", FOUND)
def test_each_family_found_is_not_allowed(judge: Judge, command: str) -> None:
    ran = judge.run(command)
    assert ran.denied_ran, ran  # bash did run the fake: the case is a real one
    assert DENY_POLICY.decide("Bash", {"command": command}).behavior == "deny"


def test_a_tar_command_option_is_judged_without_an_archive_made_on_the_line() -> None:
    # (the FOUND case makes its archive first, which was already not provable)
    command = "tar --to-command='r${X}m V' -xf a.tar"
    assert DENY_POLICY.decide("Bash", {"command": command}).behavior == "deny"


HONEST = ["git -c core.pager='less -R' log -1", "tar --to-command=cat -xf a.tar",
          "make -j4 -f missing.mk",
          "ed -s V <<< 'w'", "git rebase -x 'cargo fmt --check' main", "sed -n 's/a/b/p' V",
          "awk '{print $1}' V",
          "python3 -c 'print(1)'", "echo 'ls' > out.txt; cat out.txt", "bash -c 'echo hi'",
          "git -c alias.st=status st", "sed -e 's/a/b/' V > out.txt",
          # test's `[` and bash's `[[` as a program word were "not a plain literal" (denied)
          "[ -e V ]", "if [ -e V ]; then echo y; fi", "[[ -e V && -f W ]] && echo y",
          "echo 'export PATH=$PATH:/x' >> ~/.bashrc", "echo '[alias]\n st = status' >> .git/config",
          "echo 'eval \"$(pyenv init -)\"' >> ~/.bashrc"]


@pytest.mark.parametrize("command", HONEST)
def test_honest_neighbours_stay_allowed(command: str, tmp_path: Path) -> None:
    # decided outside any repository: `git rebase ... main` reads the commits `main` would
    # bring, so inside a checkout without a `main` branch (a clone of another branch) it is
    # rightly not provable
    decision = deny_policy(str(tmp_path)).decide("Bash", {"command": command})
    assert decision.behavior == "allow", decision


def test_a_glob_bracket_re2_refuses_is_decided(judge: Judge) -> None:
    # `[?--]` (a reversed range) raised RegexError out of decide(): a traceback, not a decision
    assert DENY_POLICY.decide("Bash", {"command": "[?--]"}).behavior == "deny"
    assert DENY_POLICY.decide("Bash", {"command": "cp x [?--]/[[:nope:]]"}).behavior in (
        "allow", "deny")


@settings(max_examples=120, deadline=None)
@given(st.randoms(use_true_random=False))
def test_generated_lines_agree_with_bash(judge: Judge, rng: random.Random) -> None:
    command = line(rng)
    found = [v for v in verdicts(command, judge.run(command)) if v != "over-deny"]
    assert not found, (found, command)


def test_the_judge_sees_a_hidden_rm(judge: Judge) -> None:
    # the harness itself: a fake runs and is logged, a benign line logs no fake
    assert judge.run("X=rm; $X V").denied_ran
    assert not judge.run("echo rm V").denied_ran
    assert LIST_POLICY.decide("Bash", {"command": "ls -la"}).behavior == "allow"


def test_a_program_a_line_leaves_running_never_logs_into_a_later_line(judge: Judge) -> None:
    # the harness itself: a setsid'd rm that left its run's folder fired during the next
    # line and made the benign one a "hole" (the flaky test_generated_lines_agree_with_bash)
    judge.run("(setsid bash -c 'cd ..; sleep 0.6; rm V' &); sleep 0.2")
    assert not judge.run("sleep 1").denied_ran


def test_fakes_stand_in_for_the_real_programs(judge: Judge) -> None:
    if not judge.guarded:
        pytest.skip("no user and mount namespace here: fakes are on PATH only")
    ran = judge.run("command -p rm V; /bin/rm V; env -i rm V")
    assert ran.log.count("TRAP:rm V") == 3 and ran.sentinel
    assert Path("/bin/rm").read_bytes()[:4] == b"\x7fELF"  # (outside the namespace: untouched)

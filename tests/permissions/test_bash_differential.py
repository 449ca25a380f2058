"""Differential check against real bash: lines generated from grammar pieces (quotes, ANSI-C
escapes, backslash-newlines, here-documents, backticks, expansions that evaluate values, xargs
and wrappers, ``time``) around a hidden ``rm``, each decided by the policy and run by bash with
only trap programs on PATH. Whenever ``Bash(echo:*)`` allows a line, bash ran no program;
whenever bash ran the trap ``rm``, ``Bash(rm:*)`` denies the line. Bounded (300 lines, fixed
seed, a few seconds)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")

ECHO_ONLY = compile_policy(PermissionsConfig(rules=[
    RuleConfig(effect="allow", tool="Bash(echo:*)")], default="ask"))
DENY_RM = compile_policy(PermissionsConfig(rules=[
    RuleConfig(effect="deny", tool="Bash(rm:*)")], default="allow"))

PIECES = ["'", '"', "$'", "`", "$(", "${", "$((", "((", "))", ")", "(", "}", "{ ", "\\", "\\\n",
          "#", ";", "\n", "&", "|", "<<E\n", "<<'E'\n", "<<-E\n", "E\n", "\tE\n", "x", " ", " ",
          "\\c", "\\'", "$'\\c'", "$'\\c", "\\x", "\\u", "$\\\n", "$\\\n(", "$\\\n'", "@P}",
          "${x@P}", "${!x}", "${y[x]}", "$((x))", "((x))", "${s:x}", "[[ x -eq 1 ]]", "let y=x",
          "declare -i y;y=$x;", '\\"', "\\`", "\\$", "echo", "true", "a=", "=", "x\\\n",
          "| xargs nohup", "| xargs env", "| xargs timeout 5", "time -f x", "time -p", "<<<",
          "2>", ">&", "&>", "$x", "\"`", "`\"", "\\\\"]
PLAIN = ["a", "'b c'", '"d"', "$'\\x41'", "$'\\cA'", "\\\n", " \\\n ", "x\\\ny", "'e\\\nf'",
         "$'\\\\'", "\"g\\\nh\"", "2>&1", ">/dev/null", "--", "-n", "$'\\c'", "$'\\u263a'"]
VALUES = ["'$(rm V)'", "'a[$(rm V)]'", "$a$b", "'`rm V`'"]


def _line(rng: random.Random) -> str:
    if rng.random() < 0.25:  # mostly lines Bash(echo:*) allows: bash must run no program
        return "echo " + " ".join(rng.choice(PLAIN) for _ in range(rng.randint(1, 6)))
    if rng.random() < 0.3:  # a value that runs rm when evaluated, then a piece evaluating x
        head = f"a='a[$'; b='(rm V)]'; x={rng.choice(VALUES)}; "
        tail = rng.choice(["echo ${x@P}", "echo ${y[x]}", "echo ${!x}", "((x))", "echo $((x))",
                           "echo ${s:x}", "[[ x -eq 1 ]]", "let y=x", "declare -i y; y=$x",
                           "echo $x | xargs nohup", "test -v \"$x\""])
        line = head + tail
    else:
        parts = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
        sep = rng.choice([";", "\n", "&&", "||", "|", " ; ", "\\\n;", ";\\\n"])
        tail = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 4)))
        line = (rng.choice(["echo ", "echo ", "true ", "time ", ""]) + parts + sep
                + rng.choice(["rm V", "r\\\nm V", "echo rm V | xargs env", "time -f x rm V"])
                + rng.choice([" ;", "\n", " ", " #", ""]) + tail)
    if rng.random() < 0.3:  # a backslash-newline anywhere
        k = rng.randrange(len(line) + 1)
        line = line[:k] + "\\\n" + line[k:]
    return line


@pytest.fixture(scope="module")
def trap_path(tmp_path_factory: Any) -> Path:
    bin_dir = tmp_path_factory.mktemp("trapbin")
    for name in ("rm", "-f", "x", "E", "y", "V", "ok"):
        prog = bin_dir / name
        prog.write_text('#!/bin/sh\necho "TRAP:${0##*/} $*" >> "$TRAPLOG"\n')
        prog.chmod(0o755)
    for name in ("xargs", "env", "nohup", "timeout", "cat", "time"):
        real = shutil.which(name)
        if real:
            (bin_dir / name).symlink_to(real)
    return bin_dir


def _run(line: str, bin_dir: Path, work: Path) -> str:
    log = work / "trap.log"
    log.unlink(missing_ok=True)
    env = {"PATH": str(bin_dir), "TRAPLOG": str(log), "HOME": str(work), "LANG": "C"}
    try:
        subprocess.run([str(BASH), "-c", line], cwd=work, env=env, timeout=3,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return "TIMEOUT"
    return log.read_text() if log.exists() else ""


def test_policy_agrees_with_bash(trap_path: Path, tmp_path: Path) -> None:
    rng = random.Random(20261126)
    problems, counts = [], [0, 0]
    for _ in range(300):
        line = _line(rng)
        if "\0" in line:
            continue
        ran = _run(line, trap_path, tmp_path)
        allowed = ECHO_ONLY.decide("Bash", {"command": line}).behavior == "allow"
        counts[0] += allowed
        counts[1] += "TRAP:rm" in ran
        if allowed and ran:
            problems.append(("Bash(echo:*) allowed, bash ran", line, ran))
        if "TRAP:rm" in ran and DENY_RM.decide("Bash", {"command": line}).behavior != "deny":
            problems.append(("bash ran rm, Bash(rm:*) did not deny", line, ran))
    assert not problems, problems[:5]
    assert counts[0] > 30 and counts[1] > 30, counts  # both checks did check something

"""A differential judge for Bash rules: bash itself says which programs a line runs.

``Judge`` runs lines through ``bash_judge_driver`` (fake ``rm``/``curl``/``wget`` that only
log, logging shims of real tools, a fresh directory per line, under ``unshare -rm`` with the
fakes bound over the real programs when the machine allows it) and ``verdicts`` compares
what ran with what the policy decided:

- ``hole``: ``deny: Bash(rm:*)`` (and curl, wget) with ``allow: Bash`` allowed the line, and
  a denied program ran;
- ``list-hole``: an allow list (``Bash(echo:*)``, ``Bash(ls:*)`` ...) allowed the line, and a
  program it does not list ran;
- ``over-deny``: the deny policy denied or asked, and no denied program ran (counted: a line
  the matcher cannot read is denied by design).

Used by tests/permissions/test_bash_fuzz.py (bounded, Hypothesis) and bench/fuzz_bash_rules.py
(a long run by hand).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolhost.config.model import Effect, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

DENIED = ("rm", "curl", "wget")
# real tools a line may use, each behind a shim that logs it (``sh`` is dash, as on Debian)
TOOLS = ("env", "nice", "timeout", "nohup", "stdbuf", "xargs", "find", "setsid", "bash",
         "dash", "sh", "git", "perl", "awk", "sed", "cat", "tee", "ls", "tr", "head", "base64",
         "chmod", "mkdir", "python3", "true", "sleep", "ionice", "ed", "tar", "make")
ALLOW_LIST = ("echo", "printf", "ls", "cat", "true", "git status", "find")
# wrappers an allow rule may skip (docs/permissions.md: ``Bash(ls:*)`` allows ``nice ls``)
TRANSPARENT = ("timeout", "nice", "nohup", "stdbuf", "time")


def _policy(rules: list[tuple[Effect, str]], default: Effect, cwd: str | None = None) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules), default=default), cwd=cwd)


_DENY: Effect = "deny"
_ALLOW: Effect = "allow"
_DENY_RULES = [(_DENY, f"Bash({name}:*)") for name in DENIED] + [(_ALLOW, "Bash")]
DENY_POLICY = _policy(_DENY_RULES, "allow")


def deny_policy(cwd: str) -> Any:
    """``DENY_POLICY`` deciding in ``cwd`` (its relative paths, the repository git reads)."""
    return _policy(_DENY_RULES, "allow", cwd)
LIST_POLICY = _policy([(_DENY, "Bash(rm:*)")]
                      + [(_ALLOW, f"Bash({name}:*)") for name in ALLOW_LIST], "ask")


def _real(name: str) -> str | None:
    if name == "sh":
        name = "dash"
    if name == "python3":
        return os.path.realpath(sys.executable)
    return shutil.which(name, path="/usr/bin:/bin:/usr/local/bin")


def make_bin(bin_dir: Path, log: Path) -> None:
    """Fakes of ``DENIED`` and logging shims of ``TOOLS`` in ``bin_dir``, logging to ``log``
    (a fixed path: a line that empties the environment is still seen)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in DENIED:
        fake = bin_dir / name
        fake.write_text(f'#!/bin/sh\n#fake\nprintf "TRAP:%s\\t%s\\n" "{name} $*" "$PWD" >> {log}\n')
        fake.chmod(0o755)
    for name in TOOLS:
        real = _real(name)
        if real is None:
            continue
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nprintf "RAN:%s\\t%s\\n" "{name} $*" "$PWD" >> {log}\n'
                        f'exec {real} "$@"\n')
        shim.chmod(0o755)


def guarded() -> bool:
    """Whether a user and mount namespace can be made here (fakes bound over real ones)."""
    if shutil.which("unshare") is None or not Path("/usr/bin/mount").exists():
        return False
    probe = subprocess.run(["unshare", "-rm", "/usr/bin/mount", "--bind", "/dev/null",
                            "/dev/null"], capture_output=True, check=False)
    return probe.returncode == 0


@dataclass(frozen=True)
class Ran:
    log: str
    sentinel: bool  # the file V is still there (no real rm took it)
    timeout: bool

    @property
    def denied_ran(self) -> bool:
        return "TRAP:" in self.log or not self.sentinel

    @property
    def programs(self) -> list[str]:
        """``name args`` of every program bash ran (fakes and shims)."""
        return [line.split(":", 1)[1] for line in self.log.splitlines() if ":" in line]


class Judge:
    """One driver process; ``run(line)`` gives what bash ran."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.guarded = guarded()
        bin_dir, log = root / "bin", root / "trap.log"
        make_bin(bin_dir, log)
        driver = [sys.executable, str(Path(__file__).with_name("bash_judge_driver.py")),
                  str(bin_dir), str(root / "runs")]
        (root / "runs").mkdir(exist_ok=True)
        if self.guarded:
            driver = ["unshare", "-rm", *driver, "guard"]
        self.log = log
        self.proc = subprocess.Popen(driver, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        assert json.loads(self.proc.stdout.readline()) == {"ready": True}

    def run(self, line: str) -> Ran:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.log.write_text("")
        self.proc.stdin.write(json.dumps({"line": line}) + "\n")
        self.proc.stdin.flush()
        got = json.loads(self.proc.stdout.readline())
        own = f"/runs/w{got['count']}"
        lines = []  # (a program a line left running, setsid'd, may log during a later line)
        for entry in self.log.read_text(errors="replace").splitlines():
            text, _, where = entry.partition("\t")
            if "/runs/w" not in where or where == self.root.as_posix() + own or (
                    where.startswith(self.root.as_posix() + own + "/")):
                lines.append(text + "\n")
        return Ran("".join(lines), got["sentinel"], got["timeout"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _listed(program: str) -> bool:
    return any(program == name or program.startswith(name + " ")
               for name in ALLOW_LIST + TRANSPARENT)


def verdicts(line: str, ran: Ran) -> list[str]:
    """What is wrong with the policies' decisions on ``line`` given what bash ran."""
    found = []
    deny = DENY_POLICY.decide("Bash", {"command": line}).behavior
    if deny == "allow" and ran.denied_ran:
        found.append("hole")
    if deny != "allow" and not ran.denied_ran and not ran.timeout:
        found.append("over-deny")
    if LIST_POLICY.decide("Bash", {"command": line}).behavior == "allow" and (
            ran.denied_ran or not all(_listed(p) for p in ran.programs)):
        found.append("list-hole")
    return found

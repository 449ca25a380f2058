"""A command run's own subreaper (``subreaper_main``, Linux) changes nothing of an honest
command's result: its exit code, its output bytes, its death by a signal, its environment, its
signal dispositions, its input, and a program that cannot be executed is still an ``OSError``
(real processes through ``run_process``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from toolhost.backends import process
from toolhost.backends.process import run_process

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="the run's own subreaper is Linux's")]
ENV = {"PATH": os.environ.get("PATH", os.defpath)}


async def _run(argv: list[str], stdin: bytes | None = None,
               env: dict[str, str] = ENV) -> process.Outcome:
    return await run_process(argv, stdin=stdin, env=env, cwd=None, max_output_bytes=1 << 20)


async def test_an_honest_commands_result_is_unchanged_by_its_subreaper() -> None:
    assert process._SUPERVISOR is not None  # the runs below go through it
    out = await _run(["sh", "-c", r"printf 'a\0b\n'; printf e >&2; exit 3"])
    assert (out.returncode, out.stdout, out.stderr) == (3, b"a\0b\n", b"e")
    out = await _run(["sh", "-c", "kill -SEGV $$"])
    assert out.returncode == -11  # the same signal, as the host's own child would show
    out = await _run(["sh", "-c", "kill -KILL $$"])
    assert out.returncode == -9
    # SIGPIPE as a program expects it (Python ignores it): `yes` dies of it, silently
    out = await _run(["sh", "-c", "yes | head -c 4"])
    assert (out.returncode, out.stdout, out.stderr) == (0, b"y\ny\n", b"")
    # the environment as given: Python's start would add LC_CTYPE=C.UTF-8 to a C locale
    out = await _run(["env"], env={**ENV, "LANG": "C"})
    lines = sorted(out.stdout.decode().splitlines())
    assert [x for x in lines if not x.startswith("TOOLHOST_RUN_ID=")] == sorted(
        f"{k}={v}" for k, v in {**ENV, "LANG": "C"}.items())
    out = await _run(["env"], env={**ENV, "LC_CTYPE": "POSIX"})
    assert b"\nLC_CTYPE=POSIX\n" in b"\n" + out.stdout
    data = os.urandom(300_000)
    out = await _run(["cat"], stdin=data)
    assert (out.returncode, out.stdout) == (0, data)
    with pytest.raises(FileNotFoundError):
        await _run(["no-such-program-anywhere"])
    with pytest.raises(PermissionError):
        await _run(["/"])


async def test_a_signal_the_program_sends_its_own_group_does_not_end_its_subreaper() -> None:
    # `kill 0` / `kill -INT 0` reach the whole group, the subreaper too: the program's own
    # end is the result (not -2 with a Python traceback on stderr, not -15)
    script = ('trap "" INT TERM HUP USR1 ALRM; for s in INT TERM HUP USR1 ALRM; do '
              'kill -$s 0; done; trap - INT TERM HUP USR1 ALRM; '
              'cat /proc/self/status | grep -E "^Sig(Ign|Cgt)"; exit 3')
    out = await _run(["sh", "-c", script])
    assert (out.returncode, out.stderr) == (3, b"")
    # the program's signal dispositions (`cat`'s own) are what a program started by the host
    # without a subreaper has: nothing caught, and ignored only what the host ignored (a
    # background shell ignores SIGINT and SIGQUIT for its jobs: CI may run so)
    plain = subprocess.run(["sh", "-c", "cat /proc/self/status | grep -E '^Sig(Ign|Cgt)'"],
                           capture_output=True, env=ENV, check=True)
    assert out.stdout == plain.stdout
    assert out.stdout.endswith(b"SigCgt:\t0000000000000000\n")


async def test_a_signal_the_host_ignores_stays_ignored_in_the_program() -> None:
    # `nohup toolhost ...`, or a background job of a shell: SIGHUP / SIGINT / SIGQUIT ignored
    # by the host are ignored by its commands too, as subprocess leaves them
    import signal

    read = ["sh", "-c", "grep '^SigIgn' /proc/self/status"]
    before = {s: signal.getsignal(s) for s in (signal.SIGHUP, signal.SIGQUIT)}
    try:
        for s in before:
            signal.signal(s, signal.SIG_IGN)
        out = await _run(read)
        plain = subprocess.run(read, capture_output=True, env=ENV, check=True)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    mask = int(out.stdout.split()[1], 16)
    assert out.stdout == plain.stdout
    assert mask & (1 << (signal.SIGHUP - 1)) and mask & (1 << (signal.SIGQUIT - 1))


async def test_the_program_leads_its_own_session_and_group_as_without_a_subreaper() -> None:
    # `trap 'kill -- -$$' EXIT` (kill my whole group) must find the group
    out = await _run(["sh", "-c", "echo $$ $(ps -o pgid= -o sid= -p $$); sleep 30 & "
                                  "kill -- -$$"])
    pid, pgid, sid = out.stdout.split()
    assert pid == pgid == sid
    assert (out.returncode, out.stderr) == (-15, b"")


async def test_an_argument_list_too_long_names_the_program_not_the_subreaper() -> None:
    with pytest.raises(OSError) as raised:
        await _run(["true", *["x" * 100] * 100_000])
    assert raised.value.errno == 7 and raised.value.filename == "true"  # E2BIG
    assert "python" not in str(raised.value)

"""The benchmark scripts still run and print their ratios (tiny sizes: this checks that they
work, never how fast anything is)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "bench"


@pytest.mark.parametrize("subject", ["tools/call", "can_use_tool"])
def test_the_control_session_bench_answers_every_call(subject: str) -> None:
    out = subprocess.run([sys.executable, str(BENCH / "bench_control_session.py"), "--calls",
                          "40", "--warmup", "5", "--inflight", "8", "--subject", subject],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "wrong answers" not in out.stdout, out.stdout
    assert "toolhost / floor sequential p50:" in out.stdout
    assert "toolhost / official" in out.stdout


def test_the_run_bench_drives_toolhost_run_for_every_subject() -> None:
    # The whole `toolhost run` against the fake CLI, the blocking floor and the SDK program:
    # every answer is checked by the fake CLI (a wrong one fails the script).
    out = subprocess.run([sys.executable, str(BENCH / "bench_run.py"), "--calls", "30",
                          "--warmup", "5", "--inflight", "8", "--rounds", "1"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    for subject in ("async", "sync", "can_use_tool"):
        assert f"\n{subject}: host" in out.stdout, out.stdout
    assert out.stdout.count("toolhost / floor, sequential p50") == 3
    assert out.stdout.count("toolhost / official, sequential p50") == 3


def test_the_run_bench_runs_before_once_a_round_when_hosts_names_it_too() -> None:
    # --hosts naming "before" beside --against ran it twice a round: the A/B then failed
    # pairing its rounds (a traceback instead of the ratios)
    out = subprocess.run([sys.executable, str(BENCH / "bench_run.py"), "--calls", "20",
                          "--warmup", "5", "--inflight", "4", "--rounds", "2", "--subjects",
                          "can_use_tool", "--hosts", "toolhost,before", "--against",
                          str(BENCH.parent)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "can_use_tool: this / before, seq p50:" in out.stdout, out.stdout


def test_the_startup_bench_times_every_subject_and_compares_checkouts() -> None:
    # --against this very checkout: the comparison runs, whatever the ratios
    root = BENCH.parent
    out = subprocess.run([sys.executable, str(BENCH / "bench_startup.py"), "--rounds", "1",
                          "--against", str(root)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count("toolhost serve: first answer") == 2, out.stdout
    assert f"against {root}" in out.stdout


def test_the_call_scope_bench_compares_deadlines_and_checks_one_fires() -> None:
    out = subprocess.run([sys.executable, str(BENCH / "bench_call_scopes.py"), "--calls", "200",
                          "--rounds", "1", "--inflight", "4"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count("toolhost / anyio.fail_after:") == 2, out.stdout
    assert "toolhost fail_after(30)" in out.stdout


def test_the_eager_step_bench_prints_each_way_and_the_most_it_could_save() -> None:
    out = subprocess.run([sys.executable, str(BENCH / "bench_eager_step.py"), "--rounds", "1",
                          "--n", "200"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    for way in ("task ", "send ", "task+scope "):
        assert out.stdout.count(way) == 1, out.stdout
    assert "a task-less step saves at most" in out.stdout


def test_the_run_bench_drives_the_inline_subject() -> None:
    # the def under blocking: false: every answer checked by the fake CLI, as for the others
    out = subprocess.run([sys.executable, str(BENCH / "bench_run.py"), "--calls", "20",
                          "--warmup", "5", "--inflight", "4", "--rounds", "1", "--subjects",
                          "inline", "--hosts", "floor,toolhost"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "\ninline: host" in out.stdout and "(target <= 2.5x)" in out.stdout, out.stdout


def test_the_inline_call_bench_times_the_three_ways_and_checks_their_answers() -> None:
    out = subprocess.run([sys.executable, str(BENCH / "bench_inline_call.py"), "--calls", "50",
                          "--rounds", "1"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    starts = [line.split(" us CPU")[0].rsplit(" ", 1)[0].strip()
              for line in out.stdout.splitlines() if " us CPU per call" in line]
    assert starts == ["async def", "def, pool", "def, inline"], out.stdout
    assert "inline / pool:" in out.stdout


def test_the_instruction_bench_pins_valgrind_and_the_fake_cli_when_asked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # in flight, an unpinned fake CLI answers each answer at once on the other CPU (reads of
    # a line or two); pinned, the regime bench_run.py measures (32 lines a read)
    sys.path.insert(0, str(BENCH))
    try:
        import bench_instructions
    finally:
        sys.path.remove(str(BENCH))
    argvs: list[list[str]] = []

    def fake_run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        argvs.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "==1== Collected : 1234\n")
    monkeypatch.setattr(bench_instructions.subprocess, "run", fake_run)
    config, cli = tmp_path / "bench.yaml", tmp_path / "fake_cli"
    assert bench_instructions.count(BENCH.parent, "async", 10, config, cli, 32, 1) == 1234
    assert argvs[-1][:4] == ["taskset", "-c", "1", "valgrind"]
    assert bench_instructions.count(BENCH.parent, "async", 10, config, cli) == 1234
    assert argvs[-1][0] == "valgrind"

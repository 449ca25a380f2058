"""``toolhost run`` whose stdout or stderr cannot be written: the turn always runs; a lost
transcript is said (exit 1), a reader that left (``| head -1``) is not a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "configs" / "demo.yaml"
SCENARIO = ROOT / "examples" / "scenarios" / "demo.yaml"
TOOLHOST = str(Path(sys.executable).parent / "toolhost")
FULL = "/dev/full"  # every write fails with ENOSPC, as on a full disk

needs_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full here")


def _run(*args: str, stdout: int | IO[str], stderr: int | IO[str],
         gone: str = "", **env: str) -> tuple[int, str, str]:
    """The demo scenario under ``-p``: (status, stdout, stderr), each stream read unless it
    went to a file; ``gone``: "out" or "err", a pipe whose reader leaves at once."""
    clean = {k: v for k, v in os.environ.items() if k not in ("TOOLHOST_DEBUG", "TOOLHOST_CLI")}
    with subprocess.Popen([TOOLHOST, "run", str(CONFIG), "--script", str(SCENARIO), "-p",
                           "hi", *args], stdout=stdout, stderr=stderr, text=True,
                          stdin=subprocess.DEVNULL, env={**clean, **env}) as process:
        left = process.stdout if gone == "out" else process.stderr if gone == "err" else None
        if left is not None:
            left.close()  # the reader is gone: every write there is EPIPE
        out = process.stdout.read() if process.stdout and gone != "out" else ""
        err = process.stderr.read() if process.stderr and gone != "err" else ""
        return process.wait(timeout=120), out, err


@needs_full
@pytest.mark.parametrize("color", ["", "1"])
def test_a_full_stderr_never_stops_the_turn(color: str) -> None:
    # the first progress line that failed ended the run (status 1) before the prompt was
    # sent, saying nothing; with colours on, a progress line left open lost the transcript
    with open(FULL, "w") as full:
        code, out, _ = _run(stdout=subprocess.PIPE, stderr=full, FORCE_COLOR=color)
    assert code == 0
    assert "6 × 7 = 42" in out and "— done" in out, out


def test_a_stderr_whose_reader_left_never_stops_the_turn() -> None:
    # `toolhost run ... -p X 2>&1 | head -1`: the turn never ran, status 1
    code, out, _ = _run(stdout=subprocess.PIPE, stderr=subprocess.PIPE, gone="err")
    assert code == 0
    assert "6 × 7 = 42" in out and "— done" in out, out


@needs_full
@pytest.mark.parametrize("output", ["text", "json"])
def test_a_transcript_that_could_not_be_written_is_said_and_fails(output: str) -> None:
    # `--output json > results.jsonl` on a full disk: status 0 and an empty file, said nowhere
    with open(FULL, "w") as full:
        code, _, err = _run("--output", output, stdout=full, stderr=subprocess.PIPE)
    assert code == 1, err
    assert "toolhost: error: the transcript could not be written to stdout (No space left " \
        "on device): " in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_stdout_reader_that_left_is_no_failure(output: str) -> None:
    # `toolhost run ... | head -1`: the reader took what it wanted; the turn still runs whole
    code, _, err = _run("--output", output, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        gone="out")
    assert code == 0, err
    assert "could not be written" not in err and "Traceback" not in err, err

"""``toolhost run`` when the Claude CLI cannot start: one ``toolhost: error:`` line (plus the
CLI's stderr), exit 1 -- never an internal error about an exception group."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.errors import RunnerError, single_error

if sys.version_info < (3, 11):
    from exceptiongroup import ExceptionGroup

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "configs" / "demo.yaml"
SCENARIO = ROOT / "examples" / "scenarios" / "demo.yaml"
TOOLHOST = str(Path(sys.executable).parent / "toolhost")


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("TOOLHOST_DEBUG", "TOOLHOST_CLI")}
    return subprocess.run([TOOLHOST, "run", str(CONFIG), "--script", str(SCENARIO), "-p", "hi",
                           *args], capture_output=True, text=True, timeout=120,
                          env={**clean, **env}, check=False)


def _fails_cleanly(done: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "toolhost: error: " in done.stderr, done.stderr
    for text in expected:
        assert text in done.stderr, done.stderr


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fakecli.sh"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def test_a_cli_that_exits_at_once_is_its_own_error_with_its_stderr(tmp_path: Path) -> None:
    cli = _script(tmp_path, 'echo "error: node not found" >&2; exit 3')
    _fails_cleanly(_run("--cli", cli), "the Claude CLI failed to start", "exit code 3",
                   "error: node not found")


@pytest.mark.parametrize("how", ["flag", "env"])
def test_bin_false_as_the_cli(how: str) -> None:
    done = _run("--cli", "/bin/false") if how == "flag" else _run(TOOLHOST_CLI="/bin/false")
    _fails_cleanly(done, "the Claude CLI failed to start", "exit code 1")


def test_a_cli_that_writes_garbage_then_exits(tmp_path: Path) -> None:
    cli = _script(tmp_path, 'echo garbage; echo "{not json"')
    _fails_cleanly(_run("--cli", cli), "the Claude CLI failed to start")


@pytest.mark.parametrize("cli", ["x" * 5000, "/tmp/" + "x" * 300, "/etc/passwd", "/dev/null"])
def test_a_cli_path_the_os_refuses_or_cannot_run(cli: str) -> None:
    done = _run("--cli", cli)
    _fails_cleanly(done, "no executable file there")
    assert len(done.stderr) < 2000  # a hostile path is not echoed in full


def test_a_cwd_that_does_not_exist(tmp_path: Path) -> None:
    _fails_cleanly(_run("--cwd", str(tmp_path / "nope")), "--cwd", "no such directory")


def test_a_cwd_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    _fails_cleanly(_run("--cwd", str(tmp_path / "file")), "--cwd", "not a directory")


def test_a_cwd_name_too_long() -> None:
    done = _run("--cwd", "y" * 5000)
    _fails_cleanly(done, "--cwd", "no such directory")
    assert len(done.stderr) < 2000


def test_single_error_unwraps_nested_groups_of_one() -> None:
    inner = RunnerError("cannot start")
    wrapped = ExceptionGroup("outer", [ExceptionGroup("inner", [inner])])
    assert single_error(wrapped) is inner
    two = ExceptionGroup("two", [inner, ValueError("x")])
    assert single_error(two) is two
    assert single_error(inner) is inner


@pytest.mark.parametrize("pressed", [False, True])
def test_a_keyboard_interrupt_no_one_pressed_is_said_where_it_was_raised(
        tmp_path: Path, pressed: bool) -> None:
    # lead's leftover (round 7): a tool module raising KeyboardInterrupt as it loads made
    # `run` exit 130 without a word; a real Ctrl-C there still exits 130, as it did
    (tmp_path / "kbi_tool.py").write_text(
        "import os, signal, time\n"
        + ("os.kill(os.getpid(), signal.SIGINT)\ntime.sleep(30)\n" if pressed
           else "raise KeyboardInterrupt\n")
        + "def boom(x: str) -> str:\n    return x\n")
    (tmp_path / "c.yaml").write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n      boom:\n        python: kbi_tool:boom\n")
    clean = {k: v for k, v in os.environ.items() if k not in ("TOOLHOST_DEBUG",)}
    done = subprocess.run([TOOLHOST, "run", str(tmp_path / "c.yaml"), "--script",
                           str(SCENARIO), "-p", "hi"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path, check=False,
                          env={**clean, "PYTHONPATH": str(tmp_path)})
    assert "Traceback" not in done.stderr, done.stderr
    if pressed:
        assert done.returncode == 130, done.stderr
        assert "KeyboardInterrupt" not in done.stderr, done.stderr
    else:
        _fails_cleanly(done, "KeyboardInterrupt raised at ",
                       f"{tmp_path / 'kbi_tool.py'}:2 with no Ctrl-C pressed")


@pytest.mark.parametrize(("raw", "seconds"), [
    ("1.5", 1.5), ("600", 600.0), ("0.5", 0.5), ("", 5.0), ("0.1", 5.0), ("601", 5.0),
    ("nan", 5.0), ("inf", 5.0), ("-3", 5.0), ("five", 5.0)])
def test_the_interrupt_grace_under_p_is_bounded(raw: str, seconds: float) -> None:
    from toolhost.commands.run import interrupt_grace

    assert interrupt_grace({"TOOLHOST_INTERRUPT_GRACE": raw}) == seconds


def test_a_piped_turn_past_the_line_limit_is_skipped_with_bounded_memory(
        capsys: pytest.CaptureFixture[str]) -> None:
    # `tr -d '\n' < big | toolhost run c.yaml`: the piped line was kept whole (unbounded
    # memory, and re-split at every chunk: quadratic time) and sent as one turn
    import threading

    from toolhost.commands.run import _stdin_lines
    from toolhost.runner.terminal import MAX_LINE

    read, write = os.pipe()

    def feed() -> None:
        with os.fdopen(write, "wb") as f:
            f.write(b"first\n" + b"x" * (MAX_LINE * 4) + b"\nlast")

    threading.Thread(target=feed).start()
    try:
        lines = list(_stdin_lines(read))
    finally:
        os.close(read)
    assert lines == ["first", "last", None]
    err = capsys.readouterr().err
    assert f"a turn on stdin was not sent: skipped a line of {MAX_LINE * 4:,} bytes" in err


@pytest.mark.parametrize(("piped", "prompt", "said"), [
    (b"line one\nline two\n", "line one\nline two", ""),
    (b"caf\xc3\xa9 \xff\n\n", "café \ufffd\n", ""),  # one newline taken off, as $(cat) does
    (b"", None, "toolhost run: -p -: the prompt on stdin is empty; nothing was sent"),
    (b" \n\t\n", None, "the prompt on stdin is empty"),
    (b"x" * 300, None, "the prompt on stdin is over the limit of 200 bytes; nothing was sent"),
])
def test_p_dash_reads_the_prompt_from_stdin(
        piped: bytes, prompt: str | None, said: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # `echo "..." | toolhost run c.yaml -p -` sent the model the prompt "-"
    import threading

    from toolhost.commands import run

    monkeypatch.setattr(run, "PROMPT_MAX", 200)
    read, write = os.pipe()

    def feed() -> None:
        with os.fdopen(write, "wb") as f:
            f.write(piped)

    threading.Thread(target=feed).start()
    try:
        assert run._prompt_from_stdin(read) == prompt
    finally:
        os.close(read)
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("prompt", ["", "  \n\t"])
def test_an_empty_p_prompt_is_refused_before_anything_starts(
        prompt: str, capsys: pytest.CaptureFixture[str]) -> None:
    # `-p "$UNSET"` sent the model an empty turn (and it answered one)
    from toolhost.cli import main

    assert main(["run", str(CONFIG), "--cli", "/nonexistent/claude", "-p", prompt]) == 2
    assert "toolhost run: -p: the prompt is empty; nothing was sent" in capsys.readouterr().err

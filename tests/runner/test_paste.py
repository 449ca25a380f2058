"""Bracketed paste at the ``> `` prompt (``toolhost.runner.paste``): a paste is one turn,
through a real pseudo-terminal in its normal line mode."""

from __future__ import annotations

import os
import pty
import select
import termios
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.runner import paste as marks
from toolhost.runner.terminal import Terminal
from toolhost.runner.ttyfd import pending

from .pty_harness import pasting, shown, type_at_prompt, type_at_question

__all__ = ["pasting"]  # the fixture

S, E = marks.START.encode(), marks.END.encode()


def test_a_multi_line_paste_is_one_turn_and_the_marks_are_off_after_each_read(
        pasting: tuple[int, Terminal], monkeypatch: pytest.MonkeyPatch) -> None:
    # round 8 left it: every pasted line was a turn of its own (a 100-line log: 100 turns)
    master, term = pasting
    monkeypatch.setattr(marks, "PASTE_MAX", 300)
    typed = [
        b"fix this: " + S + b"line 1\nline 2\nline 3" + E + b" please\n",  # typed around it
        S + b"one line" + E + b"\n",
        b"plain\n",
        # pastes that carried end marks of their own: their newlines submit nothing
        S + b"a" + E + b"\nrm -rf\n" + E + b"\n",
        S + b"b" + E + b"\nc" + E + b"\nd" + E + b" typed\n",
        S + b"h\n\x04i\n" + E + b"\n",  # a Ctrl-D character in it: not the person's
        # what came behind a carried mark is taken, but never a wait for an end that may
        # not come: the turns typed after it stay turns
        S + b"j" + E + b"\nk\n",
    ]
    refused = [  # each said, nothing sent, the prompt again: the next line typed is the turn
        S + b"a" + b"y" * 5000 + b"\nb" + E + b"\n",  # a line the terminal cut, more after it
        # one line past the limit: the kernel dropped the end mark with the line's end, and
        # the paste swallowed every turn typed after it (its end never came)
        S + b"z" * 5000 + E + b"\n",
        S + b"x\n" * 200 + E + b"\n",  # over PASTE_MAX
        S + b"never ended\n\x04",  # Ctrl-D before the end
    ]
    said: list[str] = []

    async def refuse_then_type(data: bytes) -> None:
        await type_at_prompt(master, term, data)
        out = ""
        while "not sent" not in out:  # the refusal, then a turn typed after it
            await anyio.sleep(0.02)
            while select.select([master], [], [], 0)[0]:
                out += os.read(master, 65536).decode(errors="replace")
        said.append(out)
        os.write(master, b"after\n")

    async def main() -> list[str | None]:
        got: list[str | None] = []
        for data in typed:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(type_at_prompt, master, term, data)
                    got.append(await term.readline("> "))
        async def then_enter() -> None:  # the carried mark's line unfinished: what
            await type_at_prompt(master, term, S + b"e" + E + b"\nf" + E)  # follows waits
            await anyio.sleep(0.1)  # for the person's Enter
            os.write(master, b" g\n")
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(then_enter)
                got.append(await term.readline("> "))
        for data in refused:
            async with anyio.create_task_group() as tg:
                tg.start_soon(refuse_then_type, data)
                with anyio.fail_after(10):
                    got.append(await term.readline("> "))
        return got

    assert anyio.run(main) == ["fix this: line 1\nline 2\nline 3 please", "one line", "plain",
                               "a\nrm -rf\n", "b\nc\nd typed", "h\ni\n", "j\nk", "e\nf g",
                               "after", "after", "after", "after"]
    # the rest of the first ("b" and the end mark) is dropped, never a turn: "after" came next
    assert "(a paste of 1 line (" in said[0] and "whose end was lost: it was not sent" in said[0]
    assert "(a paste of 1 line (4,090 bytes) had a line over the terminal's limit" in said[1]
    out = "".join(said) + shown(master)
    assert out.count("(a paste of 3 lines: one turn)") == 1
    assert "(a paste of 3 lines: one turn; it carried 1 paste end mark of its own, " in out
    assert "it carried 2 paste end marks of its own, read as part of the text)" in out
    assert "it carried 1 Ctrl-D character of its own, read as part of the text)" in out
    assert "(a paste of 201 lines (" in out and "is over the limit of 300 bytes" in out
    assert "(a paste began but its end never came before Ctrl-D: 1 line of it not sent)" in out
    # on before each turn prompt, off after each read: never left on
    assert out.count(marks.ON) == out.count(marks.OFF) > 0
    assert out.rstrip().endswith(marks.OFF)


def test_a_100_kb_paste_is_one_turn(
        pasting: tuple[int, Terminal]) -> None:
    master, term = pasting
    lines = [f"{n:05} " + "z" * 74 for n in range(1300)]  # 104,000 bytes of 80-column lines
    data = S + "\n".join(lines).encode() + E + b"\n"

    echoed = bytearray()

    def type_big() -> None:  # as a terminal emulator: writes the paste, reads the echo
        left = data
        while left:
            readable, writable, _ = select.select([master], [master] if left else [], [], 5)
            if readable:
                echoed.extend(os.read(master, 65536))
            if writable:
                left = left[os.write(master, left[:1024]):]
            if not (readable or writable):
                raise TimeoutError("the terminal took nothing for 5 s")

    async def main() -> tuple[str | None, str | None]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_question, master, term, b"y\n")
            answer = await term.readline("Allow? ", question=True)
        async with anyio.create_task_group() as tg:
            async def typist() -> None:
                while term._scope is None:
                    await anyio.sleep(0.01)
                await anyio.to_thread.run_sync(type_big)
            tg.start_soon(typist)
            with anyio.fail_after(30):
                turn = await term.readline("> ")
        return answer, turn

    answer, turn = anyio.run(main)
    assert answer == "y"
    assert turn == "\n".join(lines)
    said = "(a paste of 1,300 lines: one turn)"
    assert said in echoed.decode() + shown(master, said)


@pytest.mark.parametrize("pasted", [
    S + b"y\n" + E,  # a line copied with its newline: the end mark waits for no Enter
    S + b"y" + E + b"\n",  # a word, then the person's Enter
    S + b"y\ny\ny\n" + E + b"\n",
    S + b"y" + E + b"\ny\n" + E,  # an end mark of its own, more of the paste behind it
    S + b"x\n\x04y\n" + E,  # a Ctrl-D character in it: not the person's
    S + b"z" * 5000 + b"\ny\n" + E,  # a line longer than the terminal keeps
], ids=["line", "word", "lines", "carried-end", "ctrl-d", "long-line"])
def test_a_paste_at_a_question_never_answers_it(pasting: tuple[int, Terminal],
                                                pasted: bytes) -> None:
    # runner15 left it: only what came with the answer while the paste kept coming was
    # dropped; the rest, after a pause of the terminal, answered the next question
    master, term = pasting

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def paste_then_type() -> None:
                await type_at_question(master, term, pasted)
                await anyio.to_thread.run_sync(shown, master, "type the answer")
                os.write(master, b"n\n")
            tg.start_soon(paste_then_type)
            with anyio.fail_after(10):
                return await term.readline("Allow? ", question=True)

    assert anyio.run(main) == "n"
    assert marks.OFF in shown(master)  # marked while asked, and no longer


@pytest.mark.parametrize("pasted", [
    S + b"y" + E,  # a word copied without its newline
    b"n" + S + b"yes" + E,  # typed, then a paste on the same line
    S + b"y" + E + S + b"a" + E,  # two pastes
], ids=["word", "after-typed", "two"])
def test_a_paste_with_no_newline_at_a_question_is_dropped_before_any_enter(
        pasting: tuple[int, Terminal], pasted: bytes) -> None:
    # R17-4: the paste waited in the terminal's line for an Enter, and went with it
    master, term = pasting
    before = termios.tcgetattr(term.read_fd)
    said: list[str] = []

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def paste_then_type() -> None:
                await type_at_question(master, term, pasted)
                said.append(await anyio.to_thread.run_sync(shown, master, "type the answer"))
                os.write(master, b"n\n")
            tg.start_soon(paste_then_type)
            with anyio.fail_after(20):
                return await term.readline("Allow? ", question=True)

    assert anyio.run(main) == "n"
    assert "(ignored a paste of" in said[0]  # with no Enter typed
    assert termios.tcgetattr(term.read_fd) == before  # ESC no longer ends a line


@pytest.mark.parametrize(("typed", "line"), [
    ([b"\x1b[A", b"y\n"], "y"),  # an arrow key does nothing
    ([b"\x1bOA", b"n\n"], "n"),  # an arrow key in application mode (SS3)
    ([b"y\x1b[H", b"\x1b[F", b"\x1b[3~", b"\x1b[1;5D", b"\n"], "y"),  # Home, End, Delete
    ([b"\x1b", b"y\n"], "y"),  # Escape, then a key: the key
    ([b"\x1by", b"\n"], ""),  # Alt+y: nothing (never a y)
    ([b"\x1b\xc3\xa9", b"\n"], ""),  # Alt+é
    ([b"n\x1b", b"\x7f", b"y\n"], "y"),  # Backspace after Escape erases the n
    ([b"no\x1b", b"\x15", b"y\n"], "y"),  # Ctrl-U
    ([b"x yes\x1b", b"\x17", b"\n"], "x "),  # Ctrl-W
    # Alt+Backspace: the word before the cursor, the first one too (R27-3: the terminal's
    # line discipline took the Backspace as it came, on the new empty line the ESC began)
    ([b"ab\x1b\x7f", b"\n"], ""),
    ([b"no way\x1b\x7f", b"\n"], "no "),
    ([b"n\x1b\x1b[B\n"], "n"),
    ([b"\x1b[20x\n"], ""),  # the start of the mark only: a sequence
    ([b"\x1b", b"\x01\x02y\n"], "y"),  # other control characters: nothing
    ([b"\x1b", b"\x04"], None),  # Escape, then Ctrl-D: an empty answer's end of input
    ([b"n\x1b", b"\x04", b"o\n"], "no"),  # Ctrl-D on a non-empty answer: nothing
], ids=["arrow", "ss3", "home-end", "escape", "alt-y", "alt-utf8", "backspace", "ctrl-u",
        "ctrl-w", "alt-backspace", "alt-backspace-word", "two", "near-mark", "controls",
        "ctrl-d", "ctrl-d-late"])
def test_keys_starting_with_escape_at_a_question_edit_the_answer_as_expected(
        pasting: tuple[int, Terminal], typed: list[bytes], line: str | None) -> None:
    # ESC ends a line at a question (a paste's start is seen at once): the rest of the
    # answer was read byte by byte as typed text: Backspace after Escape was a character,
    # an arrow key's bytes and Alt+key were part of the answer (line_edit)
    master, term = pasting
    echo: list[bytes] = []

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def keys() -> None:
                await type_at_question(master, term, typed[0])
                if len(typed) == 1:
                    return  # the whole answer
                while term._edit is None or term._edit.fed < len(typed[0]):
                    await anyio.sleep(0.01)  # the ESC and what came with it were read
                for more in typed[1:]:
                    edit = term._edit
                    assert edit is not None
                    fed = edit.fed + len(more)
                    os.write(master, more)
                    while term._edit is edit and edit.fed < fed:
                        await anyio.sleep(0.01)  # taken, each key on its own
            tg.start_soon(keys)
            with anyio.fail_after(10):
                answer = await term.readline("Allow? ", question=True)
            echo.append(os.read(master, 65536))
            return answer

    assert anyio.run(main) == line
    assert b"\x1b[" not in echo[0].replace(b"\x1b[?2004", b"")  # no sequence echoed raw


def test_ctrl_z_and_fg_at_a_question_after_escape_leave_the_modes_as_they_were(
        pasting: tuple[int, Terminal]) -> None:
    # the byte-by-byte read after ESC put back the modes it began with (ESC a line end)
    # after Ctrl-Z had put the terminal's own back: ESC stayed a line end for the shell
    master, term = pasting
    before = termios.tcgetattr(term.read_fd)
    stopped: list[list[Any]] = []

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def escape_stop_go() -> None:
                await type_at_question(master, term, b"\x1b")
                while term._edit is None or not term._edit.fed:
                    await anyio.sleep(0.01)  # the ESC was read (an Alt+y else)
                term.suspend()  # Ctrl-Z: the shell gets line mode and echo back
                stopped.append(termios.tcgetattr(term.read_fd))
                term.reshow()  # fg
                os.write(master, b"y\n")
            tg.start_soon(escape_stop_go)
            with anyio.fail_after(10):
                return await term.readline("Allow? ", question=True)

    assert anyio.run(main) == "y"  # Escape does nothing (line_edit)
    assert termios.tcgetattr(term.read_fd) == before
    assert stopped[0][3] == before[3]  # (the answer after the Escape is read without echo)


def test_ctrl_d_while_a_paste_at_a_question_is_read_is_no_answer(
        pasting: tuple[int, Terminal]) -> None:
    master, term = pasting

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def paste_then_ctrl_d() -> None:
                while term._edit is None:  # the answer's read, from its first key
                    await anyio.sleep(0.01)
                await type_at_question(master, term, S + b"y\n")
                # read to the start mark, and the rest of the paste awaited byte by byte
                while term._edit is not None or pending(term.read_fd):
                    await anyio.sleep(0.01)
                os.write(master, b"\x04")
            tg.start_soon(paste_then_ctrl_d)
            with anyio.fail_after(10):
                return await term.readline("Allow? ", question=True)

    assert anyio.run(main) is None
    assert "its end never came" in shown(master)


def test_marks_are_turned_off_for_ctrl_z_and_on_again_after_fg(
        pasting: tuple[int, Terminal]) -> None:
    master, term = pasting

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def stop_and_go() -> None:
                while term._scope is None:
                    await anyio.sleep(0.01)
                assert shown(master, marks.ON + "> ").endswith(marks.ON + "> ")
                term.suspend()  # SIGTSTP (run.Signals), before toolhost stops
                assert shown(master, marks.OFF) == marks.OFF
                term.reshow()  # SIGCONT
                assert shown(master, "> ").startswith(marks.ON)
                os.write(master, S + b"p\nq" + E + b"\n")
            tg.start_soon(stop_and_go)
            with anyio.fail_after(10):
                return await term.readline("> ")

    assert anyio.run(main) == "p\nq"
    term.close()
    assert shown(master, marks.OFF).endswith(marks.OFF)


def test_a_resume_in_the_background_writes_nothing_into_the_shells_terminal(
        pasting: tuple[int, Terminal], monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-Z, then `bg`: SIGCONT came while the shell owned the terminal, and toolhost wrote
    # ESC[?2004h and its prompt under the shell's (twice); `fg` shows them again
    from toolhost.runner import terminal_input as terminal

    master, term = pasting

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def stop_bg_fg() -> None:
                await type_at_prompt(master, term, b"")
                assert shown(master, "> ").endswith("> ")
                term.suspend()  # Ctrl-Z
                assert shown(master, marks.OFF) == marks.OFF
                monkeypatch.setattr(terminal, "foreground", lambda fd: False)
                assert term.reshow() is False  # SIGCONT of `bg`
                assert select.select([master], [], [], 0.2)[0] == []
                # `fg` of a job running in the background sends no SIGCONT: the read sees
                # the terminal come back and shows the prompt
                monkeypatch.setattr(terminal, "foreground", lambda fd: True)
                out = ""
                while "> " not in out:  # the read's own check runs on this event loop
                    await anyio.sleep(0.05)
                    while select.select([master], [], [], 0)[0]:
                        out += os.read(master, 65536).decode()
                assert out == marks.ON + "\r\n> "
                os.write(master, b"back\n")
            tg.start_soon(stop_bg_fg)
            with anyio.fail_after(10):
                return await term.readline("> ")

    assert anyio.run(main) == "back"


@pytest.mark.parametrize(("env", "tty_fd", "wanted"), [
    ({"TERM": "xterm-256color"}, True, True),
    ({"TERM": "dumb"}, True, False),
    ({}, True, False),
    ({"TERM": "xterm", "TOOLHOST_BRACKETED_PASTE": "0"}, True, False),
    ({"TERM": "xterm"}, False, False),
])
def test_pastes_are_marked_only_on_a_terminal_that_understands_it(
        env: dict[str, str], tty_fd: bool, wanted: bool) -> None:
    master, slave = pty.openpty()
    r, w = os.pipe()
    try:
        assert marks.wanted(slave if tty_fd else w, env) is wanted
    finally:
        for fd in (master, slave, r, w):
            os.close(fd)


def test_ctrl_z_stops_toolhost_only_where_a_shell_can_resume_it() -> None:
    # Catching SIGTSTP (to turn the marks off) must not stop toolhost where the kernel would
    # have discarded Ctrl-Z: a session leader (tmux or a terminal running it directly, `exec`)
    # would stay stopped for good
    import subprocess
    import sys

    from toolhost.runner import ttyheld

    # the module alone (stdlib only), not the package: a fast start
    code = ("import importlib.util as u; s = u.spec_from_file_location('t', "
            f"{ttyheld.__file__!r}); m = u.module_from_spec(s); s.loader.exec_module(m); "
            "print(m.job_control())")
    led = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         start_new_session=True, check=True, timeout=60)
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, timeout=60)
    assert (led.stdout.strip(), child.stdout.strip()) == ("False", "True")


@pytest.mark.parametrize(("question", "tty", "escape"), [
    (False, False, False), (True, False, False), (True, True, False), (True, False, True)],
    ids=["prompt", "question", "dev-tty-question", "question-after-escape"])
def test_a_kill_9_at_the_prompt_leaves_the_marks_off(question: bool, tty: bool,
                                                     escape: bool) -> None:
    # Nothing in toolhost runs at SIGKILL: its watchdog (which outlives it to kill the
    # tools) turns the marks off, or a shell without readline (sh, dash) would get every
    # paste wrapped in ESC[200~ ... ESC[201~
    import signal
    import subprocess
    import sys
    import termios
    import time

    master, slave = pty.openpty()
    code = f"""
import os, anyio
from toolhost.backends import watchdog
from toolhost.runner.terminal import Terminal
from toolhost.runner.ttyfd import pending
if {tty}:  # turns piped in: questions on /dev/tty (named so to the watchdog it was not)
    import fcntl, termios
    os.setsid()
    fcntl.ioctl(os.open({os.ttyname(slave)!r}, os.O_RDWR), termios.TIOCSCTTY, 0)
fd = os.open("/dev/tty" if {tty} else {os.ttyname(slave)!r},
             os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
watchdog.opened(0, "r10-marks-{os.getpid()}")  # the CLI's run starts it
anyio.run(lambda: Terminal(fd, fd, paste=True).readline("> ", question={question}))
"""
    before = termios.tcgetattr(slave)
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        assert shown(master, marks.ON + "> ").endswith(marks.ON + "> ")
        # the signal keys were read as keys at the prompt (ISIG off), ESC ended a line at a
        # question: put back too
        modes = termios.tcgetattr(slave)
        assert (modes[6][termios.VEOL] == b"\x1b") if question else \
            not modes[3] & termios.ISIG
        if escape:  # the answer then read byte by byte, without echo (line_edit)
            os.write(master, b"\x1b")
            deadline = time.monotonic() + 10
            while termios.tcgetattr(slave)[3] & termios.ICANON and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not termios.tcgetattr(slave)[3] & (termios.ICANON | termios.ECHO)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
        assert shown(master, marks.OFF).endswith(marks.OFF)
        deadline = time.monotonic() + 10  # the watchdog sets the modes just after the write
        # (but IUTF8, on while the prompt is read: the shell's line editing then takes
        # a UTF-8 character whole too, as most terminals have it anyway)
        while _no_utf8(termios.tcgetattr(slave)) != before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _no_utf8(termios.tcgetattr(slave)) == before
    finally:
        child.kill()
        child.wait()
        os.close(master)
        os.close(slave)


def _no_utf8(modes: list[Any]) -> list[Any]:
    return [modes[0] & ~0x4000, *modes[1:]]  # IUTF8 (termios names it from python 3.13 on)


def test_ctrl_c_and_ctrl_z_inside_a_paste_are_text_and_typed_ones_still_signal(
        pasting: tuple[int, Terminal]) -> None:
    # round 10 left it: a Ctrl-C (or Ctrl-Z) inside pasted text was a signal to the kernel
    # before toolhost read it: the paste's start was flushed and the rest read as typed
    # turns. While the prompt is read the keys are line ends (ISIG off), told apart here.
    import signal
    import termios

    master, term = pasting
    before = termios.tcgetattr(term.read_fd)
    pasted = [
        S + b"line one\x03touch /tmp/x\nmore" + E + b"\n",  # runner10's tmux probe
        S + b"\x1astop\x1cquit\x03" + E + b" typed\n",  # each key, one at the very start
        S + b"a" + E + b"\x03b" + E + b"\n",  # after a carried end mark, more behind it
    ]
    # the person's keys (nothing of a paste behind them): the line dropped, the signal sent
    typed = [(b"half a turn\x03", signal.SIGINT), (S + b"pasted" + E + b"\x03", signal.SIGINT),
             (b"\x1a", signal.SIGTSTP), (b"quit \x1c me\n", signal.SIGQUIT),
             (S + b"no end yet\n", 0), (b"\x03", signal.SIGINT)]  # Ctrl-C awaiting its end
    during: list[int] = []

    async def main() -> tuple[list[str | None], list[int]]:
        got: list[str | None] = []
        for data in pasted:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(type_at_prompt, master, term, data)
                    got.append(await term.readline("> "))
        signals: list[int] = []
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTSTP,
                                        signal.SIGQUIT) as received:
            async def type_keys() -> None:
                for data, signum in typed:
                    await type_at_prompt(master, term, data)
                    during.append(termios.tcgetattr(term.read_fd)[3] & termios.ISIG)
                    if signum:
                        async for got_signum in received:
                            signals.append(got_signum)
                            break
                    else:
                        await anyio.sleep(0.1)
                os.write(master, b"the turn\n")
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(type_keys)
                    got.append(await term.readline("> "))
        return got, signals

    got, signals = anyio.run(main)
    assert got == ["line onetouch /tmp/x\nmore", "stopquit typed", "ab", "the turn"]
    assert signals == [signum for _, signum in typed if signum]
    out = shown(master)
    assert "it carried 1 Ctrl-C, Ctrl-Z or Ctrl-\\ character of its own" in out
    assert "it carried 3 Ctrl-C, Ctrl-Z or Ctrl-\\ characters of its own" in out
    assert during and not any(during)  # off while the prompt is read ...
    assert termios.tcgetattr(term.read_fd) == before  # ... and as it was after each read


def test_a_paste_at_a_question_on_dev_tty_never_answers_it(tmp_path: Path) -> None:
    # Turns from a pipe (or -p with stdin not a terminal): questions are asked on /dev/tty,
    # and pastes were never marked there, so a pasted "y" and more lines answered "y"
    import fcntl
    import subprocess
    import time

    from tests.runner.cli_harness import ASKS, CONFIG, TOOLHOST, fake_cli, read_until

    cli = fake_cli(tmp_path, ASKS)
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    master, slave = pty.openpty()
    name = os.ttyname(slave)

    def own_terminal() -> None:  # the controlling terminal, not on stdin
        os.setsid()
        fd = os.open(name, os.O_RDWR)
        fcntl.ioctl(fd, termios.TIOCSCTTY, 0)

    try:
        with subprocess.Popen([TOOLHOST, "run", str(config), "--cli", str(cli), "-p", "go"],
                              stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                              preexec_fn=own_terminal,
                              env={**os.environ, "FAKE_LOG": str(tmp_path / "cli.log"),
                                   "TERM": "xterm"}) as process:
            try:
                asked = read_until(master, "deny: ")
                # a terminal marks a paste when asked to (ESC[?2004h), as an emulator does
                marked = marks.ON in asked
                os.write(master, S + b"y\nmore\n" + E if marked else b"y\nmore\n")
                assert marked, asked
                assert "type the answer" in read_until(master, "type the answer")
                # "n" until it ends: keys typed while the paste was still being dropped are
                # dropped with it (what came with the paste), and the question waits on
                deadline = time.monotonic() + 30
                while process.poll() is None and time.monotonic() < deadline:
                    os.write(master, b"n\n")
                    read_until(master, "deny: ", 1)
                assert process.wait(timeout=5) == 1
            finally:
                if process.poll() is None:
                    process.kill()
    finally:
        os.close(master)
        os.close(slave)
    log = (tmp_path / "cli.log").read_text()
    assert '"behavior": "deny"' in log.replace('":"', '": "') and '"allow"' not in log


@pytest.mark.parametrize(("typed", "turn", "keys"), [
    (b"fix\x1b[A\x1b[D it\n", "fix it", 2),  # arrow keys
    (b"\x1b[Hgo\x1b[F\x1b[3~\n", "go", 3),  # Home, End, Delete
    (b"a\x1bb\x1bOP c\n", "a c", 2),  # Alt+b, F1 (SS3)
    (b"plain\n", "plain", 0),
    (S + b"pasted \x1b[A kept" + E + b"\n", "pasted \x1b[A kept", 0),  # a paste is as pasted
], ids=["arrows", "home-end-delete", "alt-ss3", "plain", "paste"])
def test_keys_with_escape_sequences_at_the_prompt_are_never_sent(
        pasting: tuple[int, Terminal], typed: bytes, turn: str, keys: int) -> None:
    # there is no cursor movement nor history at the prompt: an arrow key's bytes went into
    # the turn sent to the model (``\x1b[A``)
    master, term = pasting

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_prompt, master, term, typed)
            with anyio.fail_after(10):
                return await term.readline("> ")

    assert anyio.run(main) == turn
    said = shown(master, "line here)" if keys else None)  # (echo and note: separate reads)
    assert (f"(ignored {keys} key" in said) == bool(keys)

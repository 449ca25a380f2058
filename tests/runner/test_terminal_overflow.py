"""A paste at a permission question larger than the terminal's input buffer (4 KiB on Linux).

The terminal (here: a thread writing to the pty's master end, blocking as an emulator does)
cannot hand it over at once: the rest comes as the buffer is read. Only what was in the
buffer when the answer was read was dropped; the rest became the next turn, answered the
next question ("y" lines approving later calls), or was left for the shell after ``-p``."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import threading
import time
from collections.abc import Iterator

import anyio
import pytest

from toolhost.runner import paste as marks
from toolhost.runner.terminal import Terminal
from toolhost.runner.ttyfd import pending, pending_with_partial

from .pty_harness import type_at_prompt

S, E = marks.START.encode(), marks.END.encode()
LINES = 3000  # "y\n" each: 6,000 bytes, more than the terminal's buffer holds


class Screen:
    """A pty whose output is read all along (its echo must not fill up and stall input),
    and pastes written as an emulator writes them: as fast as the terminal takes them."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        os.set_blocking(self.master, False)
        self.text = ""
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read, daemon=True)]
        self._threads[0].start()

    def _read(self) -> None:
        while not self._stop.is_set():
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.master, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return
            with self._changed:
                self.text += data.decode(errors="replace")
                self._changed.notify_all()

    def _write(self, data: bytes) -> None:
        while data and not self._stop.is_set():
            if select.select([], [self.master], [], 0.05)[1]:
                with contextlib.suppress(BlockingIOError):
                    data = data[os.write(self.master, data):]

    def wait_for(self, text: str, start: int = 0) -> int:
        """Where ``text`` shows (found after ``start``), once it has."""
        with self._changed:
            assert self._changed.wait_for(lambda: text in self.text[start:], 20), self.text
            return self.text.index(text, start)

    def paste(self, data: bytes) -> threading.Thread:
        writer = threading.Thread(target=self._write, args=(data,), daemon=True)
        self._threads.append(writer)
        writer.start()
        return writer

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(5)
        os.close(self.slave)
        os.close(self.master)


@pytest.fixture
def screen() -> Iterator[Screen]:
    s = Screen()
    try:
        yield s
    finally:
        s.close()


def _paste_at_question(screen: Screen, term: Terminal) -> None:
    screen.wait_for("Q1? ")
    screen.paste(b"y\n" * LINES)


def test_the_rest_of_a_big_paste_at_a_question_is_never_the_next_turn(
        screen: Screen) -> None:
    term = Terminal(screen.slave, screen.slave, paste=False)  # the time rule

    async def main() -> list[str | None]:
        got: list[str | None] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, _paste_at_question, screen, term)
            got.append(await term.readline("Q1? ", question=True))
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(type_at_prompt, screen.master, term, b"the next turn\n")
                got.append(await term.readline("> "))
                tg.cancel_scope.cancel()  # read a line of the paste: nothing left to type
        return got

    assert anyio.run(main) == ["y", "the next turn"]
    screen.wait_for("the next turn")  # its echo follows what the terminal said before it
    # (read by the screen's own thread: it may lag the terminal under load)
    # every character of the paste but the answer is said dropped: at once, or (a loaded
    # machine pausing the paste's writer past the time rule's 0.1 s) in more than one part
    assert "characters that came with the answer" in screen.text
    said = [int(n) for n in re.findall(r"\(ignored (\d+) characters", screen.text)]
    assert sum(said) == 2 * LINES - 2, said


def _pause_mid_paste(screen: Screen) -> None:
    # A terminal that marks pastes, pausing mid-paste (a slow or loaded emulator): it writes
    # the rest only once the terminal has taken all it was given (read, or dropped), however
    # long that takes. Before the marks were read at a question, the answer's drop ended at
    # the pause and the rest of the paste answered the next question with "y".
    screen.wait_for("Q1? ")
    # all of the first part written: the line discipline has it (a question's answer is
    # read without the terminal's echo: nothing of a paste is shown)
    screen.paste(S + b"y\n" * 500 + b"PAUSE\n").join(20)
    deadline = time.monotonic() + 20  # (a terminal that never gets it read goes on)
    while pending(screen.slave) > 0 and time.monotonic() < deadline:  # read or dropped
        time.sleep(0.01)
    screen.paste(b"y\n" * 500 + E)


def test_the_rest_of_a_paste_never_answers_the_next_question(screen: Screen) -> None:
    term = Terminal(screen.slave, screen.slave, paste=True)

    async def type_at(prompt: str, typed: bytes, after: str = "") -> None:
        start = await anyio.to_thread.run_sync(screen.wait_for, after) if after else 0
        await anyio.to_thread.run_sync(screen.wait_for, prompt, start)
        os.write(screen.master, typed)

    async def main() -> list[str | None]:
        got: list[str | None] = []
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(anyio.to_thread.run_sync, _pause_mid_paste, screen)
                # the person types once the question is asked again
                tg.start_soon(type_at, "Q1? ", b"n\n", "type the answer")
                got.append(await term.readline("Q1? ", question=True))
            async with anyio.create_task_group() as tg:
                tg.start_soon(type_at, "Q2? ", b"a\n")
                got.append(await term.readline("Q2? ", question=True))
        return got

    assert anyio.run(main) == ["n", "a"]
    size = len(S) + 2 * 500 + len("PAUSE\n") + 2 * 500 + len(E)
    assert f"(ignored a paste of {size:,} bytes at the question" in screen.text


def test_the_rest_of_a_big_paste_is_not_left_for_the_shell(screen: Screen) -> None:
    term = Terminal(screen.slave, screen.slave, paste=False)  # the time rule

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, _paste_at_question, screen, term)
            return await term.readline("Q1? ", question=True)

    assert anyio.run(main) == "y"
    term.close()  # -p: the run ends after this answer
    screen.wait_for(f"(ignored {2 * LINES - 2} characters that came with the answer to a "
                    "question: they are not sent, nor left for the shell)")
    assert pending_with_partial(screen.slave) == 0

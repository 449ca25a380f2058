"""A paste at a permission question larger than the terminal's input buffer (4 KiB on Linux).

The terminal (here: a thread writing to the pty's master end, blocking as an emulator does)
cannot hand it over at once: the rest comes as the buffer is read. Only what was in the
buffer when the answer was read was dropped; the rest became the next turn, answered the
next question ("y" lines approving later calls), or was left for the shell after ``-p``."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import threading
from collections.abc import Iterator

import anyio
import pytest

from toolhost.runner.terminal import Terminal
from toolhost.runner.ttyfd import pending_with_partial

from .pty_harness import type_at_prompt

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

    def paste(self, data: bytes) -> None:
        writer = threading.Thread(target=self._write, args=(data,), daemon=True)
        self._threads.append(writer)
        writer.start()

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
    term = Terminal(screen.slave, screen.slave)

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
    assert f"(ignored {2 * LINES - 2} characters that came with the answer" in screen.text


def test_the_rest_of_a_big_paste_never_answers_the_next_question(screen: Screen) -> None:
    term = Terminal(screen.slave, screen.slave)

    async def main() -> list[str | None]:
        got: list[str | None] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, _paste_at_question, screen, term)
            got.append(await term.readline("Q1? ", question=True))
        async with anyio.create_task_group() as tg:
            async def answer() -> None:  # once the second question is on the screen
                await anyio.to_thread.run_sync(screen.wait_for, "Q2? ")
                os.write(screen.master, b"n\n")
            tg.start_soon(answer)
            with anyio.fail_after(20):
                got.append(await term.readline("Q2? ", question=True))
            tg.cancel_scope.cancel()
        return got

    assert anyio.run(main) == ["y", "n"]


def test_the_rest_of_a_big_paste_is_not_left_for_the_shell(screen: Screen) -> None:
    term = Terminal(screen.slave, screen.slave)

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, _paste_at_question, screen, term)
            return await term.readline("Q1? ", question=True)

    assert anyio.run(main) == "y"
    term.close()  # -p: the run ends after this answer
    screen.wait_for(f"(ignored {2 * LINES - 2} characters that came with the answer to a "
                    "question: they are not sent, nor left for the shell)")
    assert pending_with_partial(screen.slave) == 0

"""Keys the terminal took in its line mode before a question's answer is read key by key.

The kernel keeps a Ctrl-D typed in line mode as a NUL byte marking an end of input; once line
mode is off for the answer (``line_edit``) that NUL was all the reader saw: the Ctrl-D a
person typed ended nothing, and the question waited for ever.
"""

from __future__ import annotations

import os
import select
import termios

import anyio

from toolhost.runner.terminal import Terminal
from toolhost.runner.ttyfd import pending

from .pty_harness import tty

__all__ = ["tty"]  # the fixture


def _taken(term: Terminal) -> None:
    """Wait until the kernel has taken what was written (a pty takes it a moment later):
    the terminal is readable in line mode (a Ctrl-D alone counts as nothing in ``pending``)."""
    select.select([term.read_fd], [], [], 10)


def test_ctrl_d_the_terminal_took_before_the_question_ends_the_input(
        tty: tuple[int, Terminal]) -> None:
    master, term = tty
    os.write(master, b"\x04")
    _taken(term)

    async def main() -> str | None:
        with anyio.fail_after(10):  # (a hang guard: the old reader never returned)
            return await term.readline("Reason: ", question=True, keep_typeahead=True)

    assert anyio.run(main) is None
    assert termios.tcgetattr(term.read_fd)[3] & termios.ICANON  # line mode back


def test_keys_typed_ahead_in_line_mode_are_edited_as_typed(tty: tuple[int, Terminal]) -> None:
    # "n", Enter, Ctrl-D at once: the reason is skipped (end of input), not left waiting
    master, term = tty
    os.write(master, b"\x04never mind\n")
    _taken(term)
    while not pending(term.read_fd):
        select.select([], [], [], 0.01)

    async def main() -> str | None:
        with anyio.fail_after(10):
            return await term.readline("Reason: ", question=True, keep_typeahead=True)

    assert anyio.run(main) is None
    # what came after the end of input is no turn: dropped at the next prompt
    os.write(master, b"next\n")

    async def turn() -> str | None:
        with anyio.fail_after(10):
            return await term.readline("> ")

    assert anyio.run(turn) == "next"


def test_a_reason_typed_ahead_keeps_its_text_round_a_ctrl_d(tty: tuple[int, Terminal]) -> None:
    # Ctrl-D on a line not empty ends nothing (as the editor takes it when typed live)
    master, term = tty
    os.write(master, b"too\x04 wide\n")
    while not pending(term.read_fd):
        select.select([], [], [], 0.01)

    async def main() -> str | None:
        with anyio.fail_after(10):
            return await term.readline("Reason: ", question=True, keep_typeahead=True)

    assert anyio.run(main) == "too wide"


def test_ctrl_d_typed_while_stopped_ends_the_answer_after_fg(tty: tuple[int, Terminal]) -> None:
    # Ctrl-Z gives the terminal its line mode back; a Ctrl-D the kernel takes then (between
    # fg and the answer's modes set again) is the person's end of input
    master, term = tty

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def stop_type_go() -> None:
                while term._edit is None:
                    await anyio.sleep(0.01)
                term.suspend()  # Ctrl-Z
                os.write(master, b"\x04")
                _taken(term)
                term.reshow()  # fg
            tg.start_soon(stop_type_go)
            with anyio.fail_after(10):
                return await term.readline("Allow? ", question=True)

    assert anyio.run(main) is None

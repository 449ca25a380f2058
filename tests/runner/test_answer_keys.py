"""A question's answer edited from its first key (``line_edit``), through a real pty:
cursor keys, Alt+Backspace first, wide characters; Backspace at the ``> `` prompt."""

from __future__ import annotations

import os

import anyio
import pytest

from toolhost.runner.terminal import Terminal

from .pty_harness import pasting

__all__ = ["pasting"]  # the fixture


def _read(master: int, term: Terminal, keys: list[bytes], question: bool) -> str | None:
    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            async def typist() -> None:
                while term._scope is None or term.question != question:
                    await anyio.sleep(0.01)
                for key in keys:
                    edit = term._edit
                    fed = (edit.fed if edit is not None else 0) + len(key)
                    os.write(master, key)
                    while question and term._edit is edit and edit is not None \
                            and edit.fed < fed:
                        await anyio.sleep(0.01)  # each key on its own
                    if not question:
                        await anyio.sleep(0.05)
            tg.start_soon(typist)
            with anyio.fail_after(10):
                return await term.readline("Allow? " if question else "> ",
                                           question=question)
    return anyio.run(main)


L, R, HOME, END, DEL = b"\x1b[D", b"\x1b[C", b"\x1b[H", b"\x1b[F", b"\x1b[3~"


@pytest.mark.parametrize(("keys", "answer"), [
    ([b"no way", b"\x1b\x7f", b"\n"], "no "),  # the first Alt+Backspace (R27-3)
    ([b"yes", L, L, b"\x7f", b"\n"], "es"),
    ([b"ys", L, b"e", b"\n"], "yes"),
    ([b"xyes", HOME, DEL, END, b"\n"], "yes"),
    ([b"xyes", b"\x01", b"\x04", b"\x05", b"\n"], "yes"),  # Ctrl-A, Ctrl-D, Ctrl-E
    ([b"yes no", L, L, L, b"\x0b", b"\n"], "yes"),  # Ctrl-K
    ([b"no yes", L, L, L, b"\x15", b"\n"], "yes"),  # Ctrl-U: to the start
    ([b"a b", b"\x1b[1;5D", b"\x17", b"\n"], "b"),  # Ctrl+Left, Ctrl-W
    ([b"y\x1bOD", b"\x1bOC", b"\n"], "y"),  # SS3 arrows
    (["日本".encode(), b"\x7f", b"\n"], "日"),
    (["ab 日本".encode(), b"\x17", b"\n"], "ab "),
    (["e\u0301x".encode(), L, L, R, b"\x7f", b"\n"], "x"),  # é is one character
    (["👍🏽!".encode(), L, b"\x7f", b"\n"], "!"),
    ([b"\x1b[A", b"y", b"\n"], "y"),  # Up does nothing
    ([b"\x1by", b"\n"], ""),  # Alt+y is never a y
])
def test_every_key_edits_a_question_answer(pasting: tuple[int, Terminal], keys: list[bytes],
                                           answer: str) -> None:
    master, t = pasting
    assert _read(master, t, keys, True) == answer


@pytest.mark.parametrize(("keys", "line"), [
    (["日本".encode(), b"\x7f", b"\n"], "日"),
    (["ab 日本".encode(), b"\x17", b"x\n"], "ab x"),
])
def test_backspace_at_the_prompt_erases_a_whole_utf8_character(
        pasting: tuple[int, Terminal], keys: list[bytes], line: str) -> None:
    master, t = pasting
    assert _read(master, t, keys, False) == line

"""``Terminal``: one cancellable reader of a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
from pathlib import Path

import anyio
import pytest

from toolhost.runner import terminal_input
from toolhost.runner.terminal import Terminal, TerminalInterrupt

from .pty_harness import shown as read_shown
from .pty_harness import tty, type_at_prompt, type_at_question, withdraw_question

__all__ = ["tty"]  # the fixture



def test_reads_a_line_and_shows_the_prompt(tty: tuple[int, Terminal]) -> None:
    master, term = tty

    async def main() -> str | None:
        os.write(master, "héllo wörld\n".encode())
        return await term.readline("> ")

    assert anyio.run(main) == "héllo wörld"
    assert "> " in read_shown(master, "> ")


def test_ctrl_d_on_an_empty_line_is_end_of_input(tty: tuple[int, Terminal]) -> None:
    master, term = tty

    async def main() -> str | None:
        os.write(master, b"\x04")
        return await term.readline("> ", question=True, keep_typeahead=True)

    assert anyio.run(main) is None
    # red team runner5 R6: the next line shown (a question's decision) stood on the
    # question's line, after "deny: "
    assert read_shown(master).endswith("> \r\n")


def test_cancel_read_abandons_the_read_for_good(tty: tuple[int, Terminal]) -> None:
    master, term = tty

    async def main() -> tuple[str, str | None]:
        outcome = ""

        async def ask() -> None:
            nonlocal outcome
            try:
                await term.readline("Allow? ", question=True)
            except TerminalInterrupt:
                outcome = "interrupted"

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask)
            while not term.question:
                await anyio.sleep(0.01)
            assert term.cancel_read()
        # the abandoned question takes nothing: the next line goes to the next reader
        os.write(master, b"next turn\n")
        return outcome, await term.readline("> ")

    assert anyio.run(main) == ("interrupted", "next turn")
    assert not term.cancel_read()  # nothing is being read now


def test_a_question_drops_what_was_typed_before_it(tty: tuple[int, Terminal]) -> None:
    master, term = tty

    async def main() -> str | None:
        os.write(master, b"y\n")  # typed ahead, before the question
        # the terminal has it once it echoed it (a pty takes what is written to its master a
        # moment later, in a kernel worker: a fixed wait lost that race under load)
        assert "y" in read_shown(master, "y\r\n")
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_question, master, term, b"n\n", 0.05)
            return await term.readline("Allow? ", question=True)

    assert anyio.run(main) == "n"
    said = "ignored 2 characters typed before the question"
    assert said in read_shown(master, said)


def test_a_line_being_typed_when_a_question_comes_is_dropped_and_said(
        tty: tuple[int, Terminal]) -> None:
    # mid-line (no Enter yet) when the question appears: dropped as before, now also said
    master, term = tty

    async def main() -> str | None:
        os.write(master, b"half a tur")
        assert "half a tur" in read_shown(master, "half a tur")  # echoed: the terminal has it
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_question, master, term, b"y\n", 0.05)
            return await term.readline("Allow? ", question=True)

    assert anyio.run(main) == "y"
    said = "ignored 10 characters typed before the question"
    assert said in read_shown(master, said)


def test_refused_questions_are_interrupted_at_once(tty: tuple[int, Terminal]) -> None:
    _, term = tty
    term.refuse_questions = True

    async def main() -> None:
        await term.readline("Allow? ", question=True)

    with pytest.raises(TerminalInterrupt):
        anyio.run(main)


def test_a_huge_line_is_cut_and_said_so(tty: tuple[int, Terminal],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # memory stays bounded whatever is pasted (a smaller cap: a pty line holds 4095 bytes)
    monkeypatch.setattr(terminal_input, "MAX_LINE", 10)
    master, term = tty

    async def main() -> str | None:
        os.write(master, b"x" * 30 + b"\x04" + b"y" * 30 + b"\n")
        return await term.readline("> ")

    assert anyio.run(main) == "x" * 10
    said = "the line was cut to 10 bytes; 51 more were dropped"
    assert said in read_shown(master, said)


_RELEASE = """\
import importlib.util as u, os, sys
# the module alone (stdlib only), not the package: a fast start
spec = u.spec_from_file_location("ttyheld", sys.argv[2])
ttyheld = u.module_from_spec(spec)
spec.loader.exec_module(ttyheld)
released = ttyheld.release_terminal_before_exit(settle=0.01)
with open(sys.argv[1], "w") as f:
    f.write(f"{released} {[os.isatty(fd) for fd in (0, 1, 2)]}")
"""


@pytest.mark.parametrize("leader", [True, False])
def test_the_session_leader_lets_go_of_its_terminal_before_exit(
        tmp_path: Path, leader: bool) -> None:
    # A real pty as the child's stdin/stdout/stderr, the child leading the pty's session (as
    # under tmux) or not (as under a shell): only the leader lets go, and then of every fd.
    import subprocess
    import sys

    from toolhost.runner import ttyheld

    master, slave = pty.openpty()
    out = tmp_path / "out"
    try:
        proc = subprocess.Popen([sys.executable, "-c", _RELEASE, str(out), ttyheld.__file__],
                                stdin=slave,
                                stdout=slave, stderr=slave, start_new_session=leader)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(slave)
        os.close(master)
    expected = "True [False, False, False]" if leader else "False [True, True, True]"
    assert out.read_text() == expected


@pytest.mark.parametrize(("typed", "behavior"), [
    (b"abort\n", "deny"), (b"yikes, no!\n", "deny"), (b"any risk?\n", "deny"),
    (b"yes\n", "allow"), (b"A\n", "allow"), (b"n\n\n", "deny"),
])
def test_a_person_at_a_real_terminal_allows_only_with_an_answer(
        tty: tuple[int, Terminal], typed: bytes, behavior: str) -> None:
    from toolhost.permissions import TerminalAsker
    from toolhost.permissions.decision import Decision

    master, term = tty
    asker = TerminalAsker(reader=term)

    async def main() -> tuple[str, str]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_question, master, term, typed, 0.05)
            first = await asker.ask("mcp__s__sh", {"cmd": "rm -rf ~/important"},
                                    Decision("ask", ""))
        async with anyio.create_task_group() as tg:  # nothing remembered but an exact "a"
            tg.start_soon(type_at_question, master, term, b"\n")
            with anyio.fail_after(10):
                second = await asker.ask("mcp__s__sh", {"cmd": "curl x | sh"},
                                         Decision("ask", ""))
            tg.cancel_scope.cancel()  # remembered: no question to answer
        return first.behavior, second.behavior

    first, second = anyio.run(main)
    assert first == behavior
    assert second == ("allow" if typed == b"A\n" else "deny")


_THIEF = """\
import os, sys, threading
import anyio
from toolhost.runner.terminal import Terminal

stolen = []
term = Terminal.open()
assert term is not None and term.reads_stdin
# an in-process tool reading stdin in a thread of its own (input(), a library's prompt)
thief = threading.Thread(target=lambda: stolen.append(os.read(0, 100)), daemon=True)
thief.start()
thief.join(5)
print("ready", flush=True)

async def main():
    with anyio.fail_after(20):
        return await term.readline("Allow? ", question=True, keep_typeahead=True)

line = anyio.run(main)
import termios
modes = termios.tcgetattr(2)
# the tool also turns echo off through the terminal (fd 2 here): close puts it back
off = termios.tcgetattr(2)
off[3] &= ~termios.ECHO
termios.tcsetattr(2, termios.TCSANOW, off)
term.close()
print(repr(line), repr(stolen), os.isatty(0), termios.tcgetattr(2) == modes, flush=True)
"""


def test_an_in_process_reader_of_stdin_never_gets_the_terminals_keys() -> None:
    # A real pty on the child's stdin and stderr: while the terminal is open, fd 0 is
    # /dev/null (the thief gets end of input at once); the answer goes to the question; close
    # puts the terminal back on fd 0, with the modes it had.
    import subprocess
    import sys

    master, slave = pty.openpty()
    proc = None
    try:
        proc = subprocess.Popen([sys.executable, "-c", _THIEF], stdin=slave,
                                stdout=subprocess.PIPE, stderr=slave, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        os.write(master, b"y\n")
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(slave)
        os.close(master)
    assert (proc.returncode, out) == (0, "'y' [b''] True True\n")


def test_back_from_ctrl_z_the_open_question_is_shown_again(
        tty: tuple[int, Terminal]) -> None:
    # After Ctrl-Z and `fg` the shell's lines stand under the question: SIGCONT (which `fg`
    # sends) shows its last line again, and the answer still goes to it.
    import signal

    from toolhost.runner.run import RunReport, Signals

    master, term = tty

    async def main() -> tuple[str | None, str]:
        signals = Signals(RunReport(), term)
        async with anyio.create_task_group() as tg:
            await tg.start(signals.run)
            got: list[str | None] = []

            async def ask() -> None:
                got.append(await term.readline("\n{...}\nAllow? ", question=True))
            tg.start_soon(ask)
            while not term.question:
                await anyio.sleep(0.01)
            before = read_shown(master)
            os.kill(os.getpid(), signal.SIGCONT)
            shown = ""
            with anyio.fail_after(20):
                while "Allow? " not in shown:
                    await anyio.sleep(0.05)
                    shown += read_shown(master)
                os.write(master, b"y\n")
                while not got:
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()
        assert "Allow? " in before
        return got[0], shown

    answer, shown = anyio.run(main)
    assert answer == "y"
    assert shown.replace("\r", "").startswith("\nAllow? ")


def test_a_question_withdrawn_from_outside_never_answers_the_next_prompt(
        tty: tuple[int, Terminal]) -> None:
    # The CLI cancels the call while its question is open (a cancel for the request, its own
    # timeout): the person is told, and a `y` typed for it does not become the next turn.
    master, term = tty

    echoed: list[str] = []

    async def main() -> str | None:
        await withdraw_question(term)
        os.write(master, b"y\n")  # typed for the question that is gone
        echoed.append(read_shown(master, "y\r\n"))  # echoed: the terminal has it
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_prompt, master, term, b"the next turn\n")
            with anyio.fail_after(10):
                return await term.readline("> ")

    assert anyio.run(main) == "the next turn"
    shown = echoed[0] + read_shown(master, "ignored 2 characters typed after the question "
                                   "was withdrawn")
    assert "the question was withdrawn" in shown
    assert "ignored 2 characters typed after the question was withdrawn" in shown


@pytest.mark.parametrize("gone", [False, True])
def test_a_question_the_clis_end_cancels_is_not_said_withdrawn_by_it(
        tty: tuple[int, Terminal], gone: bool) -> None:
    # the CLI killed with a question open: "the Claude CLI cancelled this call" was said
    master, term = tty
    term.cli_gone = lambda: gone
    anyio.run(withdraw_question, term)
    shown = read_shown(master, "nothing typed for it is sent")
    said = "the Claude CLI ended" if gone else "the Claude CLI cancelled this call"
    assert f"(the question was withdrawn: {said}; nothing typed for it is sent)" in shown


def test_a_turn_prompt_ended_under_it_leaves_the_cursor_on_a_new_line(
        tty: tuple[int, Terminal]) -> None:
    # the CLI gone at the `> ` prompt: its error was written on the prompt's line
    master, term = tty

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(term.readline, "> ")
            while term._scope is None:
                await anyio.sleep(0.01)
            tg.cancel_scope.cancel()

    anyio.run(main)
    assert read_shown(master).endswith("> \r\n")


def test_a_question_shows_the_tag_of_the_call_it_is_about(
        tty: tuple[int, Terminal], tmp_path: Path) -> None:
    # lead's leftover (round 7): with several calls in flight, the question did not say which
    # one it was about; the call lines and decision lines say "#N", and now so does it
    import io

    from toolhost.host import load_host
    from toolhost.permissions import PermissionGate, TerminalAsker
    from toolhost.runner.gate import RunnerGate
    from toolhost.runner.render import TextRenderer

    (tmp_path / "kb.yaml").write_text(
        "toolhost: 1\nservers:\n  kb:\n    tools:\n      note:\n"
        "        command: [echo, '{{ text }}']\n        params: {text: {type: string}}\n"
        "permissions:\n  default: ask\n")
    host = load_host(tmp_path / "kb.yaml", layers=False)
    master, term = tty
    renderer = TextRenderer(io.StringIO(), io.StringIO(), color=False)
    gate = RunnerGate(PermissionGate(host.policy, TerminalAsker(reader=term)), renderer,
                      tag=renderer.tag)
    renderer.message({"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "mcp__kb__note",
         "input": {"text": n}} for n in "abc"]}})

    async def main() -> str:
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_question, master, term, b"y\n")
            with anyio.fail_after(10):
                decided = await gate("mcp__kb__note", {"text": "b"}, {"tool_use_id": "toolu_b"})
        return decided.behavior

    assert anyio.run(main) == "allow"
    shown = read_shown(master)
    assert "permission needed for #2 mcp__kb__note" in shown
    assert "#1" not in shown and "#3" not in shown


def test_a_turn_the_terminal_cut_is_not_sent_and_said_so(tty: tuple[int, Terminal]) -> None:
    # A terminal in line mode keeps 4,095 characters of a line (Linux): a longer paste lost
    # its end silently and the start was sent as the turn. Now it is not sent, said so.
    master, term = tty

    async def main() -> str | None:
        os.write(master, b"x" * 5000 + b"END\n")
        async with anyio.create_task_group() as tg:
            async def type_next() -> None:
                while "it was not sent" not in shown[0]:
                    await anyio.sleep(0.02)
                    shown[0] += read_shown(master)
                os.write(master, b"short\n")
            shown = [""]
            tg.start_soon(type_next)
            with anyio.fail_after(10):
                line = await term.readline("> ")
            tg.cancel_scope.cancel()
        return line

    assert anyio.run(main) == "short"


def test_lines_pasted_with_an_answer_never_become_the_next_turn(
        tty: tuple[int, Terminal]) -> None:
    # "y\nrm -rf ~\n" pasted at a question: "y" answers it, the rest is dropped (said so)
    # before the next prompt, and a turn typed after the answer is kept; "n\n\n" (an answer
    # and its empty reason) still reads as before. A pasted last line with no Enter yet is
    # dropped too: it was not shown at the next prompt, and became the start of that turn.
    master, term = tty

    async def main() -> list[str | None]:
        got: list[str | None] = []
        for pasted in (b"y\nrm -rf ~\n", b"n\n\n", b"y\nrm -rf /tmp/x",  # this one: no Enter
                       b"n\nthe reason\nrm -rf ~\n"):
            async with anyio.create_task_group() as tg:
                tg.start_soon(type_at_question, master, term, pasted)
                got.append(await term.readline("Allow? ", question=True))
                if got[-1] == "n":
                    got.append(await term.readline("Reason: ", question=True,
                                                   keep_typeahead=True))
            os.write(master, b"typed ahead\n")  # after the answer: a turn, kept
            with anyio.fail_after(10):
                got.append(await term.readline("> "))
        return got

    assert anyio.run(main) == ["y", "typed ahead", "n", "", "typed ahead", "y", "typed ahead",
                               "n", "the reason", "typed ahead"]
    shown = read_shown(master)
    assert shown.count("(ignored 9 characters that came with the answer to a question") == 2
    assert "(ignored 13 characters that came with the answer to a question" in shown
    assert shown.count("ignored") == 3


def test_lines_pasted_with_the_last_answer_are_not_left_for_the_shell(
        tty: tuple[int, Terminal]) -> None:
    # `toolhost run -p`: "y\necho PWNED > f\n" pasted at the question; nothing reads a turn
    # after it, and the shell ran the second line once toolhost had exited. Now they are
    # dropped when the terminal is closed; a line typed after the answer is left alone.
    from toolhost.runner.ttyfd import pending

    master, term = tty

    async def main() -> str | None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(type_at_question, master, term, b"y\necho PWNED > f\n")
            return await term.readline("Allow? ", question=True)

    assert anyio.run(main) == "y"
    os.write(master, b"typed after\n")
    assert "typed after" in read_shown(master, "typed after")  # echoed: the terminal has it
    term.close()
    said = "(ignored 15 characters that came with the answer to a question: they are not " \
        "sent, nor left for the shell)"
    assert said in read_shown(master, said)
    assert pending(term.read_fd) == len(b"typed after\n")


def test_keys_typed_for_a_withdrawn_question_are_not_left_for_the_shell(
        tty: tuple[int, Terminal]) -> None:
    # `-p`: the CLI withdrew the question, the person typed "y" for it anyway, the run ended:
    # the shell read "y" as a command. Now it is dropped when the terminal is closed.
    from toolhost.runner.ttyfd import pending

    master, term = tty

    anyio.run(withdraw_question, term)
    os.write(master, b"y\n")
    # echoed: the terminal has it (waited for, not a fixed quiet time)
    assert "y\r\n" in read_shown(master, "y\r\n").split("withdrawn", 1)[-1]
    term.close()
    said = "(ignored 2 characters typed after the question was withdrawn: they are not left " \
        "for the shell)"
    assert said in read_shown(master, said)
    assert pending(term.read_fd) == 0


@pytest.mark.parametrize(("first", "then", "behavior", "message"), [
    (b"n\n", b"too risky\n", "deny", "too risky"),  # the reason asked after "n"
    (b"s\n", b"y\n", "allow", ""),  # the question again, shown whole
], ids=["reason", "show-all"])
def test_a_turn_prompt_waiting_never_reads_between_one_questions_reads(
        tty: tuple[int, Terminal], first: bytes, then: bytes, behavior: str,
        message: str) -> None:
    # R26's flake: a turn that ended with a question open shows its `> ` prompt as soon as
    # the answer "n" was read: it took the next line (the reason) as a turn, and the reason
    # question waited for one more Enter
    from toolhost.permissions import TerminalAsker
    from toolhost.permissions.decision import Decision

    master, term = tty
    asker = TerminalAsker(reader=term)
    turns: list[str | None] = []
    prompts: list[str] = []  # each read's prompt, as shown
    write = term.write
    term.write = lambda text: (prompts.append(text) if text.endswith(": ") or text == "> "
                               else None, write(text))[1]  # type: ignore[method-assign]

    async def next_turn() -> None:
        turns.append(await term.readline("> "))

    async def main() -> Decision:
        decided: list[Decision] = []

        async def ask() -> None:
            decided.append(await asker.ask("mcp__s__sh", {"cmd": "ls"}, Decision("ask", "")))

        async with anyio.create_task_group() as tg:
            tg.start_soon(ask)
            with anyio.fail_after(10):
                while not term.question:
                    await anyio.sleep(0.01)
                tg.start_soon(next_turn)  # the turn ended: its prompt waits for the terminal
                await anyio.sleep(0.05)
                os.write(master, first)
                while len(prompts) < 2:  # what reads next: the question's, or the turn's
                    await anyio.sleep(0.01)
                os.write(master, then)
                await type_at_prompt(master, term, b"hello\n")
                while not turns:
                    await anyio.sleep(0.01)
        return decided[0]

    decision = anyio.run(main)
    assert (decision.behavior, decision.message.rsplit(": ", 1)[-1] if message else "") == \
        (behavior, message), decision
    assert turns == ["hello"]

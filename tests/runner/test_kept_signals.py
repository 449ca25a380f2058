"""A plugin or a python tool module that sets a signal's disposition at import does not keep
it for the session: ``toolhost run`` puts back what it had and says which."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.runner.cli_harness import TOOLHOST, cli_text, fake_cli
from toolhost.runner.kept_signals import kept_signals
from toolhost.runner.owned_signals import signals_owned

# calls the command tool echo in its turn; writes the answer to $ANSWER; ends the turn
CALLS = cli_text(r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "c":
        open(os.environ["ANSWER"], "w").write(json.dumps(m["response"]["response"]))
        send({{"type": "result", "subtype": "success", "is_error": False, "result": "ok",
              "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "c", "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{"jsonrpc": "2.0",
              "id": 1, "method": "tools/call", "params": {{"name": "echo",
              "arguments": {{"text": "hi"}}}}}}}}}})
''')

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      add:
        python: evilmod:add
        params: {a: {type: integer}, b: {type: integer}}
      echo:
        command: [printf, "%s", "{{ text }}"]
        params: {text: {type: string}}
permissions:
  default: allow
"""


def test_an_import_that_ignores_sigchld_and_sigquit_does_not_keep_them(tmp_path: Path) -> None:
    # SIGCHLD ignored at a tool module's import: the kernel reaped every child at once, each
    # command tool "exited with code 255" (its output an error) and the CLI's status was lost
    (tmp_path / "evilmod.py").write_text(
        "import signal\n"
        "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGQUIT, signal.SIG_IGN)\n"
        "def add(a: int, b: int) -> int:\n    return a + b\n")
    (tmp_path / "c.yaml").write_text(CONFIG)
    cli = fake_cli(tmp_path, CALLS)
    answer = tmp_path / "answer.json"
    done = subprocess.run([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "ANSWER": str(answer)})
    assert done.returncode == 0, done.stderr
    assert json.loads(answer.read_text())["mcp_response"]["result"] == {
        "content": [{"type": "text", "text": "hi"}], "isError": False}
    assert "changed how toolhost takes SIGQUIT, SIGCHLD" in done.stderr, done.stderr
    assert "Unknown child process" not in done.stderr


def test_only_what_the_block_changed_is_put_back_and_named() -> None:
    before = signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)
    try:
        with kept_signals() as put_back:
            signal.signal(signal.SIGUSR1, signal.SIG_IGN)
            signal.signal(signal.SIGUSR2, before[1])  # set, but to what it was
        assert put_back == ["SIGUSR1"]
        assert (signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)) == before
    finally:
        signal.signal(signal.SIGUSR1, before[0])  # type: ignore[arg-type]


# calls grab (an async python tool that sets SIGTERM back to its default), then a slow call;
# says when that one was sent
GRABS = cli_text(r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "g":
        call("s", "slow")
    elif m.get("type") == "user":
        call("g", "grab")
''', prelude=r'''
    def call(rid, name):
        send({{"type": "control_request", "request_id": rid, "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{"jsonrpc": "2.0",
              "id": rid, "method": "tools/call", "params": {{"name": name,
              "arguments": {{}}}}}}}}}})
''')


GRABBING = {
    # the next SIGTERM ended toolhost outright, the slow call unanswered and never audited
    "signal": ("signal.signal(signal.SIGTERM, signal.SIG_DFL)", "SIGTERM belongs"),
    # a reference taken at the module's import, before the session
    "taken-before": ("taken(signal.SIGTERM, signal.SIG_DFL)", "SIGTERM belongs"),
    # asyncio put the tool's handler in the session's place before calling signal.signal:
    # SIGTERM then did nothing at all (no stop)
    "loop": ("loop.add_signal_handler(signal.SIGTERM, lambda: None)", "SIGTERM belongs"),
    "loop-remove": ("loop.remove_signal_handler(signal.SIGTERM)", "SIGTERM belongs"),
    # the loop was never woken by a signal again
    "wakeup-fd": ("signal.set_wakeup_fd(-1)", "wake-up descriptor belongs"),
    "mask": ("signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})", "SIGTERM belongs"),
    # scheduled: the loop calls signal.signal itself, from asyncio's frames
    "scheduled": ("loop.call_soon(signal.signal, signal.SIGTERM, signal.SIG_DFL)", "grabbed"),
    "scheduled-loop": ("loop.call_soon(loop.add_signal_handler, signal.SIGTERM, print)",
                       "grabbed"),
    # the C module itself, imported by the tool
    "c-module": ("import _signal; _signal.signal(signal.SIGTERM, _signal.SIG_DFL)",
                 "SIGTERM belongs"),
    # SIGALRM's default action ended toolhost a second later, the slow call unanswered: a
    # tool cannot set a handler for it, so its timer is only ever that
    "alarm": ("signal.alarm(1)", "a timer (signal.alarm, setitimer) would end"),
    "setitimer": ("signal.setitimer(signal.ITIMER_REAL, 0.5)", "a timer"),
    "vtimer": ("signal.setitimer(signal.ITIMER_PROF, 0.01)", "a timer"),
    "c-alarm": ("import _signal; _signal.alarm(1)", "a timer"),
    # SIGUSR1's default action: toolhost ended at once
    "pthread-kill": ("signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)",
                     "signal.pthread_kill(SIGUSR1) would end or stop toolhost"),
    "siginterrupt": ("signal.siginterrupt(signal.SIGTERM, True)", "SIGTERM belongs"),
    # signals sent to toolhost whose default action ends (or stops) it, and which were not
    # on the list of those refused: each ended toolhost at once (SIGTTIN stopped it for good)
    "kill-vtalrm": ("os.kill(os.getpid(), signal.SIGVTALRM)", "would have ended toolhost"),
    "raise-prof": ("signal.raise_signal(signal.SIGPROF)", "would have ended toolhost"),
    "kill-io": ("os.kill(os.getpid(), signal.SIGIO)", "would have ended toolhost"),
    "kill-realtime": ("os.kill(os.getpid(), signal.SIGRTMIN + 1)", "would have ended toolhost"),
    "raise-realtime": ("signal.raise_signal(signal.SIGRTMAX)", "would have ended toolhost"),
    "kill-ttin": ("os.kill(os.getpid(), signal.SIGTTIN)", "would have ended toolhost"),
}

# ways no guard can see (a C function's reference taken at import, ctypes): each is put back
# when the call ends, and named; before, SIGTERM then ended toolhost at once, did nothing
# (ignored, blocked, no wake-up), or a held alarm ended it a second later
PUT_BACK = {
    "held-wakeup-fd": ("held_wakeup(-1)", "the signal wake-up descriptor"),
    "held-c-signal": ("held_c(signal.SIGTERM, held_dfl)", "signals (SIGTERM"),
    "held-c-mask": ("held_mask(signal.SIG_BLOCK, {signal.SIGTERM})", "SIGTERM (blocked)"),
    "held-alarm": ("held_alarm(1)", "a timer"),
    "ctypes-signal-ignored": ("libc_signal(signal.SIGTERM, 1)", "signals (SIGTERM"),
    "ctypes-signal-default": ("libc_signal(signal.SIGTERM, 0)", "signals (SIGTERM"),
    "ctypes-mask": ("libc_mask(0, term_set, None)", "SIGTERM (blocked)"),
    "ctypes-fresh-lookup": ("ctypes.CDLL(None).signal(signal.SIGTERM, 1)", "signals (SIGTERM"),
}


def _grabbing_tools(tmp_path: Path, grab: str) -> Path:
    """A config with an async tool ``grab`` running the statement ``grab`` on the loop, and
    a slow command tool that touches the returned path once it runs."""
    (tmp_path / "grabber.py").write_text(
        "import asyncio, ctypes, os, signal, threading\n"
        "from signal import signal as taken\n"
        "from signal import set_wakeup_fd as held_wakeup, alarm as held_alarm\n"
        "from _signal import signal as held_c, pthread_sigmask as held_mask, SIG_DFL as held_dfl\n"
        "libc = ctypes.CDLL(None)\n"
        "libc_signal, libc_mask = libc.signal, libc.pthread_sigmask\n"
        "term_set = (ctypes.c_ulong * 16)(1 << (signal.SIGTERM - 1))\n"
        "async def grab() -> str:\n"
        "    loop = asyncio.get_running_loop()\n"
        f"    {grab}\n"
        "    await asyncio.sleep(0)\n"
        "    return 'grabbed'\n")
    running = tmp_path / "running"
    (tmp_path / "c.yaml").write_text(f"""\
toolhost: 1
servers:
  s:
    tools:
      grab:
        python: grabber:grab
      slow:
        command: [sh, -c, 'touch "$0"; exec sleep 60', {json.dumps(str(running))}]
permissions:
  default: allow
""")
    return running


def _grab_then_stop(tmp_path: Path, grab: str) -> tuple[int, str, dict[str, Any]]:
    """``toolhost run`` calls the tool running ``grab``, then the slow one; SIGTERM once
    that one runs (and a second later: a timer the tool armed has fired by then). The exit
    status, stderr and the CLI's answers by request id."""
    running = _grabbing_tools(tmp_path, grab)
    cli = fake_cli(tmp_path, GRABS)
    log = tmp_path / "cli.log"
    with subprocess.Popen([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          env={"PATH": "/usr/bin:/bin", "FAKE_LOG": str(log)}) as process:
        deadline = time.monotonic() + 30
        while not running.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if "alarm" in grab or "timer" in grab:
            time.sleep(1.5)  # not an assertion on time: the armed timer's chance to end it
        process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # the signal was taken: no stop came
            process.kill()
            _, err = process.communicate()
    answers = {m["response"]["request_id"]: m["response"]["response"]["mcp_response"]
               for m in map(json.loads, log.read_text().splitlines())
               if m["type"] == "control_response"}
    return process.returncode, err, answers


@pytest.mark.parametrize("how", list(GRABBING))
def test_a_tool_cannot_take_sigterm_from_the_session(tmp_path: Path, how: str) -> None:
    # An async tool runs on the event loop's thread: each way it could take SIGTERM from the
    # session's receiver is refused, and the stop still answers the call in flight
    grab, said = GRABBING[how]
    status, err, answers = _grab_then_stop(tmp_path, grab)
    assert status == 143, err
    assert "SIGTERM: stopping the session" in err, err
    assert said in json.dumps(answers["g"]), answers
    assert "toolhost is stopping (SIGTERM)" in json.dumps(answers["s"]), answers


@pytest.mark.parametrize("how", list(PUT_BACK))
def test_what_no_guard_sees_is_put_back_after_the_call(tmp_path: Path, how: str) -> None:
    grab, said = PUT_BACK[how]
    status, err, answers = _grab_then_stop(tmp_path, grab)
    assert status == 143, err
    assert "SIGTERM: stopping the session" in err, err
    assert "grabbed" in json.dumps(answers["g"]), answers
    assert "in-process tool mcp__s__grab (or a call running with it) changed the host's signals (" \
        in err, err
    assert said in err, err
    assert "toolhost is stopping (SIGTERM)" in json.dumps(answers["s"]), answers


def test_serve_does_not_keep_what_an_import_set_either(tmp_path: Path) -> None:
    # the same import under ``toolhost serve``: its command tools failed ("exited with code
    # 255"), nothing said why
    (tmp_path / "evilmod.py").write_text(
        "import signal\n"
        "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "def add(a: int, b: int) -> int:\n    return a + b\n")
    (tmp_path / "c.yaml").write_text(CONFIG)
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                 "protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "echo", "arguments": {"text": "hi"}}}]
    done = subprocess.run([TOOLHOST, "serve", "c.yaml"], cwd=tmp_path, capture_output=True,
                          input="".join(json.dumps(line) + "\n" for line in lines),
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    answers = {m.get("id"): m for m in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["content"] == [{"type": "text", "text": "hi"}], done.stderr
    assert answers[1]["result"]["isError"] is False
    assert "changed how toolhost takes SIGCHLD" in done.stderr, done.stderr


def test_serve_refuses_a_reload_s_import_that_sets_a_signal(tmp_path: Path) -> None:
    # --watch: the module comes with an edit of the config, imported by the reload while the
    # server runs (SIGCHLD ignored made every command tool fail): the reload fails, in one
    # located line, and the server goes on with the last good config and its own signals
    (tmp_path / "evilmod.py").write_text(
        "import signal\n"
        "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "def add(a: int, b: int) -> int:\n    return a + b\n")
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("      add:\n        python: evilmod:add\n"
                                     "        params: {a: {type: integer}, b: {type: integer}}\n",
                                     ""))
    with subprocess.Popen([TOOLHOST, "serve", "c.yaml", "--watch", "--watch-interval", "0.1"],
                          cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin"}) as process:
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        stop = threading.Timer(60, process.kill)  # a failure, never a hang
        stop.start()

        def send(message: object) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()

        try:
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            assert b'"id":0' in process.stdout.readline()
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            config.write_text(CONFIG)
            said = b""
            while b"reload" not in said:
                line = process.stderr.readline()
                assert line, said
                said += line
            said += process.stderr.readline()  # the located line
            send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "echo", "arguments": {"text": "hi"}}})
            answer = json.loads(process.stdout.readline())
            process.stdin.close()
            process.wait()
        finally:
            stop.cancel()
    text = said.decode()
    assert "reload failed; still serving the last good config" in text, text
    assert "c.yaml:6:9: servers.s.tools.add.python: importing 'evilmod' raised ValueError: " \
        "SIGCHLD belongs to toolhost serve while it serves" in text, text
    assert answer["result"]["content"] == [{"type": "text", "text": "hi"}], (answer, text)


def test_a_child_a_tool_forks_has_its_signals_to_itself() -> None:
    # a tool's forked child (multiprocessing's fork start, a manager's server setting SIGINT
    # ignored) is another process: refusing it there broke the child, not the session
    def session() -> tuple[str, int]:
        async def run() -> tuple[str, int]:
            with signals_owned():
                try:
                    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
                    here = "set"
                except ValueError as exc:
                    here = str(exc)
                pid = os.fork()
                if pid == 0:  # the child: not toolhost's session
                    try:
                        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
                        os._exit(0)
                    except BaseException:
                        os._exit(3)
                _, status = os.waitpid(pid, 0)
                return here, os.waitstatus_to_exitcode(status)
        return asyncio.run(run())

    before = signal.getsignal(signal.SIGUSR1)
    try:
        here, child = session()
    finally:
        signal.signal(signal.SIGUSR1, before)  # type: ignore[arg-type]
    assert here.startswith("SIGUSR1 belongs to toolhost run"), here
    assert child == 0


@pytest.mark.parametrize("how", ["signal", "loop", "c-module", "pthread-kill"])
def test_serve_does_not_let_a_tool_take_sigterm(tmp_path: Path, how: str) -> None:
    # under toolhost serve too: SIG_DFL ended it at once (the slow call never answered),
    # the loop's handler made SIGTERM do nothing
    grab, said = GRABBING[how]
    running = _grabbing_tools(tmp_path, grab)
    with subprocess.Popen([TOOLHOST, "serve", "c.yaml", "--shutdown-grace", "0.5"],
                          cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin"}) as process:
        assert process.stdin is not None and process.stdout is not None

        def send(message: object) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()

        def answer(request_id: int) -> dict[str, Any]:
            assert process.stdout is not None
            for line in process.stdout:
                message: dict[str, Any] = json.loads(line)
                if message.get("id") == request_id:
                    return message
            raise AssertionError(f"no answer to {request_id}")

        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        answer(0)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "grab", "arguments": {}}})
        grabbed = answer(1)
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "slow", "arguments": {}}})
        deadline = time.monotonic() + 30
        while not running.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # the signal was taken: no stop came
            process.kill()
            out, err = process.communicate()
    answers = [json.loads(line) for line in out.splitlines()]
    assert [m.get("id") for m in answers if "id" in m] == [2], (answers, err)
    assert process.returncode == -signal.SIGTERM, err
    assert said in json.dumps(grabbed), grabbed
    assert "toolhost serve while it serves" in json.dumps(grabbed), grabbed

"""A plugin's own KeyboardInterrupt is its load error; a person's Ctrl-C still ends the command.

The Ctrl-C is typed at a real pseudo-terminal the command runs on (the kernel sends SIGINT);
the plugin's is ``raise KeyboardInterrupt`` at import or in ``register()``."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest

from toolhost.config.model import Origin, PluginRequirement
from toolhost.plugins import PluginConfigError, activate
from toolhost.plugins.interrupt import ctrl_c_noted

MakePlugin = Callable[..., Path]
AT = Origin(file="team.yaml", line=2, column=11, key_path="plugins[0]")
REQ = [PluginRequirement("toolhost-kb", "", AT)]


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-kb]\n")
    return config


def _validate(config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(config.parent / "xdg")}
    return subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-compile",
                           str(config)], capture_output=True, text=True, timeout=120, env=env,
                          cwd=config.parent)


@pytest.mark.parametrize("where", ["import", "register"])
@pytest.mark.parametrize("raised", ["raise KeyboardInterrupt",
                                    "raise KeyboardInterrupt('stop')"])
def test_a_plugin_raising_keyboard_interrupt_is_a_located_error(
        tmp_path: Path, make_plugin: MakePlugin, where: str, raised: str) -> None:
    """It was exit 130 and no word, as if the person had pressed Ctrl-C."""
    source = f"{raised}\n" if where == "import" else f"def register(registry):\n    {raised}\n"
    make_plugin("toolhost-kb", "1.0", modules={"kb_plugin": source})
    proc = _validate(_config(tmp_path))
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert "toolhost.yaml:2:11: plugins[0]: plugin 'toolhost-kb' 1.0 failed while " \
           "registering: KeyboardInterrupt" in proc.stderr, proc.stderr
    assert "raised by the plugin (no Ctrl-C was pressed)" in proc.stderr


def test_a_plugin_raising_it_on_a_reload_thread_is_a_located_error(
        make_plugin: MakePlugin) -> None:
    """No signal reaches another thread than the main one: there it is always code's."""
    make_plugin("toolhost-kb", "1.0",
                modules={"kb_plugin": "def register(registry):\n    raise KeyboardInterrupt\n"})
    caught: list[BaseException] = []

    def load() -> None:
        try:
            activate(REQ)
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=load)
    thread.start()
    thread.join()
    assert len(caught) == 1 and isinstance(caught[0], PluginConfigError), caught
    assert "KeyboardInterrupt raised by the plugin" in str(caught[0])


def test_a_message_that_raises_is_not_an_internal_error(make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-kb", "1.0", modules={"kb_plugin": textwrap.dedent("""
        class Odd(Exception):
            def __str__(self):
                raise RuntimeError("no words")

        def register(registry):
            raise Odd()
        """)})
    with pytest.raises(PluginConfigError) as raised:
        activate(REQ)
    assert "failed while registering: Odd: (its message could not be shown: RuntimeError)" \
        in str(raised.value)


def test_a_real_sigint_in_the_load_still_interrupts(make_plugin: MakePlugin) -> None:
    """In this process: the signal raised while register() runs, under another handler
    (`toolhost run` installs its own), is the person's."""
    make_plugin("toolhost-kb", "1.0", modules={"kb_plugin": textwrap.dedent("""
        import signal

        def register(registry):
            signal.raise_signal(signal.SIGINT)
        """)})
    called: list[int] = []

    def theirs(signum: int, frame: FrameType | None) -> None:
        called.append(signum)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGINT, theirs)
    try:
        with pytest.raises(KeyboardInterrupt):
            activate(REQ)
        assert called == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is theirs  # put back as it was
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_handler_in_place_decides_what_a_ctrl_c_does() -> None:
    """A handler that does not raise (a flag for a clean stop) is still the one obeyed, and
    SIGINT ignored stays ignored: nothing is installed over it."""
    seen: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with ctrl_c_noted() as noted:
            signal.raise_signal(signal.SIGINT)
        assert seen == [signal.SIGINT] and not noted.pressed
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with ctrl_c_noted() as noted:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
        assert not noted.pressed
    finally:
        signal.signal(signal.SIGINT, before)


WAITS = """\
import os, time


def wait():
    open(os.environ["KB_LOADING"], "w").close()
    for _ in range(60_000):  # a minute at most
        time.sleep(0.001)


def register(registry):
"""
BODIES = {
    "waits": "    wait()\n",
    "swallows-it": "    try:\n        wait()\n    except KeyboardInterrupt:\n        pass\n",
    "turns-it-into-another-error": "    try:\n        wait()\n    except KeyboardInterrupt:\n"
                                   "        raise RuntimeError('stopped') from None\n",
}


def _ctrl_c_while_loading(tmp_path: Path, until: str = "") -> tuple[int, str]:
    """`toolhost validate` on a pseudo-terminal; Ctrl-C typed once the plugin is loading
    (and the terminal shows ``until``). The exit status and what the terminal showed."""
    master, slave = pty.openpty()
    marker = tmp_path / "loading"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "KB_LOADING": str(marker),
           "TOOLHOST_WAIT_NOTICE": "0.1"}
    # the terminal as the command's controlling one, so that the kernel signals it; SIGINT
    # back to its default, as a shell gives a command it runs: pytest started in the
    # background of a script (`pytest ... &`, job control off) inherits SIGINT ignored, and
    # the command rightly keeps it ignored (that was this test's "flakiness")
    take_tty = ("import fcntl, os, signal, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
                "signal.signal(signal.SIGINT, signal.SIG_DFL); "
                "os.execv(sys.executable, [sys.executable, '-m', 'toolhost', *sys.argv[1:]])")
    proc = subprocess.Popen([sys.executable, "-c", take_tty, "validate", "--no-compile",
                             str(_config(tmp_path))], stdin=slave, stdout=slave, stderr=slave,
                            env=env, cwd=tmp_path, start_new_session=True)
    os.close(slave)
    shown = b""
    try:
        deadline = time.monotonic() + 60
        while not (marker.exists() and until.encode() in shown) and proc.poll() is None \
                and time.monotonic() < deadline:
            if select.select([master], [], [], 0.05)[0]:
                shown += _read(master)
        assert marker.exists() and until.encode() in shown, shown.decode(errors="replace")
        os.write(master, b"\x03")
        while True:
            chunk = _read(master)
            if not chunk:
                break
            shown += chunk
        return proc.wait(timeout=60), shown.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: the command closed the terminal (it ended)
        return b""


@pytest.mark.parametrize("body", list(BODIES))
def test_ctrl_c_typed_while_a_plugin_loads_exits_130(
        tmp_path: Path, make_plugin: MakePlugin, body: str) -> None:
    """The person's Ctrl-C ends the command even when the plugin caught it (it went on to
    validate, exit 0, or said the plugin failed, exit 1)."""
    make_plugin("toolhost-kb", "1.0", modules={"kb_plugin": WAITS + BODIES[body]})
    code, shown = _ctrl_c_while_loading(tmp_path)
    assert code == 130, shown
    assert "Traceback" not in shown and "error" not in shown, shown


def test_a_plugin_hanging_at_load_is_named_while_waiting_and_at_ctrl_c(
        tmp_path: Path, make_plugin: MakePlugin) -> None:
    """A hung plugin held every load without a word, and a Ctrl-C ended it with none: which
    plugin was it?"""
    make_plugin("toolhost-kb", "1.0", modules={"kb_plugin": WAITS + BODIES["waits"]})
    code, shown = _ctrl_c_while_loading(tmp_path, until="still waiting")
    assert code == 130, shown
    assert "toolhost.yaml:2:11: plugins[0]: still waiting for plugin 'toolhost-kb' 1.0 to " \
           "import and register (" in shown, shown
    assert "toolhost.yaml:2:11: plugins[0]: stopped by Ctrl-C while plugin 'toolhost-kb' 1.0 " \
           "was importing and registering" in shown, shown
    assert "Traceback" not in shown, shown

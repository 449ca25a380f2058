"""A plugin's ``register`` runs once per command: ``validate``, ``tools`` and ``call`` loaded
the config (which activates the plugins) and then compiled its tools, which activated them
all again, so every import-time cost, "took N s" warning and side effect came twice. Where a
plugin's tool is written is read from its code object: ``inspect.getsourcelines`` tokenized
each function's whole source for the line alone (10,000 tools took 8 s to register)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

MakePlugin = Callable[..., Path]
TOOLHOST = str(Path(sys.executable).parent / "toolhost")

PLUGIN = """\
import os


def echo(text: str) -> str:
    \"\"\"Say it back.\"\"\"
    return text


def register(registry):
    with open(os.environ["REGISTER_LOG"], "a") as log:
        log.write("register\\n")
    registry.add_server("counted")
    registry.add_tool(echo, server="counted")
"""


@pytest.mark.parametrize("command", [["validate"], ["tools"], ["call", "counted.echo",
                                                               "text=hi"]])
def test_register_runs_once_per_command(command: list[str], tmp_path: Path,
                                        make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-counted", modules={"counted_plugin": PLUGIN})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-counted]\n"
                      "permissions: {default: allow}\n")
    log = tmp_path / "register.log"
    done = subprocess.run([TOOLHOST, command[0], str(config), *command[1:]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL,
                          env={**{k: v for k, v in os.environ.items()
                                  if k != "TOOLHOST_DEBUG"}, "REGISTER_LOG": str(log)})
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "register\n"


def test_a_tools_line_is_read_without_its_source(make_plugin: MakePlugin,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    site = make_plugin("toolhost-counted", modules={"counted_plugin": PLUGIN})
    import counted_plugin  # type: ignore[import-not-found]

    from toolhost.plugins.registry import Registry

    def no_source(*args: object) -> object:
        raise AssertionError("the whole source was read for a line number")

    monkeypatch.setattr(inspect, "getsourcelines", no_source)
    registry = Registry("toolhost-counted")
    registry.add_tool(counted_plugin.echo, server="counted")
    origin = registry.tools[("counted", "echo")].origin
    assert (origin.file, origin.line) == (str(site / "counted_plugin.py"), 4)

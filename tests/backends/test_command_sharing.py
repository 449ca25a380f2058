"""What the tools of one big config share when they are bound: argv elements written the same
at the same place, and one server's base environment."""

from __future__ import annotations

from typing import Any

from toolhost.backends.argv import compile_argv
from toolhost.backends.base import BindContext
from toolhost.backends.command import CommandKind
from toolhost.config import load_config


def test_an_element_written_alike_at_the_same_place_is_one_object() -> None:
    one = compile_argv(["echo", "--", "{{ v }}", "1"])
    two = compile_argv(["echo", "--", "{{ v }}", "2"])
    assert one.elements[1] is two.elements[1]
    assert one.elements[2] is not two.elements[2]
    moved = compile_argv(["echo", "{{ v }}"])  # another place, another dash context
    assert moved.elements[0] != one.elements[1]
    assert not moved.elements[0].after_dashdash and one.elements[1].after_dashdash


def test_the_base_environment_is_built_once_per_server(tmp_path: Any, monkeypatch: Any) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    env: {A: '1'}\n    tools:\n"
                    "      a: {command: [echo, '{{ v }}']}\n      b: {command: [echo, x]}\n")
    config = load_config(path, layers=False)
    server = config.servers["s"]
    calls: list[int] = []
    import toolhost.backends.command as command

    real = command.base_env
    monkeypatch.setattr(command, "base_env", lambda: calls.append(1) or real())
    ctx = BindContext(server)
    kind = CommandKind()
    for tool in server.tools.values():
        kind.bind(tool, ctx)
    assert calls == [1]
    assert ctx.shared("command.env", dict)["A"] == "1"


def test_a_bound_tool_holds_its_call_in_one_object(tmp_path: Any) -> None:
    # a closure would hold a dozen cells per tool, each tracked by the collector
    path = tmp_path / "t.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                    "      a: {command: [echo, '{{ v }}'], params: {v: string}}\n")
    server = load_config(path, layers=False).servers["s"]
    invoke = CommandKind().bind(server.tools["a"], BindContext(server)).invoke
    assert getattr(invoke, "__closure__", None) is None
    assert not hasattr(invoke, "__dict__")  # slots

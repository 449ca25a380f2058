"""The collector is off while a config loads and compiles, and as it was afterwards; what the
first load of a process leaves is frozen, and a load makes no cyclic garbage."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolhost import host
from toolhost.compile.build import compile_tools
from toolhost.config import gcpause
from toolhost.config.gcpause import gc_paused
from toolhost.config.loader import load_config

DEMO = Path(__file__).resolve().parents[2] / "examples" / "configs" / "demo.yaml"


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_off_inside_and_on_again_after(collector_on: None) -> None:
    seen: list[bool] = []
    assert gc_paused(lambda: seen.append(gc.isenabled()) or 7)() == 7
    assert seen == [False] and gc.isenabled()


def test_on_again_after_an_exception(collector_on: None) -> None:
    def fails() -> None:
        raise ValueError("x")

    with pytest.raises(ValueError):
        gc_paused(fails)()
    assert gc.isenabled()


def test_a_program_that_turned_it_off_keeps_it_off(collector_on: None) -> None:
    gc.disable()
    gc_paused(lambda: None)()
    assert not gc.isenabled()


def test_nested_calls_leave_it_to_the_outer_one(collector_on: None) -> None:
    seen: list[bool] = []
    inner = gc_paused(lambda: None)
    gc_paused(lambda: (inner(), seen.append(gc.isenabled())))()
    assert seen == [False] and gc.isenabled()


def test_loading_and_compiling_are_paused() -> None:
    assert getattr(load_config, "__wrapped__", None) is not None
    assert getattr(compile_tools, "__wrapped__", None) is not None


def test_the_first_load_of_a_process_freezes_once_before_the_collector_is_on(
        collector_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[bool] = []  # whether the collector was on at each freeze
    monkeypatch.setattr(gcpause, "_settled", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(gc.isenabled()))
    load = gcpause.gc_paused_and_settled(lambda: 7)
    assert (load(), load()) == (7, 7)
    assert frozen == [False]  # once, and while still off: no collection came between
    assert gc.isenabled()


def test_a_failed_load_freezes_nothing(collector_on: None,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(gcpause, "_settled", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))

    def fails() -> None:
        raise ValueError("a broken config")
    with pytest.raises(ValueError):
        gcpause.gc_paused_and_settled(fails)()
    assert frozen == [] and gc.isenabled()
    gcpause.gc_paused_and_settled(lambda: None)()
    assert frozen == [1]  # the first load that worked


def test_no_freeze_when_the_program_turned_the_collector_off(
        collector_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(gcpause, "_settled", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    load = gcpause.gc_paused_and_settled(lambda: None)
    gc.disable()
    load()
    assert not gc.isenabled() and frozen == []
    gc.enable()
    load()
    assert frozen == [1]


def test_load_host_is_paused_and_settles(collector_on: None,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert getattr(host._load, "__wrapped__", None) is not None
    frozen: list[bool] = []
    monkeypatch.setattr(gcpause, "_settled", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(gc.isenabled()))
    host.load_host(DEMO)
    host.load_host(DEMO)
    assert frozen == [False]


def _command_tools(directory: Path, suffix: str) -> Path:
    path = directory / f"many.{suffix}"
    if suffix == "yaml":
        lines = ["toolhost: 1", "servers:", "  big:", "    tools:"]
        for i in range(20):
            lines += [f"      t{i}:", f"        command: [echo, '{{{{ v }}}}', '${{HOME}}', '{i}']",
                      "        params: {v: string}"]
    else:
        lines = ["toolhost = 1"]
        for i in range(20):
            lines += [f"[servers.big.tools.t{i}]",
                      f"command = ['echo', '{{{{ v }}}}', '${{HOME}}', '{i}']",
                      "params = { v = 'string' }"]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("which", ["demo", "yaml", "toml"])
def test_a_load_makes_no_cyclic_garbage(collector_on: None, tmp_path: Path,
                                        which: str) -> None:
    # what a load leaves is frozen: a reference cycle made on the way (a closure that
    # calls itself, holding the document) would be kept to the end of the process
    path = DEMO if which == "demo" else _command_tools(tmp_path, which)
    # the first load: imports and first-use caches, not the load's garbage; both hosts stay
    # alive (a dropped host's servers hold a cycle of their own)
    first = host.load_host(path)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        second = host.load_host(path)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert garbage == []
    assert first.tools.keys() == second.tools.keys()

"""The collector is off while a config loads and compiles, and as it was afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from toolhost.compile.build import compile_tools
from toolhost.config.gcpause import gc_paused
from toolhost.config.loader import load_config


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

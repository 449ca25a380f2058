"""toolhost.commands._startup: the collector is off while a command starts, and on (with
the start's objects frozen) once it is under way, or when the start ends early."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from toolhost.commands._startup import collector_off_until_started


@pytest.fixture(autouse=True)
def _collector_as_before() -> Iterator[None]:
    was_on = gc.isenabled()
    yield
    gc.unfreeze()
    if was_on:
        gc.enable()
    else:
        gc.disable()


def test_off_during_the_start_then_on_with_the_start_frozen() -> None:
    gc.enable()
    with collector_off_until_started() as started:
        assert not gc.isenabled()
        kept = [object() for _ in range(10)]
        started()
        assert gc.isenabled() and gc.get_freeze_count() > 0
        started()  # a second call changes nothing
    assert gc.isenabled() and kept


def test_a_start_that_fails_turns_it_back_on_without_freezing() -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    with pytest.raises(ValueError), collector_off_until_started():
        raise ValueError("a broken config")
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_program_that_turned_it_off_keeps_it_off() -> None:
    gc.disable()
    frozen = gc.get_freeze_count()
    with collector_off_until_started() as started:
        started()
    assert not gc.isenabled() and gc.get_freeze_count() == frozen

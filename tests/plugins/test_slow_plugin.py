"""A plugin slow to import and register is said so (every start and reload waits for it);
the threshold is a setting here, so the test needs no slow plugin and times nothing."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config.model import PluginRequirement
from toolhost.plugins import activate

MakePlugin = Callable[..., Path]
PLUGIN = "def register(registry):\n    pass\n"


@pytest.mark.parametrize(("threshold", "warned"), [(0.0, True), (1e9, False)])
def test_a_slow_plugin_is_named_with_its_time(make_plugin: MakePlugin,
                                              monkeypatch: pytest.MonkeyPatch,
                                              caplog: pytest.LogCaptureFixture,
                                              threshold: float, warned: bool) -> None:
    activation = importlib.import_module("toolhost.plugins.activate")  # (the package
    # re-exports the function under the module's name)
    make_plugin("toolhost-sloth", modules={"toolhost_sloth": PLUGIN},
                entry_points={"main": "toolhost_sloth:register"})
    monkeypatch.setattr(activation, "SLOW_PLUGIN_SECONDS", threshold)
    with caplog.at_level(logging.WARNING, logger="toolhost.plugins"):
        activate([PluginRequirement("toolhost-sloth")])
    said = [r.getMessage() for r in caplog.records if "to import and register" in r.getMessage()]
    assert bool(said) is warned
    if warned:
        assert said[0].startswith("plugin 'toolhost-sloth' 1.0.0 took ")

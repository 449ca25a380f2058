"""A plugin the lock pins that is no longer installed (uninstalled, a new virtualenv): the
load names the locked release to install, not another plugin with a close name."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.config import load_config
from toolhost.errors import ConfigError

from ..plugins.conftest import write_plugin

MODULE = '''
def hello() -> str:
    """hi"""
    return "hi"
def register(reg):
    reg.add_tool(hello, server="{server}")
'''


def test_an_uninstalled_plugin_the_lock_pins_names_the_locked_release(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    monkeypatch.syspath_prepend(str(site))
    write_plugin(site, "tp-gone", "1.4.2", {"tp_gone": MODULE.format(server="g1")})
    write_plugin(site, "tp-gane", "1.0", {"tp_gane": MODULE.format(server="g2")})
    importlib.invalidate_caches()
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: [tp-gone]\n")
    write_for(str(config))
    shutil.rmtree(site / "tp_gone-1.4.2.dist-info")
    importlib.invalidate_caches()
    for attempt in (lambda: load_config(config), lambda: write_for(str(config))):
        with pytest.raises(ConfigError) as info:
            attempt()
        text = str(info.value)
        assert text.startswith(f"{config}:2:11: plugins[0]: plugin 'tp-gone' is not "
                               "installed; toolhost.lock pins tp-gone 1.4.2"), text
        assert "pip install 'tp-gone==1.4.2'" in text and "tp-gane" not in text


@pytest.mark.parametrize("installed", [False, True], ids=["uninstalled", "another-release"])
def test_the_locked_release_in_the_hint_is_quoted_for_a_shell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installed: bool) -> None:
    """The lock is read as written (a bad merge, a hand edit): its version goes into a
    `pip install` that is pasted (with another release installed, the hint was an unquoted
    `install NAME==VERSION`)."""
    import shlex

    site = tmp_path / "site"
    monkeypatch.syspath_prepend(str(site))
    write_plugin(site, "tp-gone", "1.4.2", {"tp_gone": MODULE.format(server="g1")})
    importlib.invalidate_caches()
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: [tp-gone]\n")
    write_for(str(config))
    lock = tmp_path / "toolhost.lock"
    lock.write_text(lock.read_text().replace('"1.4.2"', '"1.4.2\'$(id)\'"'))
    if not installed:
        shutil.rmtree(site / "tp_gone-1.4.2.dist-info")
        importlib.invalidate_caches()
    with pytest.raises(ConfigError) as info:
        load_config(config)
    (problem,) = info.value.problems
    pip = problem.hint.split(" (the release the lock pins)")[0]
    assert shlex.split(pip) == ["pip", "install", "tp-gone==1.4.2'$(id)'"], problem.hint

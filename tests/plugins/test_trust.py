"""Installed is not enabled: loading a config imports only the plugins it lists."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

MakePlugin = Callable[..., Path]

PROBE = """
import json, sys
from toolhost.config.loader import load_config
config = load_config(sys.argv[1], layers=False)
mine = sorted(m for m in sys.modules if m.startswith(("toolhost_", "evil")))
print(json.dumps({"servers": sorted(config.servers), "modules": mine}))
"""


def load_in_subprocess(config: Path) -> dict[str, list[str]]:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(config)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, list[str]] = json.loads(proc.stdout)
    return result


def test_only_enabled_plugins_are_imported(tmp_path: Path, make_plugin: MakePlugin) -> None:
    # An installed plugin that would fail loudly if anything imported it.
    make_plugin("toolhost-evil", modules={"evil_plugin": "raise SystemExit('imported!')\n"})
    plain = tmp_path / "plain.yaml"
    plain.write_text("toolhost: 1\nservers: {}\n")
    assert load_in_subprocess(plain) == {"servers": [], "modules": []}

    files = tmp_path / "files.yaml"
    files.write_text("toolhost: 1\nplugins: [toolhost-files]\n")
    loaded = load_in_subprocess(files)
    assert loaded["servers"] == ["files"]
    assert "toolhost_files.plugin" in loaded["modules"]
    assert not [m for m in loaded["modules"] if m.startswith(("toolhost_sqlite", "evil"))]


def test_a_missing_plugin_fails_the_load_with_an_install_hint(tmp_path: Path) -> None:
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins:\n  - toolhost-files\n  - toolhost-nothere>=2\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "plugin 'toolhost-nothere' is not installed" in proc.stderr
    assert "pip install 'toolhost-nothere>=2'" in proc.stderr
    assert f"{config}:4" in proc.stderr


def test_a_missing_plugin_error_names_its_place_once(tmp_path: Path) -> None:
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins:\n  - toolhost-nothere\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert proc.stderr.count(str(config)) == 1, proc.stderr


def test_plugins_enabled_by_a_fragment_add_to_the_main_files(tmp_path: Path) -> None:
    from toolhost.config import load_config

    (tmp_path / "team.yaml").write_text("plugins: [toolhost-sqlite]\n")
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nextends: [team.yaml]\nplugins: [toolhost-files]\n")
    loaded = load_config(config, layers=False)
    assert sorted(p.name for p in loaded.plugins) == ["toolhost-files", "toolhost-sqlite"]


def test_a_broken_plugin_is_the_only_problem_reported(tmp_path: Path,
                                                      make_plugin: MakePlugin) -> None:
    from toolhost.config import load_config
    from toolhost.errors import ConfigError

    make_plugin("toolhost-broken", "0.3", modules={"broken_plugin": """
        def register(registry):
            registry.add_server("bad")
            raise RuntimeError("driver missing")
    """})
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-broken, toolhost-sqlite]\n"
                      "servers:\n  local:\n    tools:\n"
                      "      echo: {command: [echo, hi]}\n"
                      "      rows: {sqlite: {database: x.db, query: 'SELECT 1'}}\n"
                      "      typo: {comand: [echo, hi]}\n")
    try:
        load_config(config, layers=False)
    except ConfigError as exc:
        problems = [str(p) for p in exc.problems]
    else:
        raise AssertionError("a broken plugin must fail the load")
    # The built-in kinds and the healthy plugin's still check the rest of the config.
    assert len(problems) == 2, problems
    assert problems[0].startswith(
        f"{config}:2:11: plugins[0]: plugin 'toolhost-broken' 0.3 failed while registering: "
        "RuntimeError: driver missing")
    assert problems[1] == (f"{config}:8:14: servers.local.tools.typo.comand: unknown key "
                           "(did you mean 'command'?)")


def test_plugins_from_a_fragment_keep_their_own_lines(tmp_path: Path) -> None:
    from toolhost.config import load_config
    from toolhost.errors import ConfigError

    (tmp_path / "team.yaml").write_text("toolhost: 1\nplugins:\n  - toolhost-files\n")
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nextends: [team.yaml]\nplugins:\n  - toolhost-sqlite\n"
                      "  - toolhost-nope\n")
    try:
        load_config(config, layers=False)
    except ConfigError as exc:
        assert [str(p) for p in exc.problems] == [
            f"{config}:5:5: plugins[2]: plugin 'toolhost-nope' is not installed "
            "(pip install toolhost-nope)"]
    else:
        raise AssertionError("toolhost-nope is not installed")
    config.write_text("toolhost: 1\nextends: [team.yaml]\nplugins: [toolhost-sqlite]\n")
    loaded = load_config(config, layers=False)
    assert [(p.name, p.origin.file, p.origin.line) for p in loaded.plugins] == [
        ("toolhost-files", str(tmp_path / "team.yaml"), 3),
        ("toolhost-sqlite", str(config), 3)]

"""python: tools import modules that sit beside the config file, or under its ``path:``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _call(config: Path, tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), tool, *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd, check=False)


def test_a_module_next_to_the_config_is_importable_from_anywhere(tmp_path: Path) -> None:
    team = tmp_path / "team"
    (team / "lib").mkdir(parents=True)
    (team / "beside_cfg_tools.py").write_text(
        "def shout(text: str) -> str:\n    '''Shout.'''\n    return text.upper() + '!'\n")
    (team / "lib" / "libdir_cfg_tools.py").write_text(
        "def twice(n: int) -> int:\n    '''Double.'''\n    return 2 * n\n")
    config = team / "tools.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  t:\n    tools:\n"
        "      shout: {python: 'beside_cfg_tools:shout'}\n"
        "      twice: {python: {function: 'libdir_cfg_tools:twice', path: lib}}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shout = _call(config, "t.shout", "text=hi", cwd=elsewhere)
    assert (shout.returncode, shout.stdout.strip()) == (0, "HI!"), shout.stderr
    twice = _call(config, "t.twice", "n=21", cwd=elsewhere)
    assert (twice.returncode, twice.stdout.strip()) == (0, "42"), twice.stderr


def test_a_module_nowhere_is_a_config_error_naming_the_line(tmp_path: Path) -> None:
    config = tmp_path / "tools.yaml"
    config.write_text("toolhost: 1\nservers:\n  t:\n    tools:\n"
                      "      x: {python: 'no_such_cfg_module:f'}\n")
    proc = _call(config, "t.x", cwd=tmp_path)
    assert proc.returncode == 1
    assert f"{config}:5" in proc.stderr and "no_such_cfg_module" in proc.stderr


def test_import_problems_hint_at_the_fix(tmp_path: Path) -> None:
    (tmp_path / "hint_cfg_tools.py").write_text("def slugify(title: str) -> str:\n"
                                                "    return title\n")
    (tmp_path / "hint_cfg_dep.py").write_text("import no_such_dep_for_hint\n")
    (tmp_path / "hint_cfg_boom.py").write_text("raise RuntimeError('oops')\n")
    config = tmp_path / "tools.yaml"
    config.write_text("toolhost: 1\nservers:\n  t:\n    tools:\n"
                      "      a: {python: 'hint_cfg_tools:slugifyy'}\n"
                      "      b: {python: 'no_such_hint_module:f'}\n"
                      "      c: {python: 'hint_cfg_dep:f'}\n"
                      "      d: {python: 'hint_cfg_boom:f'}\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, check=False)
    a, b, c, d = proc.stderr.splitlines()
    assert a.endswith("'hint_cfg_tools' has no attribute 'slugifyy' (did you mean 'slugify'?)")
    assert b.endswith(f"(is the package installed in this environment, or no_such_hint_module"
                      f".py (or no_such_hint_module/) in {tmp_path}?)")
    assert c.endswith("('hint_cfg_dep' imports 'no_such_dep_for_hint': install it in this "
                      "environment)")
    assert "raised RuntimeError: oops" in d and "python -c 'import hint_cfg_boom'" in d

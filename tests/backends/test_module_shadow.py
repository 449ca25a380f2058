"""A tool's own module shadowed by an installed one that has the named function (R36-3).

``python: 'helpers:run'`` with a ``helpers.py`` beside the config: when an installed module
``helpers`` comes first on ``sys.path`` and has a ``run`` too, the tool is bound to the
installed function, silently (hostile35's R35-6 covered only the case where the installed
module lacks the name). ``validate`` now warns, naming both files, and ``--strict`` fails.
The check asks only the tool's own directories: linear in the tools.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.machinery import FileFinder
from pathlib import Path

import pytest

from toolhost.backends.module_shadow import shadowed_module_warnings
from toolhost.config.loader import load_config

FUNCTION = "def run(text: str) -> str:\n    '''{who}'''\n    return {who!r}\n"


@pytest.fixture
def names() -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    for name in made:
        sys.modules.pop(name, None)


def _layout(tmp_path: Path, module: str, *, installed: bool = True) -> Path:
    """``site/<module>.py`` (first on sys.path: "installed") and ``cfg/<module>.py`` beside
    ``cfg/c.yaml``, both with ``run``."""
    site, cfg = tmp_path / "site", tmp_path / "cfg"
    site.mkdir()
    cfg.mkdir()
    if installed:
        (site / f"{module}.py").write_text(FUNCTION.format(who="installed"))
    (cfg / f"{module}.py").write_text(FUNCTION.format(who="mine"))
    config = cfg / "c.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  s:\n    tools:\n"
                      f"      t: {{python: '{module}:run'}}\n")
    return config


def _validate(config: Path, site: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(site), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config), *extra],
                          capture_output=True, text=True, env=env, timeout=120, check=False)


def test_validate_names_both_files(tmp_path: Path) -> None:
    module = f"th_r36_shadow_{os.getpid()}"
    config = _layout(tmp_path, module)
    done = _validate(config, tmp_path / "site")
    said = done.stdout + done.stderr
    mine = str(tmp_path / "cfg" / f"{module}.py")
    theirs = str(tmp_path / "site" / f"{module}.py")
    assert mine in said and theirs in said, said
    assert "c.yaml:5" in said and "warning" in said.lower(), said
    strict = _validate(config, tmp_path / "site", "--strict")
    assert strict.returncode != 0, strict.stdout + strict.stderr


def test_no_warning_when_the_tool_s_own_module_is_imported(tmp_path: Path) -> None:
    module = f"th_r36_alone_{os.getpid()}"
    config = _layout(tmp_path, module, installed=False)
    done = _validate(config, tmp_path / "site", "--strict")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is not the module imported" not in done.stdout + done.stderr


def test_in_process_the_warning_is_located_at_the_tool(tmp_path: Path, names: list[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from toolhost.compile import compile_tools

    module = f"th_r36_inproc_{os.getpid()}"
    names.append(module)
    config = _layout(tmp_path, module)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    loaded = load_config(str(config))
    compiled = compile_tools(loaded)  # binds the installed one: the case warned about
    warnings = shadowed_module_warnings(loaded)
    assert len(warnings) == 1, warnings
    text = str(warnings[0])
    assert str(tmp_path / "cfg" / f"{module}.py") in text, text
    assert str(tmp_path / "site" / f"{module}.py") in text, text
    assert "servers.s.tools.t" in text, text
    del compiled


def test_the_check_is_linear_in_the_tools(tmp_path: Path, names: list[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each tool in a directory of its own: the finders asked grow with the tools, not with
    the tools times the directories."""
    from toolhost.compile import compile_tools

    compiled: list[object] = []

    def asked(count: int) -> int:
        root = tmp_path / f"n{count}"
        root.mkdir()
        lines = ["toolhost: 1", "servers:", "  s:", "    tools:"]
        for i in range(count):
            (root / f"d{i}").mkdir()
            module = f"th_r36_lin_{count}_{i}_{os.getpid()}"
            names.append(module)
            (root / f"d{i}" / f"{module}.py").write_text(FUNCTION.format(who=str(i)))
            lines.append(f"      t{i}: {{python: {{function: '{module}:run', path: d{i}}}}}")
        (root / "c.yaml").write_text("\n".join(lines) + "\n")
        loaded = load_config(str(root / "c.yaml"))
        compiled.append(compile_tools(loaded))  # each tool's module imported
        calls = [0]
        real = FileFinder.find_spec

        def counted(self: FileFinder, *args: object, **kwargs: object) -> object:
            calls[0] += 1
            return real(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(FileFinder, "find_spec", counted)
        try:
            assert shadowed_module_warnings(loaded) == []
        finally:
            monkeypatch.setattr(FileFinder, "find_spec", real)
        return calls[0]

    small, big = asked(20), asked(160)
    assert big <= 8 * small + 40, (small, big)

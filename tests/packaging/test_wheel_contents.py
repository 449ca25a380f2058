"""The wheels carry what an editable install hides: package data, entry points, metadata."""

from __future__ import annotations

import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def _read(wheel: Path, suffix: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(suffix)]
        return archive.read(name).decode()


def test_toolhost_wheel_has_package_data_and_every_subpackage(wheels: dict[str, Path]) -> None:
    names = _names(wheels["toolhost"])
    assert {"toolhost/py.typed", "toolhost/config/schema.json"} <= names
    source = Path(__file__).resolve().parents[2] / "toolhost"
    modules = {p.relative_to(source.parent).as_posix() for p in source.rglob("*.py")}
    assert modules - names == set(), "modules of the checkout missing from the wheel"
    assert not [n for n in names if n.startswith(("tests/", "plugins/", "examples/"))]
    entry_points = _read(wheels["toolhost"], ".dist-info/entry_points.txt")
    assert "[toolhost]\nbuiltins = toolhost.backends.builtins" in entry_points
    assert "toolhost = toolhost.cli:main" in entry_points


def test_plugin_wheels_have_presets_entry_points_and_depend_on_toolhost(
        wheels: dict[str, Path]) -> None:
    files = _names(wheels["toolhost-files"])
    assert {"toolhost_files/presets/readonly.yaml", "toolhost_files/py.typed",
            "toolhost_files/plugin.py", "toolhost_files/tools.py"} <= files
    assert {"toolhost_sqlite/py.typed", "toolhost_sqlite/kind.py"} <= _names(
        wheels["toolhost-sqlite"])

    expected = {"toolhost-files": "files = toolhost_files.plugin",
                "toolhost-sqlite": "sqlite = toolhost_sqlite.plugin"}
    for dist, line in expected.items():
        assert f"[toolhost]\n{line}" in _read(wheels[dist], ".dist-info/entry_points.txt")
        metadata = Parser().parsestr(_read(wheels[dist], ".dist-info/METADATA"))
        requires = [Requirement(r) for r in metadata.get_all("Requires-Dist") or []]
        toolhost = [r for r in requires if r.name == "toolhost"]
        # A plain name: pip resolves it to a toolhost installed before or alongside the plugin.
        assert len(toolhost) == 1 and toolhost[0].url is None
        assert toolhost[0].specifier.contains("0.1.0")
        # Capped below 0.2: the public index has an unrelated "toolhost" 0.2.1.
        assert not toolhost[0].specifier.contains("0.2.1")
        assert not [n for n in _names(wheels[dist]) if n.startswith("tests/")]

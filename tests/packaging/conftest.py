"""Fixtures: wheels of toolhost and the example plugins, and a fresh venv with only those.

The wheels are built from copies of the source trees (setuptools writes build/ and
*.egg-info next to the sources; copies keep concurrent runs apart) with this venv's
setuptools and no network. The fresh venv has no pip and no toolhost: the three wheels are
installed into it by this venv's pip (``pip --python``), and its third-party dependencies
(pyyaml, jinja2, ...) come from this venv through a .pth file that points at a directory
of links to them, leaving out everything toolhost-related (the editable checkout among it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from .fresh_venv import Venv

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = {
    "toolhost": ROOT,
    "toolhost-files": ROOT / "plugins" / "toolhost-files",
    "toolhost-sqlite": ROOT / "plugins" / "toolhost-sqlite",
}
# Never part of a wheel's source: the venv, caches and build output anywhere, and the big
# non-package directories at the top of the project.
_JUNK = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", ".*_cache")
_TOP = {"build", "dist", "tests", "plugins", "bench", "examples", "docs", ".ci"}


def _skip(directory: str, names: list[str]) -> set[str]:
    top = {n for n in names if n in _TOP} if Path(directory) in PROJECTS.values() else set()
    return set(_JUNK(directory, names)) | top


def _pip(*args: str, cwd: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"pip {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Distribution name -> its built wheel."""
    import setuptools

    if int(setuptools.__version__.split(".")[0]) < 70:  # older ones need the `wheel` package
        pytest.fail(f"setuptools {setuptools.__version__} is too old to build wheels here: "
                    "pip install -e '.[test]' (it needs setuptools>=70.1)")
    base = tmp_path_factory.mktemp("wheels")
    out = base / "dist"
    sources = []
    for name, project in PROJECTS.items():
        copy = base / "src" / name
        shutil.copytree(project, copy, ignore=_skip)
        sources.append(str(copy))
    _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(out),
         *sources, cwd=base)
    built = {}
    for name in PROJECTS:
        found = list(out.glob(name.replace("-", "_") + "-*.whl"))
        assert len(found) == 1, f"expected one wheel of {name} in {out}: {found}"
        built[name] = found[0]
    return built


def _third_party_links(target: Path) -> None:
    """Link every entry of this venv's site-packages into ``target``, minus toolhost's own."""
    paths = sysconfig.get_paths()
    target.mkdir()
    for site in dict.fromkeys(Path(paths[key]) for key in ("purelib", "platlib")):
        for entry in site.iterdir() if site.is_dir() else ():
            name = entry.name.lower()
            if (name.startswith(("toolhost", "__editable__", "_toolhost", "__pycache__"))
                    or name.endswith(".pth") or _has_toolhost_entry_point(entry)
                    or (target / entry.name).exists()):
                continue
            (target / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())


def _has_toolhost_entry_point(entry: Path) -> bool:
    eps = entry / "entry_points.txt"
    return entry.name.endswith(".dist-info") and eps.is_file() and "[toolhost]" in eps.read_text()


@pytest.fixture(scope="session")
def fresh(tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path]) -> Venv:
    """A new venv with toolhost and both example plugins installed from their wheels."""
    base = tmp_path_factory.mktemp("fresh")
    path = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True,
                   capture_output=True, timeout=120)
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run(
        [str(Venv(path, {}).python), "-c", code],
        check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    _third_party_links(base / "deps")
    # Appended after the venv's own site-packages: the installed wheels win over anything here.
    Path(purelib, "zz_third_party.pth").write_text(str(base / "deps") + "\n")
    _pip("--python", str(Venv(path, {}).python), "install", "--no-deps", "--no-index", "-q",
         *(str(w) for w in wheels.values()), cwd=base)

    home = base / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "GIT_", "TOOLHOST", "XDG_"))}
    bin_dir = str(Venv(path, {}).bin)
    env.update(HOME=str(home), TOOLHOST_CACHE=str(base / "cache"),
               PATH=bin_dir + os.pathsep + env.get("PATH", ""), PYTHONNOUSERSITE="1")
    return Venv(path, env)

"""A team repository's python tool imports its module from that repository, from source.

A same-named module beside the user's file, in another shared repository, as a package or a
namespace package, is refused naming both files (one process imports one module per name);
a ``.pyc`` under ``PYTHONPYCACHEPREFIX`` never runs instead of a checkout's source.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from ..config.test_repotree import cached, team

USER = ("servers:\n  mine:\n    tools:\n      ping:\n        python: {function: "
        "'teamtools:ping'}\n")
IMPOSTOR = ('def ping() -> str:\n    """ping"""\n    return "pong"\n'
            'def hello(name: str) -> str:\n    """Say hello."""\n    return "IMPOSTOR " + name\n')

SHAPES = {
    "module": {"teamtools.py": IMPOSTOR},
    "package": {"teamtools/__init__.py": IMPOSTOR},
    "namespace": {"teamtools/ping.py": IMPOSTOR},
}


def _run(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, env={**os.environ, **env})


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_user_layer_module_never_replaces_the_team_repositorys(tmp_path: Path,
                                                                  shape: str) -> None:
    _, config = team(tmp_path)
    user = tmp_path / "xdg" / "toolhost"
    user.mkdir(parents=True)
    user.joinpath("config.yaml").write_text(USER.replace(
        "teamtools:ping", "teamtools.ping:ping" if shape == "namespace" else "teamtools:ping"))
    for name, text in SHAPES[shape].items():
        user.joinpath(name).parent.mkdir(parents=True, exist_ok=True)
        user.joinpath(name).write_text(text)
    env = {"TOOLHOST_CACHE": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = _run("call", str(config), "py.hello", "name=x", cwd=tmp_path, env=env)
    assert "IMPOSTOR" not in done.stdout and "Traceback" not in done.stderr
    if done.returncode == 0:
        assert done.stdout == "hello x\n"
    else:
        assert "module 'teamtools' of this tool is" in done.stderr, done.stderr
        assert str(cached(tmp_path)) in done.stderr and str(user) in done.stderr


def test_two_repositories_with_one_module_name_are_refused(tmp_path: Path) -> None:
    from ..plugins.conftest import _make_repo

    origin, config = team(tmp_path)
    other = tmp_path / "other"
    _make_repo(other, {"lint.yaml": USER, "teamtools.py": IMPOSTOR}, tag="o1")
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {other.as_uri()}, rev: o1, path: "
                      f"lint.yaml}}\n  - {{repo: {origin.as_uri()}, rev: v1, path: base.yaml}}\n")
    env = {"TOOLHOST_CACHE": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = _run("call", str(config), "py.hello", "name=x", cwd=tmp_path, env=env)
    assert done.returncode == 1 and "IMPOSTOR" not in done.stdout
    assert "module 'teamtools' of this tool is" in done.stderr and "Traceback" not in done.stderr


def test_a_pyc_under_the_cache_prefix_never_runs_for_a_checkout(tmp_path: Path) -> None:
    _, config = team(tmp_path)
    env = {"TOOLHOST_CACHE": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
           "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc"), "PYTHONDONTWRITEBYTECODE": ""}
    assert _run("call", str(config), "py.hello", "name=x", cwd=tmp_path,
                env=env).stdout == "hello x\n"
    src = str(cached(tmp_path) / "teamtools.py")
    code = compile('def hello(name: str) -> str:\n    """Say hello."""\n    return "PYC"\n',
                   src, "exec")
    st = os.stat(src)
    for tag in (sys.implementation.cache_tag,):
        pyc = Path(str(tmp_path / "pyc") + os.path.dirname(src),
                   f"teamtools.{tag}.pyc")
        pyc.parent.mkdir(parents=True, exist_ok=True)
        pyc.write_bytes(importlib.util.MAGIC_NUMBER + struct.pack(
            "<III", 0, int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF)
            + marshal.dumps(code))
    done = _run("call", str(config), "py.hello", "name=x", cwd=tmp_path, env=env)
    assert done.stdout == "hello x\n", (done.stdout, done.stderr)

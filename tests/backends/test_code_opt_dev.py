"""Developer tools' options that load code (type checkers, linters, bundlers, test and task
runners): a value there is a load error, as `pytest -p` and `make -f` are. mypy was tried for
real: `--config-file` with `plugins = evil.py` imported it, `--python-executable` ran a fake
python. A value elsewhere, or a literal file there, still loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd

REFUSED = [
    ["mypy", "--config-file", "{{ v }}", "src"],
    ["mypy", "--config-file={{ v }}", "src"],
    ["mypy", "--python-executable", "{{ v }}", "src"],
    ["pylint", "--rcfile", "{{ v }}", "pkg"],
    ["pylint", "--load-plugins={{ v }}", "pkg"],
    ["pylint", "--init-hook", "{{ v }}", "pkg"],
    ["flake8", "--config", "{{ v }}"],
    ["flake8", "--append-config={{ v }}"],
    ["sphinx-build", "-c", "{{ v }}", "docs", "out"],
    ["mkdocs", "build", "-f", "{{ v }}"],
    ["pre-commit", "run", "-c", "{{ v }}"],
    ["just", "-f", "{{ v }}", "build"],
    ["just", "--justfile", "{{ v }}"],
    ["task", "-t", "{{ v }}", "build"],
    ["task", "--dir", "{{ v }}", "build"],
    ["nox", "-f", "{{ v }}"],
    ["ant", "-buildfile", "{{ v }}"],
    ["ant", "-lib", "{{ v }}"],
    ["meson", "compile", "-C", "{{ v }}"],
    ["eslint", "-c", "{{ v }}", "src"],
    ["eslint", "--plugin", "{{ v }}", "src"],
    ["eslint", "--rulesdir", "{{ v }}", "src"],
    ["prettier", "--plugin={{ v }}", "--check", "."],
    ["webpack", "--config", "{{ v }}"],
    ["vite", "build", "-c", "{{ v }}"],
    ["vitest", "--config", "{{ v }}"],
    ["jest", "-c", "{{ v }}"],
    ["mocha", "-r", "{{ v }}"],
    ["mocha", "--require={{ v }}"],
    ["babel", "--config-file", "{{ v }}", "src"],
    ["rubocop", "-r", "{{ v }}"],
    ["rubocop", "--config", "{{ v }}"],
    ["exiftool", "-config", "{{ v }}", "a.jpg"],
    ["tcpdump", "-w", "x.pcap", "-z", "{{ v }}"],
    ["rpm", "--eval", "{{ v }}"],
    ["rpm", "-E", "%{{ v }}"],
    ["timeout", "60", "mypy", "--config-file", "{{ v }}"],
]


@pytest.mark.parametrize("argv", REFUSED, ids=" ".join)
def test_a_value_there_is_a_load_error(config: Config, argv: list[str]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    (problem,) = info.value.problems
    assert "the model would choose the program or code that runs" in problem.message or \
        "inside code" in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["mypy", "--config-file", "mypy.ini", "{{ v }}"],
    ["mypy", "--strict", "--", "{{ v }}"],
    ["pylint", "--rcfile", ".pylintrc", "--", "{{ v }}"],
    ["eslint", "-c", "eslint.config.js", "--", "{{ v }}"],
    ["jest", "-t", "{{ v }}"],
    ["mocha", "--grep", "{{ v }}"],
    ["just", "{{ v }}"],
    ["rpm", "-q", "--", "{{ v }}"],
    ["tcpdump", "-c", "{{ v }}", "-w", "x.pcap"],
], ids=" ".join)
def test_values_elsewhere_still_load(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": cmd(argv)}))


def test_real_mypy_runs_what_these_options_name(tmp_path: Path) -> None:
    """Why they are code: a config file's plugin is imported, the python executable runs."""
    plugin = tmp_path / "plug.py"
    marker = tmp_path / "imported"
    plugin.write_text(f"open({str(marker)!r}, 'w').close()\n"
                      "def plugin(version):\n    from mypy.plugin import Plugin\n"
                      "    return Plugin\n")
    (tmp_path / "evil.ini").write_text(f"[mypy]\nplugins = {plugin}\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYPY")}
    subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                    "evil.ini", "a.py"], cwd=tmp_path, env=env, capture_output=True,
                   timeout=300, check=False)
    assert marker.exists()

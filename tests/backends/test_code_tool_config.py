"""A value that writes a package manager's or CLI's settings naming commands it runs later:
`npm config set script-shell {{ v }}` made every later `npm run` start the model's program
(real npm: a fake shell wrote a file). Load errors, as `git config KEY VALUE` is; a literal
harmless key, a read, or an install of a literal package still loads."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd

REFUSED = [
    ["npm", "config", "set", "{{ v }}", "x"],
    ["npm", "config", "set", "script-shell", "{{ v }}"],
    ["npm", "config", "set", "script-shell={{ v }}"],
    ["npm", "config", "set", "{{ v }}=x"],
    ["npm", "set", "node-options", "{{ v }}"],
    ["npm", "config", "set", "@acme:registry", "{{ v }}"],
    ["npm", "config", "set", "--location=project", "{{ v }}", "x"],
    ["npm", "config", "set", "color", "always", "editor", "{{ v }}"],
    ["pnpm", "config", "set", "{{ v }}", "x"],
    ["yarn", "config", "set", "registry", "{{ v }}"],
    ["timeout", "60", "npm", "config", "set", "userconfig", "{{ v }}"],
    ["pip", "config", "set", "global.index-url", "{{ v }}"],
    ["pip", "config", "set", "{{ v }}", "x"],
    ["gh", "alias", "set", "x", "{{ v }}"],
    ["gh", "alias", "set", "{{ v }}", "pr list"],
    ["gh", "config", "set", "editor", "{{ v }}"],
]


@pytest.mark.parametrize("argv", REFUSED, ids=" ".join)
def test_a_value_there_is_a_load_error(config: Config, argv: list[str]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    (problem,) = info.value.problems
    assert "the model would choose the program or code that runs" in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["npm", "config", "set", "color", "{{ v }}"],
    ["npm", "config", "set", "color={{ v }}"],
    ["npm", "config", "get", "{{ v }}"],
    ["npm", "run", "build", "--", "{{ v }}"],
    ["gh", "config", "set", "prompt", "{{ v }}"],
    ["gh", "config", "get", "{{ v }}"],
    ["gh", "issue", "view", "{{ v }}"],
    ["pip", "config", "set", "global.timeout", "{{ v }}"],
], ids=" ".join)
def test_what_still_loads(config: Config, argv: list[str]) -> None:
    compile_tools(config({"t": cmd(argv)}))


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_real_npm_runs_the_script_shell_it_was_set(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "package.json").write_text('{"name": "p", "version": "1.0.0", '
                                       '"scripts": {"hi": "echo hi"}}')
    marker = tmp_path / "ran"
    shell = tmp_path / "sh"
    shell.write_text(f"#!/bin/sh\ntouch {marker}\nexec /bin/sh \"$@\"\n")
    shell.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path),
           "NPM_CONFIG_USERCONFIG": str(tmp_path / "npmrc"), "NPM_CONFIG_UPDATE_NOTIFIER": "false"}
    for args in (["config", "set", "script-shell", str(shell)], ["run", "hi"]):
        subprocess.run(["npm", *args], cwd=proj, env=env, capture_output=True, timeout=120,
                       check=True)
    assert marker.exists()

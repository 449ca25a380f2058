"""A package install whose package a value chooses (``pip install {{ pkg }}``, ``npm
install``, ``cargo install``, ``brew install`` ...): the package's own code (setup.py, a
build backend, postinstall, build.rs) runs with the user's rights, chosen by the model, so
it is a load error unless ``unsafe_code_placeholders: true``; npm-family installs passing
``--ignore-scripts`` literally, and commands that only read about a package, still load."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd

V = "{{ v }}"


@pytest.mark.parametrize("argv", [
    ["pip", "install", V], ["pip3", "install", "-U", V], ["pip3.12", "install", V],
    ["pip", "download", V], ["pip", "wheel", V], ["pip", "install", "-r", V],
    ["pip", "install", "mypkg==" + V], ["pip", "install", "--index-url", V, "mypkg"],
    ["pip", "-q", "install", V], ["pip", "--index-url", "https://x", "install", V],
    ["python3", "-m", "pip", "install", V], ["python", "-I", "-m", "pip", "install", V],
    ["/usr/bin/python3.11", "-m", "pip", "install", "--user", V],
    ["uv", "pip", "install", V], ["uv", "add", V], ["uv", "tool", "install", V],
    ["pipx", "install", V], ["poetry", "add", V], ["conda", "install", "-y", V],
    ["npm", "install", V], ["npm", "i", "-g", V], ["pnpm", "add", V], ["yarn", "add", V],
    ["yarn", "global", "add", V], ["bun", "add", V], ["cargo", "install", V],
    ["gem", "install", V], ["brew", "install", V], ["brew", "tap", V],
    ["composer", "require", V], ["timeout", "600", "pip", "install", V],
    ["sudo", "-u", "x", "npm", "install", V], ["env", "PIP_NO_INPUT=1", "pip", "install", V],
    ["pip", V, "mypkg"],  # the value may be the subcommand
])
def test_a_value_choosing_what_installs_is_a_load_error(config: Config, argv: list[Any]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": ["v"]})}))
    assert "installs: the package's own code" in str(info.value), str(info.value)
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True,
                                                  "allow_dash": ["v"]})}))


@pytest.mark.parametrize("argv", [
    ["npm", "install", "--ignore-scripts", V], ["pnpm", "add", "--ignore-scripts", V],
    ["yarn", "add", V, "--ignore-scripts"], ["npm", "install", "--ignore-scripts", "--", V],
])
def test_ignore_scripts_holds_only_where_no_value_can_turn_it_off(config: Config,
                                                                  argv: list[Any]) -> None:
    """With ``allow_dash`` a value may be ``--ignore-scripts=false``: npm takes the last."""
    compile_tools(config({"t": cmd(argv)}))
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": ["v"]})}))
    assert "installs: the package's own code" in str(info.value), str(info.value)


@pytest.mark.parametrize("argv", [
    ["npm", "view", V], ["npm", "search", V],
    ["pip", "show", V], ["pip", "index", "versions", V], ["gem", "list", V],
    ["brew", "info", V], ["cargo", "search", V], ["pip", "install", "mypkg"],
    ["pip", "install", "-r", "requirements.txt"], ["uv", "pip", "list"],
    ["npm", "install", "left-pad"], ["echo", "pip", "install", V],
])
def test_an_install_the_config_chooses_still_loads(config: Config, argv: list[Any]) -> None:
    options = {"allow_dash": ["v"]} if any(V in str(a) for a in argv) else {}
    compile_tools(config({"t": cmd(argv, options=options)}))

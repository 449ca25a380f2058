"""An ``isolation: process`` worker starts with a least-privilege environment: a secret the
host holds for another server (an http tool's token, a gateway's credentials) used to reach
every worker, and every program a python tool started. Now a worker gets the base names, the
server's ``env:`` and the tool's ``pass_env:``; a program it starts inherits no more."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.backends.worker_env import worker_env
from toolhost.compile import CompiledTools, compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError

pytestmark = pytest.mark.anyio

SECRET = "th-r35-secret-value-0123456789"

TOOLS = '''
import json, os, subprocess, sys

def names() -> list:
    return sorted(os.environ)

def child_names() -> list:
    code = "import json, os; print(json.dumps(sorted(os.environ)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)
'''


@pytest.fixture
def write(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    module = f"th_wenv_{os.getpid()}_{abs(hash(tmp_path)) % 10**6}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(TOOLS))

    def make(tool_extra: str, server_extra: str = "") -> Path:
        lines = ["toolhost: 1", "servers:", "  w:", "    timeout: 60s"]
        lines += [f"    {line}" for line in server_extra.splitlines() if line]
        lines += ["    tools:"]
        for name in ("names", "child_names"):
            lines.append(f"      {name}: {{python: {{function: '{module}:{name}', "
                         f"isolation: process{tool_extra}}}}}")
        path = tmp_path / "w.yaml"
        path.write_text("\n".join(lines) + "\n")
        return path

    yield make
    sys.modules.pop(module, None)


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TH_R35_OTHER_TOKEN", SECRET)
    monkeypatch.setenv("TH_R35_REGION", "eu")
    monkeypatch.setenv("PYTHONANYWHERE_TOKEN", SECRET)


@pytest.fixture
async def tools_of(write: Callable[[str, str], Path]
                   ) -> AsyncIterator[Callable[..., CompiledTools]]:
    made: list[CompiledTools] = []

    def build(tool_extra: str = "", server_extra: str = "") -> CompiledTools:
        made.append(compile_tools(load_config(str(write(tool_extra, server_extra)))))
        return made[-1]

    yield build
    for tools in made:
        await tools.aclose()


async def _names(tools: CompiledTools, name: str = "names") -> list[str]:
    tool = tools.tool("w", name)
    result = await tool.call({}, CallContext(tool=tool.wire_name))
    assert not result.is_error, result.text_content
    assert isinstance(result.structured, dict)
    return list(result.structured["result"])


@pytest.mark.usefixtures("secrets")
async def test_a_worker_and_its_children_get_no_other_secret(
        tools_of: Callable[..., CompiledTools]) -> None:
    tools = tools_of()
    for name in ("names", "child_names"):
        seen = await _names(tools, name)
        assert "TH_R35_OTHER_TOKEN" not in seen and "PYTHONANYWHERE_TOKEN" not in seen, name
        assert "TH_R35_REGION" not in seen
        assert "PATH" in seen and "TOOLHOST_RUN_ID" in seen


@pytest.mark.usefixtures("secrets")
async def test_pass_env_names_prefixes_and_all(tools_of: Callable[..., CompiledTools]) -> None:
    assert "TH_R35_REGION" in await _names(tools_of(", pass_env: [TH_R35_REGION]"))
    assert "TH_R35_OTHER_TOKEN" not in await _names(tools_of(", pass_env: [TH_R35_REGION]"))
    both = await _names(tools_of(", pass_env: ['TH_R35_*']"))
    assert {"TH_R35_REGION", "TH_R35_OTHER_TOKEN"} <= set(both)
    assert "PYTHONANYWHERE_TOKEN" in await _names(tools_of(", pass_env: ['*']"))


@pytest.mark.usefixtures("secrets")
async def test_the_server_env_reaches_its_workers(tools_of: Callable[..., CompiledTools]) -> None:
    seen = await _names(tools_of("", "env: {TH_R35_DECLARED: x}"))
    assert "TH_R35_DECLARED" in seen and "TH_R35_OTHER_TOKEN" not in seen


@pytest.mark.parametrize(("extra", "match"), [
    (", pass_env: [TH_R35_REGION]", "pass_env needs isolation: process"),
    (", isolation: process, pass_env: ['A=B']", "pass_env"),
    (", isolation: process, pass_env: ['*A']", "pass_env"),
])
def test_pass_env_mistakes_are_located_load_errors(tmp_path: Path, extra: str,
                                                   match: str) -> None:
    (tmp_path / "m.py").write_text("def f() -> int:\n    return 1\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      f"      t: {{python: {{function: 'm:f'{extra}}}}}\n")
    with pytest.raises(ConfigError) as info:
        compile_tools(load_config(str(config)))
    text = str(info.value)
    assert match in text and "c.yaml" in text and "pass_env" in text


@pytest.mark.parametrize(("value", "said"), [
    ("[" + ", ".join(f"V{n}" for n in range(100_000)) + "]", "at most 100"),
    ("[" + "A" * 1_000_000 + "]", "at most 256"),
])
def test_a_huge_pass_env_is_one_located_line(tmp_path: Path, value: str, said: str) -> None:
    (tmp_path / "m.py").write_text("def f() -> int:\n    return 1\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      t: {python: {function: 'm:f', isolation: process, "
                      f"pass_env: {value}}}}}\n")
    with pytest.raises(ConfigError) as info:
        compile_tools(load_config(str(config)))
    text = str(info.value)
    assert said in text and "c.yaml:5" in text and "pass_env" in text
    assert len(text) < 2_000, text[:500]  # the value is not written back whole


def test_toolhost_variables_holding_a_secret_stay_in_the_host() -> None:
    """R36-9: every ``TOOLHOST_*`` variable but ``TOOLHOST_SESSION_SECRET`` reached the
    worker: ``serve --token-env TOOLHOST_TOKEN`` (or ``TOOLHOST_BEARER``, a name that does
    not say it) handed the server's bearer token to every python tool. Now a ``TOOLHOST_*``
    name that says it is a secret, or whose value the host hides, is not passed (unless
    ``pass_env`` names it)."""
    from toolhost.redaction import remember_own

    bearer = "th-r36-bearer-value-0123456789"
    remember_own([bearer])
    host = {"TOOLHOST_TOKEN": "t0k3n-value", "TOOLHOST_BEARER": bearer,
            "TOOLHOST_API_KEY": "k3y-value", "TOOLHOST_DB_PASSWORD": "pw-value",
            "TOOLHOST_LOG_FORMAT": "json", "TOOLHOST_DEBUG": "1"}
    assert worker_env({}, [], host) == {"TOOLHOST_LOG_FORMAT": "json", "TOOLHOST_DEBUG": "1",
                                        "PATH": os.defpath}
    assert worker_env({}, ["TOOLHOST_TOKEN"], host)["TOOLHOST_TOKEN"] == "t0k3n-value"


def test_worker_env_keeps_the_interpreter_s_settings() -> None:
    host = {"PATH": "/bin", "PYTHONPATH": "/lib", "LC_CTYPE": "C.UTF-8", "VIRTUAL_ENV": "/v",
            "LD_LIBRARY_PATH": "/l", "HTTPS_PROXY": "http://u:p@proxy", "AWS_SECRET": "s",
            "PYTHON_KEY": "s", "GITHUB_TOKEN": "s", "TOOLHOST_LOG_FORMAT": "json",
            "TOOLHOST_SESSION_SECRET": "s"}
    env = worker_env({"X": "1"}, [], host)
    assert env == {"PATH": "/bin", "PYTHONPATH": "/lib", "LC_CTYPE": "C.UTF-8",
                   "VIRTUAL_ENV": "/v", "LD_LIBRARY_PATH": "/l", "TOOLHOST_LOG_FORMAT": "json",
                   "X": "1"}
    assert worker_env({}, ["AWS_*", "HTTPS_PROXY"], host).keys() >= {"AWS_SECRET",
                                                                     "HTTPS_PROXY"}
    assert worker_env({}, [], {})["PATH"] == os.defpath

"""An ``isolation: process`` tool that reads stdin (``input()``, ``sys.stdin``, ``os.read(0)``,
a child inheriting fd 0) reads end of file: the worker's stdin is the host's request pipe,
and a read there waited for the next request until the call timed out (and could take it)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

Config = Callable[..., HostConfig]

MODULE = '''
import os, subprocess, sys

def child() -> str:
    return "read:" + subprocess.run(["cat"], stdout=subprocess.PIPE, timeout=5,
                                    check=False).stdout.decode()

def builtin_input() -> str:
    try:
        return "read:" + input()
    except EOFError:
        return "read:"

def sys_stdin() -> str:
    return "read:" + sys.stdin.read()

def fd_zero() -> str:
    return "read:" + os.read(0, 100).decode()
'''
READERS = ["child", "builtin_input", "sys_stdin", "fd_zero"]


@pytest.mark.anyio
@pytest.mark.parametrize("reader", READERS)
async def test_a_worker_tool_reads_end_of_file(config: Config, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               reader: str) -> None:
    name = f"th_worker_stdin_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    compiled = compile_tools(config({"t": {
        "kind": "python", "options": {"function": f"{name}:{reader}", "isolation": "process",
                                      "workers": 1}, "timeout": 8}}))
    try:
        for _ in range(2):  # and the warm worker still reads the next request
            result = await compiled.tool("demo", "t").call({}, CallContext(tool="t"))
            assert result.text_content == "read:", result.text_content
    finally:
        await compiled.aclose()

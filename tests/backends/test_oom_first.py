"""A tool that allocates without bound is the OOM killer's first choice, not the host
(backends33): command runs and ``isolation: process`` workers (and all they start) get
``oom_score_adj`` 1000; the host keeps its own."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(
    not os.path.exists("/proc/self/oom_score_adj"), reason="Linux /proc only")]

READ = "print(open('/proc/self/oom_score_adj').read().strip())"


async def test_tools_go_first(tmp_path: Path) -> None:
    module = f"th_oom_{os.getpid()}_{abs(hash(tmp_path)) % 10**6}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(f'''
        import subprocess, sys

        def adj() -> list:
            own = open("/proc/self/oom_score_adj").read().strip()
            child = subprocess.run([sys.executable, "-c", {READ!r}], capture_output=True,
                                   text=True).stdout.strip()
            return [own, child]
    '''))
    nested = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {READ!r}])"
    tools_ = {"cmd": {"command": {"argv": [sys.executable, "-c", READ]}},
              "nested": {"command": {"argv": [sys.executable, "-c", nested]}},
              "worker": {"python": {"function": f"{module}:adj", "isolation": "process"}}}
    config = {"toolhost": 1, "servers": {"o": {"tools": tools_}}}
    (tmp_path / "o.yaml").write_text(json.dumps(config))  # JSON is YAML
    before = Path("/proc/self/oom_score_adj").read_text().strip()
    tools = compile_tools(load_config(str(tmp_path / "o.yaml")))
    try:
        for name in ("cmd", "nested", "worker"):
            tool = tools.tool("o", name)
            result = await tool.call({}, CallContext(tool=tool.wire_name))
            assert not result.is_error, result.text_content
            seen = json.loads(result.text_content) if name == "worker" else \
                result.text_content.split()
            assert seen in (["1000"], ["1000", "1000"]), (name, result.text_content)
    finally:
        await tools.aclose()
        sys.modules.pop(module, None)
    assert Path("/proc/self/oom_score_adj").read_text().strip() == before

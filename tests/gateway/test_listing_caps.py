"""What one upstream lists is bounded: at most 10,000 tools (and as many resources, templates,
prompts), at most 100 pages of each listing; a warning naming the upstream says what was cut."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolhost.gateway.client import MAX_PAGES, MAX_TOOLS, UpstreamConnection
from toolhost.gateway.passthrough import list_content
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, hostile_config


def tools(config: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config)],
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, **env})
    return done, time.monotonic() - started


def test_the_caps() -> None:
    assert (MAX_TOOLS, MAX_PAGES) == (10_000, 100)


def test_a_huge_tool_list_is_cut_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    # 10,002 of each: one page over the cap is enough. The listings themselves, through the
    # connection every door (tools, serve, run, validate --connect) lists with: compiling
    # and printing 10,000 tools in a `toolhost tools` process cost three times the listing
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), connect_timeout=120.0,
                        env={"HOSTILE_MODE": "big_list", "HOSTILE_N": "10002"})
    connection = UpstreamConnection(spec, "h")
    try:
        with caplog.at_level(logging.WARNING, logger="toolhost.gateway"):
            listed = connection.list_tools()
            content = list_content(connection, "h")
    finally:
        connection.close()
    assert len(listed) == 10_000 and listed[-1]["name"] == "t9999"
    assert not any(t["name"] == "t10000" for t in listed)
    assert len(content.prompts) == 10_000 and "p10000" not in content.prompts
    for what in ("tools", "resources", "prompts"):
        assert f"upstream server 'h' lists more than 10,000 {what}; the rest are left out" \
            in caplog.text, what


def test_endless_pages_are_cut_with_a_warning(tmp_path: Path) -> None:
    done, took = tools(hostile_config(tmp_path), HOSTILE_MODE="big_list,cursor_loop",
                       HOSTILE_N="1")
    assert done.returncode == 0, done.stderr[-2000:]
    for what in ("tools", "resources", "prompts"):
        assert (f"upstream server 'h' lists its {what} on more than 100 pages; the rest are "
                "left out") in done.stderr
    assert took < 60

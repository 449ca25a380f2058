"""What one upstream lists is bounded: at most 10,000 tools (and as many resources, templates,
prompts), at most 100 pages of each listing; a warning naming the upstream says what was cut."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from toolhost.gateway.client import MAX_PAGES, MAX_TOOLS

from .conftest import hostile_config


def tools(config: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config)],
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, **env})
    return done, time.monotonic() - started


def test_the_caps() -> None:
    assert (MAX_TOOLS, MAX_PAGES) == (10_000, 100)


def test_a_huge_tool_list_is_cut_with_a_warning(tmp_path: Path) -> None:
    # 10,002 of each: one page over the cap is enough (30,000 cost twice as long to list)
    done, took = tools(hostile_config(tmp_path), HOSTILE_MODE="big_list", HOSTILE_N="10002")
    assert took < 60
    assert done.returncode == 0, done.stderr[-2000:]
    assert "upstream server 'h' lists more than 10,000 tools; the rest are left out" \
        in done.stderr
    assert "upstream server 'h' lists more than 10,000 resources; the rest are left out" \
        in done.stderr
    assert "upstream server 'h' lists more than 10,000 prompts; the rest are left out" \
        in done.stderr
    assert "mcp__h__t9999" in done.stdout and "mcp__h__t10000" not in done.stdout
    assert "Traceback" not in done.stderr


def test_endless_pages_are_cut_with_a_warning(tmp_path: Path) -> None:
    done, took = tools(hostile_config(tmp_path), HOSTILE_MODE="big_list,cursor_loop",
                       HOSTILE_N="1")
    assert done.returncode == 0, done.stderr[-2000:]
    for what in ("tools", "resources", "prompts"):
        assert (f"upstream server 'h' lists its {what} on more than 100 pages; the rest are "
                "left out") in done.stderr
    assert took < 60

"""One message from an upstream is at most ``max_message_bytes``: read in linear time, refused
beyond it with an error naming the upstream, in bounded memory (the host's peak RSS is
measured), the connection made again for the next call."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.peak_memory import peak_kb, toolhost_argv
from toolhost.gateway.client import UpstreamConnection, UpstreamError
from toolhost.gateway.spec import DEFAULT_MAX_MESSAGE_BYTES, UpstreamSpec

from .conftest import HOSTILE, hostile_config, http_upstream


def call(config: Path, tool: str,
         **env: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """``toolhost call CONFIG TOOL text=hi``: the outcome, seconds taken, peak RSS in MB."""
    started = time.monotonic()
    peak = config.parent / "peak.kb"
    done = subprocess.run(toolhost_argv("call", str(config), tool, "text=hi"),
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env, "PEAK_FILE": str(peak)})
    assert peak.exists(), done.stderr[-2000:]
    return done, time.monotonic() - started, peak_kb(peak) / 1024


def test_the_default_cap_is_documented_and_sane() -> None:
    assert DEFAULT_MAX_MESSAGE_BYTES == 16 * 1024 * 1024
    docs = (Path(__file__).parents[2] / "docs" / "gateway.md").read_text()
    assert "max_message_bytes" in docs and "16 MiB" in docs


def test_a_huge_stdio_line_is_refused_fast_in_bounded_memory(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, timeout="60s")
    done, took, peak = call(config, "h.echo", HOSTILE_MODE="huge_result",
                            HOSTILE_N=str(64 * 1024 * 1024))
    assert done.returncode != 0
    assert ("upstream server 'h' sent a line larger than 16 MiB (max_message_bytes)"
            in done.stderr + done.stdout)
    assert "Traceback" not in done.stderr
    assert took < 40  # before: minutes (the line was joined again for every 64 KB read)
    assert peak < 400, f"peak RSS {peak:.0f} MB"


def test_the_cap_is_a_config_key_and_the_connection_is_made_again(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)),
                        env={"HOSTILE_MODE": "huge_result", "HOSTILE_N": "3000000",
                             "HOSTILE_LOG": str(log)},
                        max_message_bytes=1024 * 1024, connect_timeout=10.0)
    connection = UpstreamConnection(spec, "h")
    try:
        with pytest.raises(UpstreamError, match=r"^upstream server 'h' sent a line larger than "
                           r"1 MiB \(max_message_bytes\): the connection is dropped$"):
            connection.call_tool("echo", {"text": "x"}, 20.0)
        assert [t["name"] for t in connection.list_tools()] == ["echo"]  # started again
        assert log.read_text().count('"initialize"') == 2
    finally:
        connection.close()


def test_a_message_just_under_the_cap_passes(tmp_path: Path) -> None:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)),
                        env={"HOSTILE_MODE": "huge_result", "HOSTILE_N": "1000000"},
                        max_message_bytes=1024 * 1024, connect_timeout=10.0)
    connection = UpstreamConnection(spec, "h")
    try:
        result = connection.call_tool("echo", {"text": "x"}, 20.0)
        assert len(result["content"][0]["text"]) == 1_000_000
    finally:
        connection.close()


def test_max_message_bytes_is_checked_at_load(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    text = config.read_text().replace("      timeout: 5s\n",
                                      "      timeout: 5s\n      max_message_bytes: 10\n")
    config.write_text(text)
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "servers.h.mcp.max_message_bytes: must be at least 1024, got 10" in done.stderr


def _http_config(tmp_path: Path, port: int, extra: str = "") -> Path:
    config = tmp_path / "http.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  b:
    timeout: 60s
    mcp:
      url: http://127.0.0.1:{port}/mcp
{extra}permissions:
  default: allow
""")
    return config


def test_a_huge_http_answer_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    with http_upstream(HOSTILE, HOSTILE_MODE="huge_result", HOSTILE_N="400000000") as port:
        done, took, peak = call(_http_config(tmp_path, port), "b.echo")
    out = done.stderr + done.stdout
    assert "upstream server 'b' sent an answer larger than 16 MiB (max_message_bytes)" in out
    assert "Traceback" not in done.stderr
    assert peak < 400, f"peak RSS {peak:.0f} MB"  # before: several GB
    assert took < 60


def test_a_compressed_http_answer_is_refused(tmp_path: Path) -> None:
    with http_upstream(HOSTILE, HOSTILE_MODE="gzip") as port:
        done, _, _ = call(_http_config(tmp_path, port), "b.echo")
    assert done.returncode != 0
    assert ("upstream server 'b' sent a gzip-compressed answer though toolhost asked for none"
            in done.stderr + done.stdout)
    assert "Traceback" not in done.stderr


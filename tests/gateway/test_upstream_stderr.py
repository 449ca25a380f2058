"""An upstream's stderr goes into toolhost's log (levelled, secrets hidden, JSON when asked)
instead of being written over it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import HOSTILE, UPSTREAM, at_once


def write_config(tmp_path: Path) -> Path:
    config = tmp_path / "gateway.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp: {{command: [{sys.executable}, {UPSTREAM}, stdio],
           env: {{UPSTREAM_STDERR: "${{NOTES_TOKEN}}"}}}}
permissions: {{default: allow}}
""")
    return config


def run_tools(tmp_path: Path, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    config = write_config(tmp_path)
    return subprocess.run([sys.executable, "-m", "toolhost", *flags, "tools", str(config)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NOTES_TOKEN": "tok-abcdef123456", **env})


def test_lines_are_levelled_and_secrets_hidden(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    done, verbose = at_once(["tools", str(config)], ["-v", "tools", str(config)],
                            NOTES_TOKEN="tok-abcdef123456")  # side by side
    assert done.returncode == 0, done.stderr
    assert "toolhost: WARNING: upstream notes: warning: cache is cold for ***" in done.stderr
    assert "booting the upstream" not in done.stderr  # info: shown with -v
    assert "tok-abcdef123456" not in done.stderr + verbose.stderr
    assert "upstream notes: booting the upstream" in verbose.stderr


def test_json_logs_stay_json(tmp_path: Path) -> None:
    done = run_tools(tmp_path, "-v", TOOLHOST_LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]  # every line is JSON
    upstream = [r for r in records if r["logger"] == "toolhost.upstream.notes"]
    assert [(r["level"], r["message"]) for r in upstream] == [
        ("info", "upstream notes: booting the upstream"),
        ("warning", "upstream notes: warning: cache is cold for ***")]


# what the upstream writes to stderr before it serves (a Python expression), and what its
# lines may cost toolhost's log
FLOODS = {
    "20,000 error lines": "'error: boom\\n' * 20000",
    "one 3 MB line": "'error: ' + 'Z' * 3_000_000 + '\\n'",
    "5,000 lines of 10 kB": "('error: ' + 'Y' * 10_000 + '\\n') * 5000",
    "mixed levels": "''.join(f'{w}: line {i}\\n' for i in range(9000) "
                    "for w in ('warning', 'error', 'fatal'))",
}


@pytest.mark.parametrize("flood", list(FLOODS.values()), ids=list(FLOODS))
def test_a_flood_on_stderr_is_a_bounded_number_of_log_lines(tmp_path: Path,
                                                             flood: str) -> None:
    config = tmp_path / "flood.yaml"
    # the raw JSON-RPC upstream: what is measured is its stderr, not an SDK's start
    start = (f"import sys, runpy; sys.stderr.write({flood}); sys.stderr.flush(); "
             f"sys.argv = ['u']; runpy.run_path({str(HOSTILE)!r}, run_name='__main__')")
    config.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp: {{command: [{sys.executable}, -c, {json.dumps(start)}]}}
permissions: {{default: allow}}
""")
    done = subprocess.run([sys.executable, "-m", "toolhost", "-v", "tools", str(config)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if "upstream notes: " in line]
    assert len(lines) <= 101, len(lines)  # the first 100, and the count of the rest
    assert sum(map(len, lines)) < 101 * 4200
    if len(lines) > 100:
        assert re.fullmatch(r"toolhost: WARNING: upstream notes: [0-9,]+ more lines on stderr "
                            r"not shown \(at most 20 a minute are logged\)", lines[-1])
    assert not [line for line in lines if "upstream notes: ZZ" in line or
                "upstream notes: YY" in line]  # no line's rest read as a line


def test_a_secret_cut_by_the_line_read_is_hidden_whole(tmp_path: Path) -> None:
    # 4,090 characters, then the secret: the 4,096-byte read cut it in two log lines
    config = tmp_path / "gateway.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp: {{command: [{sys.executable}, {UPSTREAM}, stdio],
           env: {{UPSTREAM_STDERR_PADDED: "${{NOTES_TOKEN}}"}}}}
permissions: {{default: allow}}
""")
    done = subprocess.run([sys.executable, "-m", "toolhost", "-v", "tools", str(config)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NOTES_TOKEN": "tok-abcdef123456"})
    assert done.returncode == 0, done.stderr
    assert "*** end" in done.stderr
    for piece in ("tok-ab", "ef123456", "abcdef"):
        assert piece not in done.stderr

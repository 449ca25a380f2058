"""Hostile config files through the real `toolhost validate`: each one gets located lines (or
loads), never a traceback, within a time bound and in bounded memory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.config.hostile_corpus import write
from tests.peak_memory import peak_kb, toolhost_argv

MAX_RSS_KB = 500 * 1024


def _validate(paths: list[Path], cwd: Path, **env: str) -> tuple[int, str, int]:
    """Exit code, stderr+stdout, and the child's peak RSS in KB."""
    peak = cwd / "peak.kb"
    proc = subprocess.Popen(toolhost_argv("validate", "--no-layers", *map(str, paths)), cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **env, "PEAK_FILE": str(peak)})
    try:
        out, _ = proc.communicate(timeout=120)  # a guard against a hang, not a speed test
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"validate hung; output so far:\n{out[-2000:]}")
    return proc.returncode, out, peak_kb(peak)


def test_the_hostile_corpus_gets_located_lines_never_a_crash(tmp_path: Path) -> None:
    paths = write(tmp_path)
    code, out, rss = _validate(paths, tmp_path)
    assert code == 1, out[-3000:]
    assert "Traceback" not in out and "internal error" not in out, out[-3000:]
    assert rss < MAX_RSS_KB, rss
    lines = out.splitlines()
    for path in paths:  # every file answered, each on lines of its own
        assert any(line.startswith(str(path) + ":") or line.startswith(path.name)
                   or str(path) in line for line in lines), path.name
    for line in lines:
        assert len(line) < 1200, line[:300]  # values are cut, never echoed in full
    text = "\n".join(lines)
    for expected in [
        "laughs.yaml:2:", "YAML aliases expand to more than 100,000 nodes",
        "deep-flow-seq.yaml:2:103: x[0][0][0]", "deep-block.yaml:102:",
        "deep-array.toml:2:105: x[0][0][0]", "deep-inline.toml:2:", ": x.a.a.a.a",
        "nested more than 100 mappings or lists deep",
        "bigint.yaml:2:4: x: an integer of more than 4,000 digits",
        "bigint.toml:2:5: invalid TOML: a number of more than 4,000 digits",
        "inf-timeout.yaml:7:18: servers.s.tools.t.timeout: inf is not a finite number",
        "inf-timeout.toml:4:1: servers.s.tools.t.timeout: inf is not a finite number",
        "redos-param.yaml:11:13: servers.s.tools.t.params.p.default: the default does not "
        "match",
        "backreferences are not supported", "lookaround is not supported",
        "python-tag.yaml:2:4: x: unsupported YAML tag",
        "invalid-utf8.yaml:2:4: x: not UTF-8 text", "nul.yaml:2:5: x: invalid YAML: control",
        "fifo.yaml: cannot read: not a regular file", "dir.yaml: cannot read: a directory",
        "too-big.yaml: config file too large (17,825,792 bytes, the limit is 16,777,216)",
        "extends: not a regular file: /dev/zero", "merge-loop.yaml:2:4: a: recursive",
        "bigint-hex-timeout.yaml:7:18: servers.s.tools.t.timeout: an integer of more than",
        "bigint-bin-timeout.toml:4:1: servers.s.tools.t.timeout: an integer of more than",
        "schema-remote-ref.yaml:5:7: servers.s.tools.t.input_schema: inputSchema cannot be "
        "used: $ref 'http://127.0.0.1:9/x.json' is not local",
        "many-problems.yaml: ... and 19,000 more not shown",
        "headers.toml:83335:1: more than 500,000 values",
    ]:
        assert expected in text, expected


def test_the_size_limit_is_set_by_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\n# " + "x" * 2000 + "\n")
    code, out, _ = _validate([config], tmp_path, TOOLHOST_MAX_CONFIG_BYTES="1000")
    assert code == 1
    assert "config file too large (2,015 bytes, the limit is 1,000)" in out
    code, out, _ = _validate([config], tmp_path, TOOLHOST_MAX_CONFIG_BYTES="100000")
    assert code == 0, out


def test_depth_and_alias_limits_can_be_raised(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nx-deep: " + "[" * 150 + "]" * 150 + "\n")
    code, out, _ = _validate([config], tmp_path)
    assert code == 1 and "nested more than 100" in out
    code, out, _ = _validate([config], tmp_path, TOOLHOST_MAX_CONFIG_DEPTH="200")
    assert "nested" not in out

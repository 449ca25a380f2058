"""``permissions check`` and ``permissions test`` decide a resource read on the forms of its
URI a running host decides it on (``serve.guard.read_guard``): a spelling the host denies is
denied offline too, where it used to be "allow" (the URI compared as written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inproc import run_cli

CONFIG = """\
toolhost: 1
servers:
  t:
    tools:
      x: {command: [echo, hi], description: says hi}
permissions:
  default: allow
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "x://t/secret*"}}
"""

DENIED = ["x://t/secret", "x://t/%73ecret", "x://t/secre%74", "X://t/secret",
          "x://t/a/../secret", "x://t/./secret", "x://t/a%2F..%2Fsecret", "x://t/..%2Fsecret",
          "x://t/%2e%2e/secret", "x://t/a%2F%2E%2E%2Fsecret", "x://t/secret%2Fkey"]
ALLOWED = ["x://t/public", "x://t/pub%6cic", "x://t/a/secret", "x://t/secre"]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG)
    return path


@pytest.mark.parametrize("uri", DENIED + ALLOWED)
def test_check_decides_a_read_as_a_running_host_does(config: Path, uri: str) -> None:
    done = run_cli(["permissions", "check", str(config), "ReadMcpResourceTool", "--json",
                    "--input", json.dumps({"server": "t", "uri": uri})])
    assert done.returncode == 0, done.stderr
    expected = "deny" if uri in DENIED else "allow"
    assert json.loads(done.stdout)["decision"] == expected, done.stderr


def test_a_case_file_decides_a_read_as_a_running_host_does(config: Path,
                                                            tmp_path: Path) -> None:
    cases = [{"tool": "ReadMcpResourceTool", "input": {"server": "t", "uri": uri},
              "expect": "deny" if uri in DENIED else "allow"} for uri in DENIED + ALLOWED]
    path = tmp_path / "cases.yaml"
    path.write_text(json.dumps({"config": str(config), "cases": cases}))
    done = run_cli(["permissions", "test", str(path)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(cases)} passed" in done.stdout + done.stderr

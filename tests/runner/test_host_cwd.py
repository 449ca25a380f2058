"""``load_host``: relative path rules resolve against the directory the CLI runs in."""

from __future__ import annotations

from pathlib import Path

import anyio

from toolhost.host import Host, load_host

CONFIG = """\
toolhost: 1
servers: {}
run: {cwd: work}
permissions:
  default: deny
  allow: ["Read(./src/**)"]
"""


def decide(host: Host, path: Path) -> str:
    try:
        return host.policy.decide("Read", {"file_path": str(path)}).behavior
    finally:
        anyio.run(host.aclose)


def test_relative_path_rules_follow_run_cwd_then_the_cwd_override(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "other").mkdir()
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG)
    inside = tmp_path / "work" / "src" / "a.py"
    assert decide(load_host(config), inside) == "allow"  # run.cwd: work, relative to the file
    assert decide(load_host(config), tmp_path / "src" / "a.py") == "deny"
    override = load_host(config, cwd=tmp_path / "other")  # toolhost run --cwd other
    assert decide(override, tmp_path / "other" / "src" / "a.py") == "allow"
    assert decide(load_host(config, cwd=tmp_path / "other"), inside) == "deny"

"""Round 17 (P16-10): a permission rule with a part refused at load (``callers``, ``when``,
``expr``, an unknown key) is not kept as if it had no condition: ``validate`` reports the
refusal and nothing about the rules after it (it reported them "shadowed" by the refused
rule read as an unconditional deny)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inproc import run_cli

REFUSED = [
    "callers: {subjects: ['ana ']}",
    "callers: {groupz: [contractors]}",
    "callers: 5",
    "when: x",
    "whne: {command: {regex: rm}}",
    "expr: 5",
]


@pytest.mark.parametrize("part", REFUSED)
def test_a_refused_rule_shadows_nothing(tmp_path: Path, part: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers: {}\npermissions:\n  deny:\n"
                      f"    - {{tool: Bash, {part}}}\n  allow:\n    - Bash(ls:*)\n")
    done = run_cli(["validate", "--no-layers", str(config)])
    out = done.stdout + done.stderr
    assert done.returncode == 1 and f"{config}:5:" in out, out
    assert "shadowed" not in out and "Traceback" not in out, out


def test_the_same_rule_written_well_still_shadows(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers: {}\npermissions:\n  deny:\n"
                      "    - {tool: Bash}\n  allow:\n    - Bash(ls:*)\n")
    done = run_cli(["validate", "--no-layers", str(config)])
    assert "shadowed" in done.stdout + done.stderr

"""A rule of 200,000 characters is linted in time linear in its size: the shadowing index
looked up every prefix and suffix of its probe name (a slice and a hash each: 51 s of
``validate`` for one such rule)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from toolhost.cli import main
from toolhost.permissions.authoring import lint_index

looked: list[int] = []


class _Counting(defaultdict):  # type: ignore[type-arg]
    def get(self, key: Any, default: Any = None) -> Any:
        looked.append(len(key) if isinstance(key, str) else 0)
        return super().get(key, default)


def test_a_long_rule_looks_up_only_the_lengths_rules_have(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(lint_index, "defaultdict", _Counting)
    monkeypatch.setenv("TOOLHOST_MAX_RULE_CHARS", "300000")  # (4,096 by default)
    looked.clear()
    path = tmp_path / "rule.yaml"
    path.write_text("toolhost: 1\npermissions:\n  allow: [mcp__a__b*, " + "x" * 200_000
                    + ", " + "y" * 200_000 + "]\n")
    assert main(["validate", "--no-layers", str(path)]) == 0, capsys.readouterr().err[-500:]
    assert len(looked) < 100 and sum(looked) < 1_000_000, (len(looked), sum(looked))

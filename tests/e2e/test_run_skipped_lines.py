"""A line from the CLI that is skipped with a warning (JSON that is not an object, a
control_request without a request_id) is quoted with every secret hidden, wherever the quote
is cut: the quote is redacted before it is cut. Before, a ``%.200r`` cut first, so a secret
that the 200th character fell inside showed its start (``SuperSecre``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fakecli import run_fake

pytestmark = pytest.mark.e2e

TOKEN = "SuperSecretValue123XYZ"
CONFIG = """\
toolhost: 1
servers:
  s:
    env: {T: "${MY_SECRET}"}
    tools:
      t: {command: [echo, hi]}
permissions: {default: deny}
"""


def not_an_object(pad: int) -> Any:
    return ["x" * pad + TOKEN]


def no_request_id(pad: int) -> Any:
    return {"type": "control_request", "p": "x" * pad,
            "request": {"subtype": "can_use_tool", "tool_name": TOKEN}}


@pytest.mark.parametrize("make", [not_an_object, no_request_id])
def test_a_skipped_line_s_quote_shows_no_start_of_a_secret(tmp_path: Path, make: Any) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    lines = [json.dumps(make(pad)) for pad in range(80, 200, 2)]
    done, _ = run_fake(tmp_path, config, lines, env={"MY_SECRET": TOKEN}, wait=1)
    warned = [line for line in done.stderr.splitlines() if "control session: skipped" in line]
    assert len(warned) == len(lines), done.stderr
    for piece in (TOKEN[:k] for k in range(4, len(TOKEN) + 1)):
        assert piece not in done.stderr, piece

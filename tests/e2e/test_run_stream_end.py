"""What the renderer still holds when a session fails is shown: a streamed block's held end
(the start of what could be a secret) when the CLI exits in the middle of the block comes
out as a last delta, so the deltas join to everything the model wrote (with secrets hidden).
Before, a failed run never closed its renderer and the held end was lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .fakecli import run_fake, stream_event

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


@pytest.mark.parametrize("pieces,joined", [
    (["hello world, the value is Sup"], "hello world, the value is Sup"),
    (["a " + TOKEN + " b, then Super", "Sec"], "a *** b, then SuperSec"),
    # 19 of the secret's 22 characters: a piece of a secret, hidden since it holds 10 of its
    # letters and digits in a row (docs/secrets.md); the held end still comes out
    (["\\u0053uperSecretValue123X"], "\\u0053***"),
], ids=["held-start", "secret-then-held", "spelled-held"])
def test_a_block_cut_by_the_cli_s_exit_is_shown_to_its_end(tmp_path: Path, pieces: list[str],
                                                           joined: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    lines = [stream_event({"type": "text_delta", "text": piece}) for piece in pieces]
    done, _ = run_fake(tmp_path, config, [*lines, "#EXIT"], "--output", "json",
                       env={"MY_SECRET": TOKEN})
    assert done.returncode == 1, done.stderr
    deltas = [json.loads(line)["event"]["delta"]["text"] for line in done.stdout.splitlines()
              if '"text_delta"' in line]
    assert "".join(deltas) == joined
    assert TOKEN not in done.stdout

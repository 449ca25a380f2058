"""ScrubbingStream in a process that knows no secret: each whole line goes to the inner stream
at its write, as it is; a partial line waits for its end (or a flush), as with secrets."""

from __future__ import annotations

import json
import subprocess
import sys

PROGRAM = r'''
import io, json
from toolhost.redaction import ScrubbingStream, active, remember

class Inner(io.StringIO):
    def __init__(self):
        super().__init__()
        self.writes = []
    def write(self, text):
        self.writes.append(text)
        return super().write(text)

inner = Inner()
stream = ScrubbingStream(inner)
known = bool(active())
for piece in ("one\n", "two\nthree\n", "par", "tial\n", "held", "\n", "x" * 70000, "tail"):
    stream.write(piece)
before_flush = list(inner.writes)
stream.flush()
remember({"s3cr3t-token"})  # from now on a line is redacted again
stream.write("a s3cr3t-token here\n")
stream.finish()
print(json.dumps({"known": known, "before_flush": before_flush, "writes": inner.writes}))
'''


def test_lines_without_any_secret_known_reach_the_stream_as_written() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          timeout=60, check=True)
    out = json.loads(done.stdout)
    assert out["known"] is False
    assert out["before_flush"] == ["one\n", "two\nthree\n", "partial\n", "held\n", "x" * 70000]
    assert out["writes"] == [*out["before_flush"], "tail", "a *** here\n"]

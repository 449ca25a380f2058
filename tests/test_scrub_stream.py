"""``ScrubbingStream`` made before the redaction machinery is loaded (``toolhost --help``
never loads it) still hides a secret remembered later, whole or written in pieces."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import io, sys
from toolhost.scrub_stream import ScrubbingStream
out = io.StringIO()
stream = ScrubbingStream(out)
stream.write("before\\n")
print("toolhost.redaction.process" in sys.modules)
from toolhost.redaction import remember
remember(["Hunter2-s3cret-value"])
stream.write("a Hunter2-s3cret-value b\\n")
stream.write("in pieces Hunter2-s3")
stream.write("cret-value end")
stream.finish()
print(repr(out.getvalue()))
"""


def test_a_secret_remembered_after_the_stream_was_made_is_hidden() -> None:
    got = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=60).stdout.splitlines()
    assert got[0] == "False"  # a whole line, no secret known: written without loading it
    assert got[1] == repr("before\na *** b\nin pieces *** end")

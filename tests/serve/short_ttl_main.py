"""``toolhost`` with signed session ids that expire after ``SHORT_TTL`` seconds (not 24 h):
the replica tests wait for an expiry."""

from __future__ import annotations

import os
import sys

from toolhost.cli import main
from toolhost.serve.sessions import SessionTokens

if __name__ == "__main__":
    defaults = SessionTokens.__init__.__kwdefaults__
    assert defaults is not None
    defaults["ttl"] = float(os.environ["SHORT_TTL"])
    sys.exit(main(sys.argv[1:]))

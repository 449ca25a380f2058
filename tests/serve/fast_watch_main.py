"""``toolhost`` whose resource watcher looks every 0.1 s (not every second): the tests of
``notifications/resources/updated`` wait for its looks."""

from __future__ import annotations

import sys

from toolhost.cli import main
from toolhost.serve.resource_watch import ResourceWatch

if __name__ == "__main__":
    defaults = ResourceWatch.__init__.__defaults__
    assert defaults == (1.0,)
    ResourceWatch.__init__.__defaults__ = (0.1,)
    sys.exit(main(sys.argv[1:]))

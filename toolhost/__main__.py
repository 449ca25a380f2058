import sys

from toolhost.cli import main

sys.exit(main())

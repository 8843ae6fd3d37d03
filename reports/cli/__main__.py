"""``python -m reports.cli``: the ``cmharness`` command."""

import sys

from reports.cli import main

sys.exit(main())

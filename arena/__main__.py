"""``python -m arena``: the same as the ``arena`` command."""

import sys

from .commands import main

sys.exit(main())

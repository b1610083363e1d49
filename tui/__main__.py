"""``python -m tui``: the same as ``python -m tui.main``."""

import sys

from tui.main import main

sys.exit(main())

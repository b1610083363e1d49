"""``python -m agent.control``: the same as the ``harness`` console script."""

import sys

from agent.control.main import main

sys.exit(main())

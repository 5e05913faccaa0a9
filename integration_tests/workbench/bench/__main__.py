"""`python -m workbench.bench`."""

import sys

from workbench.bench.cli import main

sys.exit(main())

"""`python -m cdc_tools.bench`."""

import sys

from cdc_tools.bench.cli import main

sys.exit(main())

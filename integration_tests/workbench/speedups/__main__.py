"""`python -m workbench.speedups`: write the venv's `.pth` hook (see `main`)."""

from workbench.speedups import main

raise SystemExit(main())

"""`python -m python_udfs [REPO_ROOT]`: write the venv's `.pth` hook (session_hook.main).

An entry point of the package rather than `-m python_udfs.session_hook`: once the hook is
installed, every interpreter imports `session_hook` at start, and running an imported
module as `__main__` makes Python warn.
"""

from python_udfs.session_hook import main

raise SystemExit(main())

"""The warm engine: the `connect` column.

The `connect` column is the `local` target's build (gold on parquet) run by dbt's `connect`
target against one Spark Connect server (`workbench.servers.connect_server`), started once before
the timed steps; its first build, on a cold server JVM, is measured apart (`first-build`).
Its targets (issue 64's, then issue 74's) are checked with the others on the step table
(workbench.bench.targets).
"""

from __future__ import annotations

WARM_FORMAT = "connect"

"""The test rig of the package: the source simulators and their oracles, the benchmark,
the demo, the Spark profiler and the local speed-ups. Nothing of the package imports it."""

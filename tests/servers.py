"""A server process a test starts: its own process group, its output in a log, waited for
until it listens on 127.0.0.1, and stopped (SIGTERM, then SIGKILL) when the block ends, failed
or not. The Kafka broker (tests/kafka_broker.py) and the S3-compatible server
(tests/s3_server.py) run in it."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from workbench.servers.cluster import poll_until, port_open


@contextmanager
def serving(
    name: str,
    command: Sequence[str],
    log_path: Path,
    port: int,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Iterator[subprocess.Popen[bytes]]:
    """Start `command`; yield its process once it listens on `port`."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            list(command),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
        try:

            def listening() -> bool:
                if port_open(port):
                    return True
                if process.poll() is not None:
                    raise RuntimeError(f"the {name} exited: see {log_path}")
                return False

            if not poll_until(listening, timeout, 0.2):
                raise RuntimeError(f"the {name} did not start within {timeout:.0f} s")
            yield process
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()

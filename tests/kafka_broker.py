"""A single-node Kafka broker (KRaft, broker and controller in one JVM) for the tests.

Kafka 4.0.1's jars come from `kafka-broker.lock`, fetched by `make setup` into
`.kafka-broker/jars` (cdc_tools/spark_jars.py); nothing is downloaded here. The broker listens
on 127.0.0.1 on two free ports, keeps its log in a temporary folder and is stopped (its
process group killed) when the `with` block ends, failed or not.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cdc_tools.spark_jars import BROKER_JARS_DIR, BROKER_LOCK_FILE, missing_or_wrong, read_lock
from tests.servers import serving
from workbench.servers.cluster import free_port


@dataclass(frozen=True)
class Broker:
    bootstrap_servers: str
    folder: Path


def broker_jars_missing() -> str | None:
    """Why the broker cannot start (its jars not fetched, no java), or None."""
    if missing_or_wrong(read_lock(BROKER_LOCK_FILE), BROKER_JARS_DIR):
        return f"the broker's jars are not in {BROKER_JARS_DIR}: run make setup"
    if not _java():
        return "no java on PATH"
    return None


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    from shutil import which

    return which("java") or ""


def _java_command(main_class: str, *args: str) -> list[str]:
    class_path = str(BROKER_JARS_DIR / "*")
    return [_java(), "-Xmx512m", "-XX:+UseSerialGC", "-cp", class_path, main_class, *args]


@contextmanager
def kafka_broker(folder: Path) -> Iterator[Broker]:
    """Start a broker whose files live in `folder`; yield it once it accepts connections."""
    port, controller = free_port(), free_port()
    properties = folder / "server.properties"
    folder.mkdir(parents=True, exist_ok=True)
    properties.write_text(
        "\n".join(
            [
                "process.roles=broker,controller",
                "node.id=1",
                f"controller.quorum.voters=1@127.0.0.1:{controller}",
                f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
                f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                f"log.dirs={folder / 'log'}",
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                "",
            ]
        )
    )
    subprocess.run(
        _java_command(
            "kafka.tools.StorageTool",
            "format",
            "--config",
            str(properties),
            "--cluster-id",
            "q1Sh-9_ISia_zwGINzRvyQ",
            "--ignore-formatted",
        ),  # fmt: skip
        check=True,
        capture_output=True,
    )
    with serving(
        "Kafka broker", _java_command("kafka.Kafka", str(properties)), folder / "broker.log", port
    ):
        yield Broker(f"127.0.0.1:{port}", folder)

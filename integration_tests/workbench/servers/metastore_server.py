"""A Hive metastore service on 127.0.0.1, for the Thrift Server of `workbench.servers.cluster`.

Why a service: a Thrift Server with an embedded metastore keeps two of them in one JVM, the
real one and the in-memory one of its JDBC sessions (`HiveUtils.newClientForExecution`),
and a handler thread that meets both rebuilds DataNucleus' persistence-manager factory
(`ObjectStore.getPMF`) each time it switches: seconds per dbt node. With the real metastore
behind `hive.metastore.uris`, only the sessions' one stays embedded.

Hive 2.3's own launcher (`HiveMetaStore` main) listens on every interface and has no bind
setting, so this script builds the same service (`HMSHandler` behind Thrift's thread-pool
server, the binary protocol, no SASL, no UGI) on a socket bound to 127.0.0.1, in a JVM it
starts with Py4J from pyspark's jars (Derby and DataNucleus are among them). The JVM dies
with this process; `python -m workbench.servers.cluster down` stops both.

    python -m workbench.servers.metastore_server --home .cluster --port 9083
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
from pathlib import Path

from workbench.servers.cluster import LOOPBACK, spark_home


def metastore_conf(home: Path) -> dict[str, str]:
    """The service's Hive settings: Derby under `home`, its schema made on first use."""
    return {
        "javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={home / 'metastore_db'};create=true"
        ),
        "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
        "hive.metastore.warehouse.dir": str(home / "warehouse"),
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
        "hive.metastore.execute.setugi": "false",
    }


def serve(home: Path, port: int, java_options: list[str]) -> None:
    """Start the JVM and the service on LOOPBACK:port; returns once it is listening. The
    JVM exits when this process does."""
    from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

    jars = spark_home() / "jars"
    [py4j_jar] = sorted(jars.glob("py4j-*.jar"))
    gateway_port = launch_gateway(
        jarpath=str(py4j_jar),
        classpath=f"{jars}/*",
        javaopts=["-Xmx512m", *java_options],
        die_on_exit=True,
        redirect_stdout=sys.stdout,
        redirect_stderr=sys.stderr,
        cwd=str(home),
    )
    gateway = JavaGateway(gateway_parameters=GatewayParameters(port=gateway_port))
    jvm = gateway.jvm
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    for key, value in metastore_conf(home).items():
        conf.set(key, value)
    metastore = jvm.org.apache.hadoop.hive.metastore
    thrift = jvm.org.apache.thrift
    handler = metastore.HiveMetaStore.newRetryingHMSHandler("cdc metastore", conf, False)
    socket = thrift.transport.TServerSocket(jvm.java.net.InetSocketAddress(LOOPBACK, port))
    args = (
        thrift.server.TThreadPoolServer.Args(socket)
        .processor(metastore.TSetIpAddressProcessor(handler))
        .transportFactory(thrift.transport.TTransportFactory())
        .protocolFactory(thrift.protocol.TBinaryProtocol.Factory())
        .minWorkerThreads(4)
        .maxWorkerThreads(64)
    )
    server = thrift.server.TThreadPoolServer(args)
    # serve() blocks its (Py4J) thread; it runs until the JVM exits
    threading.Thread(target=server.serve, daemon=True).start()
    print(f"cdc metastore: listening on {LOOPBACK}:{port}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--java-options", default="", help="options of the JVM, one string")
    options = parser.parse_args(argv)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    serve(options.home.resolve(), options.port, shlex.split(options.java_options))
    stopped.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The driver of the local cluster's Spark Thrift Server (`cdc_tools.cluster`).

Submitted with `spark-submit --master spark://...` (the Thrift Server's usual launcher,
`start-thriftserver.sh`, submits the class `HiveThriftServer2` the same way). This driver
starts `HiveThriftServer2` on its own session, after registering the project's Python UDFs
on it (`python_udfs.register`), so that every JDBC session of dbt's `thrift` target sees
them: `spark.sql.hive.thriftServer.singleSession=true` makes all JDBC sessions share this
one. The UDFs run on the executors, which get `python_udfs` from `--py-files`.

Runs until it is stopped (SIGTERM from `python -m cdc_tools.cluster down`).
"""

from __future__ import annotations

import signal
import sys
import threading


def main() -> int:
    from pyspark.sql import SparkSession

    import python_udfs

    spark = SparkSession.builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    python_udfs.register(spark)
    jvm = spark.sparkContext._jvm  # type: ignore[attr-defined]
    jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2.startWithContext(
        spark._jsparkSession.sqlContext()  # type: ignore[attr-defined]
    )
    print("cdc thrift server: started", flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The driver of the local cluster's Spark Thrift Server (`workbench.servers.cluster`).

Submitted with `spark-submit --master spark://...` (the Thrift Server's usual launcher,
`start-thriftserver.sh`, submits the class `HiveThriftServer2` the same way). This driver
starts `HiveThriftServer2` on its own session, after registering the landing listing's Java
UDFs on it (`landing_udfs.register`), so that every JDBC session of dbt's `thrift` target sees
them: `spark.sql.hive.thriftServer.singleSession=true` makes all JDBC sessions share this
one.

Before it serves, it marks Hive's built-in function registration as done
(`skip_hive_function_registration`): pyspark's jars lack `hive-llap-common`, so that
registration fails, and a failed one hangs every later session close for good.

Runs until it is stopped (SIGTERM from `python -m workbench.servers.cluster down`).
"""

from __future__ import annotations

import signal
import sys
import threading


def skip_hive_function_registration(jvm) -> None:  # type: ignore[no-untyped-def]
    """Mark Hive's one-time registration of its built-in functions as done.

    Closing a JDBC session makes a Hive client (`SessionState.close`), and the first Hive
    client of a JVM registers Hive's built-in functions (`Hive.registerAllFunctionsOnce`).
    On pyspark's jars that fails: `FunctionRegistry` names `GenericUDTFGetSplits`, whose
    `LlapSigner$Signable` is in `hive-llap-common`, not shipped (SPARK-51041). The failure
    is an Error, which Hive's `catch (Exception e)` misses, so its flag stays "pending", and
    every later Hive client waits for it forever: the first session close failed, and a
    later one on a new handler thread never returned (seen on CI: dbt waited in
    `CloseSession`). Spark resolves its functions itself, never through that registry, so
    nothing is lost by skipping it. A server whose classpath has `hive-llap-common` has
    registered nothing yet either, and skips it the same way."""
    hive = jvm.java.lang.Class.forName("org.apache.hadoop.hive.ql.metadata.Hive")
    atomic = jvm.java.lang.Class.forName("java.util.concurrent.atomic.AtomicInteger")
    done_field = hive.getDeclaredField("REG_FUNCS_DONE")
    done_field.setAccessible(True)
    # Py4J hands a Java Number back as a Python number, so the flag (an AtomicInteger) is
    # set on the Java side: a method handle `flag.set(done)` on the private static field
    handles = jvm.java.lang.invoke.MethodHandles
    lookup = handles.privateLookupIn(hive, handles.lookup())
    flag = lookup.findStaticGetter(hive, "didRegisterAllFuncs", atomic)
    set_int = lookup.findVirtual(
        atomic,
        "set",
        jvm.java.lang.invoke.MethodType.methodType(
            jvm.java.lang.Void.TYPE, jvm.java.lang.Integer.TYPE
        ),
    )
    arguments = jvm.java.util.ArrayList()
    arguments.add(done_field.getInt(None))
    handles.collectArguments(set_int, 0, flag).invokeWithArguments(arguments)
    if flag.invokeWithArguments(jvm.java.util.ArrayList()) != done_field.getInt(None):
        raise RuntimeError("Hive's function registration could not be marked done")


def main() -> int:
    from pyspark.sql import SparkSession

    from cdc_tools import landing_udfs

    spark = SparkSession.builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    landing_udfs.register(spark)
    jvm = spark.sparkContext._jvm  # type: ignore[attr-defined]
    skip_hive_function_registration(jvm)
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

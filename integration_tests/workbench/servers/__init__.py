"""The servers the tests and `make` start on this machine: a standalone Spark cluster with
its Thrift Server and metastore service (`cluster`, `thrift_server`, `metastore_server`) and
a long-lived Spark Connect server (`connect_server`). The lab's, beside the consumer project:
they import the package's tooling (`cdc_tools`), never the reverse."""

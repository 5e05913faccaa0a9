"""The Java UDFs of bronze's landing listing (`cdc_tools/jvm/CdcLandingFiles.java`), registered
on a session of this project's tooling (the session hook, the Thrift Server, the shared test
session). Without them bronze reads what Spark's listing gives (docs/landing.md, "Files Spark
hides")."""

from __future__ import annotations

from typing import Any

LANDING_FILES_TYPE = "array<struct<path: string, modificationtime: timestamp, length: bigint>>"
FILE_CONTENT_TYPE = "struct<content: binary, error: string>"

# SQL name -> (class, return type). The class is in `<jars>/cdc-landing-files-*.jar`, compiled
# by `make setup` and passed by the profiles; it lists and reads through Hadoop's FileSystem API
# (every scheme Spark reads).
LANDING_CLASS = "cdc.landing.CdcLandingFiles"
LANDING_UDFS: dict[str, tuple[str, str]] = {
    "cdc_landing_unlisted_files": (f"{LANDING_CLASS}$UnlistedFiles", LANDING_FILES_TYPE),
    "cdc_landing_file_content": (f"{LANDING_CLASS}$FileContent", FILE_CONTENT_TYPE),
}


def register(spark: Any) -> bool:
    """Register (again: the last one wins) the landing listing's Java UDFs on `spark`; False
    (nothing registered) when the session lacks their jar (no JDK at set-up, a Spark started
    without it)."""
    try:
        for name, (class_name, return_type) in LANDING_UDFS.items():
            spark.udf.registerJavaFunction(name, class_name, return_type)
    except Exception:  # noqa: BLE001 - the class is not on this session's class path
        return False
    return True

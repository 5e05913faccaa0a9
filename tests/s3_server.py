"""An S3-compatible server (s3proxy, its filesystem backend) on 127.0.0.1 for the tests.

s3proxy's jar comes from `s3-server.lock`, fetched by `make setup` into `.s3-server/jars`
(cdc_tools/spark_jars.py); nothing is downloaded here. The server listens on a free port of
127.0.0.1, keeps its buckets as folders of a temporary folder, checks every request's AWS
signature (V2 or V4) against credentials made for this server, and is stopped (its process
group killed) when the `with` block ends, failed or not.

Spark reaches it through Hadoop's S3A connector (the `s3` target of profiles/profiles.yml,
`S3Server.env`); the tests land files in it with another client, pyarrow's (the AWS C++ SDK),
as a Kafka Connect sink uploads them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cdc_tools.spark_jars import (
    S3_SERVER_JARS_DIR,
    S3_SERVER_LOCK_FILE,
    missing_or_wrong,
    read_lock,
)
from tests.kafka_broker import _java
from tests.servers import serving
from workbench.servers.cluster import free_port

REGION = "us-east-1"


@dataclass(frozen=True)
class S3Server:
    endpoint: str  # http://127.0.0.1:<port>
    access_key: str
    secret_key: str
    folder: Path  # the server's folder: its configuration, log and buckets (under data/)

    def env(self) -> dict[str, str]:
        """The environment of a process whose Spark reads and writes `s3a://` here: the
        `s3` target's endpoint and path-style access, and the credentials (never in a file)."""
        return {
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_REGION": REGION,
            "CDC_S3_ENDPOINT": self.endpoint,
            "CDC_S3_PATH_STYLE": "true",
        }

    def spark_conf(self) -> dict[str, str]:
        """The S3A settings of the `s3` target for a Spark started elsewhere (a cluster);
        the credentials stay in the environment (`env`)."""
        return {
            "spark.hadoop.fs.s3a.endpoint": self.endpoint,
            "spark.hadoop.fs.s3a.endpoint.region": REGION,
            "spark.hadoop.fs.s3a.path.style.access": "true",
        }

    def client(self) -> Any:  # pyarrow.fs.S3FileSystem
        """pyarrow's S3 client of this server (buckets created on request)."""
        from pyarrow import fs

        return fs.S3FileSystem(
            access_key=self.access_key,
            secret_key=self.secret_key,
            endpoint_override=self.endpoint.removeprefix("http://"),
            scheme="http",
            region=REGION,
            allow_bucket_creation=True,
        )


def s3_server_missing() -> str | None:
    """Why the server cannot start (its jar not fetched, no java), or None."""
    if missing_or_wrong(read_lock(S3_SERVER_LOCK_FILE), S3_SERVER_JARS_DIR):
        return f"s3proxy's jar is not in {S3_SERVER_JARS_DIR}: run make setup"
    if not _java():
        return "no java on PATH"
    return None


@contextmanager
def s3_server(folder: Path) -> Iterator[S3Server]:
    """Start a server whose files live in `folder`; yield it once it accepts connections."""
    [jar] = [S3_SERVER_JARS_DIR / jar.file_name for jar in read_lock(S3_SERVER_LOCK_FILE)]
    port = free_port()
    server = S3Server(
        endpoint=f"http://127.0.0.1:{port}",
        access_key=f"cdc-{secrets.token_hex(4)}",
        secret_key=secrets.token_hex(16),
        folder=folder,
    )
    (folder / "data").mkdir(parents=True, exist_ok=True)
    properties = folder / "s3proxy.conf"
    properties.write_text(
        "\n".join(
            [
                f"s3proxy.endpoint={server.endpoint}",
                "s3proxy.authorization=aws-v2-or-v4",
                f"s3proxy.identity={server.access_key}",
                f"s3proxy.credential={server.secret_key}",
                "jclouds.provider=filesystem-nio2",
                f"jclouds.filesystem.basedir={folder / 'data'}",
                "",
            ]
        )
    )
    properties.chmod(0o600)
    command = [_java(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
    command += ["-jar", str(jar), "--properties", str(properties)]
    env = {**os.environ, "LOG_LEVEL": "warn", "JETTY_LOG_LEVEL": "warn"}
    with serving("s3proxy server", command, folder / "s3proxy.log", port, env):
        yield server


def upload(
    server: S3Server, local: Path, destination: str, files: Iterable[Path] | None = None
) -> list[str]:
    """The files under `local` (every one, or those of `files`) uploaded to `destination`
    (`bucket/prefix`) as they lie under `local`, the bucket created if needed, through
    pyarrow's S3 client (one PUT per file, as a Kafka Connect sink writes); returns the keys
    written, sorted."""
    from pyarrow import fs

    client = server.client()
    bucket = destination.split("/", 1)[0]
    if client.get_file_info(bucket).type == fs.FileType.NotFound:
        client.create_dir(bucket)
    chosen = local.rglob("*") if files is None else files
    keys = []
    for path in sorted(p for p in chosen if p.is_file()):
        key = f"{destination}/{path.relative_to(local).as_posix()}"
        # as it lies: pyarrow would compress a `.gz`, `.bz2` or `.zst` name again by default
        with client.open_output_stream(key, compression=None) as out:
            out.write(path.read_bytes())
        keys.append(key)
    return keys

"""What the throwaway database servers of workbench.realdb share: the life around their own
`start()` and `stop()` (restart, removal, `with`), and an interactive client session."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TypeVar

Server = TypeVar("Server", bound="ThrowawayServer")


def open_session(argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """An interactive SQL client (its stdin open): a transaction left open across batches.
    Write statements, then `select 'ready';` and read that line to know they ran; write
    `commit;` and close stdin to end it."""
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


class ThrowawayServer:
    """A server in a temporary folder of its own: `start()` and `stop()` are the server's;
    `restart()`, `remove()` (stopped, its folder deleted) and `with` come from here."""

    folder: Path

    def start(self: Server) -> Server:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self: Server) -> Server:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.remove()

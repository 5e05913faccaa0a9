"""Progress lines for long commands: one line per step, with the time since the start.

    progress = Progress("demo")
    with progress.step("simulating three source databases"):
        ...

prints `[demo   0:00] simulating three source databases ...` when the step starts and
`[demo   0:07] simulating three source databases: done in 7.2 s` when it ends (or
`... failed after 7.2 s` when it raises).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:3d}:{secs:02d}"


class Progress:
    def __init__(
        self,
        name: str,
        stream: TextIO | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.stream = stream
        self.now = now
        self.started = now()

    def say(self, text: str) -> None:
        stream = self.stream or sys.stdout
        print(f"[{self.name} {clock(self.now() - self.started)}] {text}", file=stream, flush=True)

    @contextlib.contextmanager
    def step(self, text: str) -> Iterator[None]:
        self.say(f"{text} ...")
        started = self.now()
        try:
            yield
        except BaseException:
            self.say(f"{text}: failed after {self.now() - started:.1f} s")
            raise
        self.say(f"{text}: done in {self.now() - started:.1f} s")

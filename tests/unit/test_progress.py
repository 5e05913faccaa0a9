"""Progress lines of `make demo`: one per step start and end, with the time since the start."""

from __future__ import annotations

import io

import pytest

from workbench.progress import Progress, clock


def test_steps_print_start_end_and_elapsed_time() -> None:
    ticks = iter([0.0, 5.0, 5.0, 12.5, 12.5, 70.0, 70.0, 3700.0, 3700.0])
    out = io.StringIO()
    progress = Progress("demo", out, now=lambda: next(ticks))
    with progress.step("simulating"):
        pass
    with pytest.raises(RuntimeError), progress.step("dbt build"):
        raise RuntimeError("boom")
    assert out.getvalue().splitlines() == [
        "[demo   0:05] simulating ...",
        "[demo   0:12] simulating: done in 7.5 s",
        "[demo   1:10] dbt build ...",
        "[demo 1:01:40] dbt build: failed after 3630.0 s",
    ]


def test_clock() -> None:
    assert clock(0) == "  0:00"
    assert clock(61.9) == "  1:01"
    assert clock(3600) == "1:00:00"

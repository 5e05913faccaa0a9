"""`make demo` checks itself: its simulated sources are listed as replayed, so the
quiet-source test does not warn of them (finding 6 of issue #31), and a warning of its
build counts as a failed check."""

from __future__ import annotations

from fnmatch import fnmatch
from types import SimpleNamespace

from cdc_tools.demo import demo_configs, replayed_sources, warnings_of
from cdc_tools.simulator import simulate


def test_the_demo_lists_every_topic_it_simulates_as_replayed() -> None:
    patterns = replayed_sources(demo_configs())
    topics = {m.topic for config in demo_configs() for m in simulate(config).messages}
    assert topics
    # cdc_source_matches: glob patterns, case-insensitive
    assert [t for t in topics if not any(fnmatch(t.lower(), p.lower()) for p in patterns)] == []
    assert not any(fnmatch("crm.dbo.customers", p) for p in patterns)  # a real source's topic


def test_a_warning_of_the_demo_build_is_reported() -> None:
    def node(name: str, status: str, message: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(node=SimpleNamespace(name=name), status=status, message=message)

    result = SimpleNamespace(
        result=SimpleNamespace(
            results=[
                node("customers", "success"),
                node("cdc_quiet_sources_x", "warn", "Got 1 result, configured to warn if != 0"),
                node("unique_x", "pass"),
            ]
        )
    )
    assert warnings_of(result) == ["cdc_quiet_sources_x: Got 1 result, configured to warn if != 0"]
    assert warnings_of(SimpleNamespace(result=None)) == []

"""cdc_run_history checked against what bronze and the quarantine hold, load by load.

Used by `make demo` after each build and by tests/e2e/test_run_history.py on the shared
stream: every load's messages in the history add up to bronze's messages of that load, and
each source's quarantined count of the newest run's loads is the quarantine's. An older
load's count is what its run saw: a later load can settle a quarantined change (a partial
document completed, a transaction released), and the history keeps what the run reported.
"""

from __future__ import annotations

from collections.abc import Callable

Sql = Callable[[str], list[dict]]

# a quarantined message's source, as _cdc_quarantine_source names it
_SOURCE = "coalesce(nullif(_cdc_source_id, ''), _kafka_topic, _source_file)"


def _counts(rows: list[dict], *key: str) -> dict[tuple, int]:
    return {tuple(str(row[k]) for k in key): int(row["n"]) for row in rows if row["n"]}


def run_history_differences(sql: Sql, bronze: str, silver: str) -> list[str]:
    """Every difference between cdc_run_history and bronze (messages per load) and the
    quarantine (messages per load and source, for the newest run's loads); empty when they
    agree."""
    history = sql(
        "select cast(_loaded_at as string) as loaded_at, _load_id, source_name, "
        f"messages_loaded, messages_quarantined from {silver}.cdc_run_history"
    )
    if not history:
        return ["cdc_run_history is empty"]
    newest_run = max(history, key=lambda row: str(row["loaded_at"]))["_load_id"]
    newest = {str(row["loaded_at"]) for row in history if row["_load_id"] == newest_run}
    loaded: dict[tuple, int] = {}
    for row in history:
        key = (str(row["loaded_at"]),)
        loaded[key] = loaded.get(key, 0) + int(row["messages_loaded"])
    in_bronze = _counts(
        sql(
            "select cast(_loaded_at as string) as loaded_at, count(*) as n "
            f"from {bronze}.bronze_cdc_messages group by _loaded_at"
        ),
        "loaded_at",
    )
    quarantined = {
        (str(row["loaded_at"]), str(row["source_name"])): int(row["messages_quarantined"])
        for row in history
        if row["messages_quarantined"] and str(row["loaded_at"]) in newest
    }
    in_quarantine = _counts(
        sql(
            f"select cast(_loaded_at as string) as loaded_at, {_SOURCE} as source_name, "
            f"count(*) as n from {silver}.cdc_quarantine group by 1, 2"
        ),
        "loaded_at",
        "source_name",
    )
    found = [
        f"load {key[0]}: {n} messages in the history, {in_bronze.get(key, 0)} in bronze"
        for key, n in sorted(loaded.items())
        if in_bronze.get(key, 0) != n
    ]
    found += [f"load {k[0]}: in bronze, not in the history" for k in in_bronze if k not in loaded]
    found += [
        f"load {key[0]}, {key[1]}: {quarantined.get(key, 0)} quarantined in the history, "
        f"{in_quarantine.get(key, 0)} in cdc_quarantine"
        for key in sorted(set(quarantined) | {k for k in in_quarantine if k[0] in newest})
        if quarantined.get(key, 0) != in_quarantine.get(key, 0)
    ]
    return found

"""The VARIANT measurement tool's SQL rewrites and its reading of Spark's event log
(workbench.bench.parse_compare): no Spark, the compiled model's shape only."""

from __future__ import annotations

import pytest

from workbench.bench.parse_compare import (
    BRONZE,
    LABEL,
    envelope_schema,
    executor_cpu,
    render,
    statements,
    text_sql,
    variant_sql,
)

SCHEMA = "struct<payload:struct<op:string>>"
COMPILED = f"""
with bronze as (
    select
        bronze_messages.message_value,
        bronze_messages._loaded_at
    from {BRONZE} as bronze_messages
),
parsed as (
    select
        from_json(message_value, '{SCHEMA}', map('columnNameOfCorruptRecord', '_corrupt_record'))
            as envelope
    from bronze
)
select * from parsed
"""


def test_the_variant_side_reads_the_variant_column_instead_of_parsing_the_text() -> None:
    sql = variant_sql(COMPILED, "parse.bronze_variant")
    assert "from_json" not in sql
    assert f"try_variant_get(message_variant, '$', '{SCHEMA}')" in sql
    assert "bronze_messages.message_variant," in sql
    assert "parse.bronze_variant as bronze_messages" in sql and BRONZE not in sql


def test_the_text_side_is_the_model_on_the_copy_of_bronze() -> None:
    sql = text_sql(COMPILED, "parse.bronze_text")
    assert "from_json(message_value" in sql and "parse.bronze_text as" in sql
    assert envelope_schema(COMPILED) == SCHEMA


def test_a_model_without_exactly_one_parse_is_refused() -> None:
    with pytest.raises(ValueError, match="found 0"):
        variant_sql("select 1", "x")
    with pytest.raises(ValueError, match="found 2"):
        variant_sql(COMPILED + COMPILED, "x")


def test_every_pair_has_both_sides_and_the_references_one() -> None:
    pairs = statements(COMPILED)
    for name, (a, b) in pairs.items():
        assert a
        assert bool(b) != name.startswith("ref:")


def test_executor_cpu_sums_the_labelled_jobs_tasks_only() -> None:
    events = [
        {
            "Event": "SparkListenerJobStart",
            "Stage IDs": [1, 2],
            "Properties": {"spark.job.description": f"{LABEL} 1 parse alone A"},
        },
        {"Event": "SparkListenerJobStart", "Stage IDs": [3], "Properties": {}},
        {
            "Event": "SparkListenerTaskEnd",
            "Stage ID": 1,
            "Task Metrics": {"Executor CPU Time": 2_000_000_000},
        },
        {
            "Event": "SparkListenerTaskEnd",
            "Stage ID": 2,
            "Task Metrics": {
                "Executor CPU Time": 500_000_000,
                "Executor Deserialize CPU Time": 500_000_000,
            },
        },
        {"Event": "SparkListenerTaskEnd", "Stage ID": 3, "Task Metrics": {"Executor CPU Time": 9}},
    ]
    assert executor_cpu(events) == {f"{LABEL} 1 parse alone A": 3.0}


def test_render_prints_each_pair_with_its_ratio() -> None:
    result = {
        "messages": 10,
        "rounds": 1,
        "executor_cpu_s": {"parse alone A": 2.0, "parse alone B": 1.0},
        "process_cpu_s": {"parse alone A": 4.0, "parse alone B": 3.0},
        "checks": ["A: change/None=10", "B: change/None=10"],
    }
    table = render(result)
    assert "| parse alone | 2.00 | 1.00 | 0.50 | 4.00 | 3.00 | 0.75 |" in table

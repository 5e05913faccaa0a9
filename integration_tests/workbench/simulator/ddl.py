"""Schema-change topic content: Debezium ``tableChanges`` entries and DDL text.

Kept apart from the value encoders: a column type unknown here is described as JDBC
``OTHER`` with its logical type name, so new column types need no change in this file.
"""

from __future__ import annotations

from .schema import ColumnSpec, TableSpec

# logical type -> (jdbcType, type name) per flavour family ("oracle" or the others)
_JDBC: dict[str, dict[str, tuple[int, str]]] = {
    "oracle": {
        "int16": (2, "NUMBER"),
        "int32": (2, "NUMBER"),
        "int64": (2, "NUMBER"),
        "string": (12, "VARCHAR2"),
        "boolean": (2, "NUMBER"),
        "decimal": (2, "NUMBER"),
        "date": (93, "DATE"),
        "timestamp": (93, "TIMESTAMP"),
    },
    "other": {
        "int16": (5, "SMALLINT"),
        "int32": (4, "INTEGER"),
        "int64": (-5, "BIGINT"),
        "string": (12, "VARCHAR"),
        "boolean": (-7, "BIT"),
        "decimal": (3, "DECIMAL"),
        "date": (91, "DATE"),
        "timestamp": (93, "TIMESTAMP"),
    },
}


def _jdbc(col: ColumnSpec, flavour: str) -> tuple[int, str]:
    family = _JDBC["oracle" if flavour == "oracle" else "other"]
    return family.get(col.type, (1111, col.type.upper()))


def _length_scale(col: ColumnSpec) -> tuple[int | None, int | None]:
    if col.type == "decimal":
        return col.precision, col.scale
    if col.type == "string":
        return 255, None
    if col.type == "int16":
        return 5, 0
    if col.type == "int32":
        return 10, 0
    if col.type == "int64":
        return 19, 0
    if col.type == "timestamp":
        return None, col.precision
    return None, None


def column_entry(col: ColumnSpec, position: int, flavour: str, name: str) -> dict[str, object]:
    jdbc_type, type_name = _jdbc(col, flavour)
    length, scale = _length_scale(col)
    return {
        "name": name,
        "jdbcType": jdbc_type,
        "nativeType": None,
        "typeName": type_name,
        "typeExpression": type_name,
        "charsetName": None,
        "length": length,
        "scale": scale,
        "position": position,
        "optional": col.nullable,
        "autoIncremented": False,
        "generated": False,
    }


def table_change(
    kind: str, spec: TableSpec, flavour: str, database: str, schema: str, table: str
) -> dict[str, object]:
    """One ``tableChanges`` entry; identifiers in the connector's case."""

    def out(name: str) -> str:
        return name if flavour == "sqlserver" else name.upper()

    return {
        "type": kind,
        "id": f'"{database}"."{schema}"."{table}"',
        "table": {
            "defaultCharsetName": None,
            "primaryKeyColumnNames": [out(k) for k in spec.key],
            "columns": [
                column_entry(c, i + 1, flavour, out(c.name)) for i, c in enumerate(spec.columns)
            ],
        },
    }


def ddl_text(
    kind: str,
    spec: TableSpec,
    flavour: str,
    schema: str,
    table: str,
    added: tuple[str, ...] = (),
    dropped: tuple[str, ...] = (),
) -> str | None:
    """The DDL statement as the connector reports it (SQL Server reports none)."""
    if flavour == "sqlserver":
        return None

    def out(name: str) -> str:
        return name.upper()

    def column(col: ColumnSpec) -> str:
        _, type_name = _jdbc(col, flavour)
        null = "" if col.nullable else " NOT NULL"
        return f"{out(col.name)} {type_name}{null}"

    name = f"{schema}.{table}"
    if kind == "CREATE":
        columns = ", ".join(column(c) for c in spec.columns)
        key = ", ".join(out(k) for k in spec.key)
        return f"CREATE TABLE {name} ({columns}, PRIMARY KEY ({key}));"
    parts = [f"ADD {column(spec.column(c))}" for c in added]
    parts += [f"DROP COLUMN {out(c)}" for c in dropped]
    return f"ALTER TABLE {name} {', '.join(parts)};"

"""Tools for the dbt-on-Spark CDC project."""

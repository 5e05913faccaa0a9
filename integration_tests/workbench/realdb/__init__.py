"""Real databases captured by real Debezium (issue 61): a throwaway PostgreSQL server
(`postgres`), the Debezium embedded capture of `capture/` (`capture`), and a seeded workload
(`workload`). The tests of tests/realdb/ and the `make demo-postgres` command use them."""

"""The statements tickwork runs on the app's D1 database, one module per family of tables.

`sql` is the toolkit every store builds on (rows passed as JSON, chunks, ids); `leases` states the
lease invariants and holds the statements that keep them; `app_row` is the app's one row (the
tick's mark, health, the one definition of failing); `schedules`, `claims` and `ends` are a
schedule's row through one run: read, claimed, ended. The rest are a table family each.
"""

"""`tickwork`: the operator's command. What the schedules are doing and why, pausing, resuming
and running them by hand, the outbox's deliveries, and whether the ticks have stopped.

It runs on CPython beside the build, never in the Worker, and reaches the app's D1 through
Miniflare's own file of the local D1 (`--local`, the verbs that read: `local_d1.py`),
`wrangler d1 execute` (`--local` changes, `--remote`) or a SQLite file (`--sqlite`, for tests).
Its SQL is `tickwork.operator_store`'s, one batch a verb.
"""

"""The `tickwork` command: `init`, `build`, `dev` and `tick` for a Worker of one's own, and the
operator's verbs (`tickwork_cli`)."""

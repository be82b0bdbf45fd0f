"""The operator's console: a web view of the schedules, runs, deliveries and the operator log,
with the operator's actions, served under a path prefix the app opts in to
(`[tool.tickwork] console = "/ops"`). Never served by default.

Imported only when a request under the prefix arrives (the Worker's entry stays light).

How a host serves it:

- The Worker (`tickwork.adapters.workers.console(APP, self.env, request)`, or the
  `console_first(APP)` decorator on `Default.fetch`) checks each request's access: a Cloudflare
  Access JWT for the app's AUD, or the bearer token kept as a Worker secret.
- The local host (`tickwork dev`) calls `tickwork.adapters.workers.serve_console(APP, env,
  request, LOCAL)`, or on CPython `routes.serve(db, app, request, now, LOCAL)`: no login, the
  operator shown as `local`. `LOCAL` is a Python object, so no request can ask for it: only code
  running in the host's own bridge can pass it. CSRF tokens and the origin checks still apply.

`routes.serve(db, app, request, now, access)` takes a plain `http.Request` and gives an
`http.Response`; it never raises for what a request holds.
"""

"""The operator's console, where the app opts in: `[tool.tickwork] console = "/ops"`, the path
prefix the Worker's fetch serves it under, and how operators get in, one way or both:

    console_team = "acme"               # the Cloudflare Access team: acme.cloudflareaccess.com
    console_aud = "4714c1358e65fe4b..."  # the Access application's AUD tag
    console_token = "CONSOLE_TOKEN"     # a Worker secret (`wrangler secret put CONSOLE_TOKEN`)

and, optionally, its address as operators reach it, which the alerts link a run's page from:

    console_url = "https://ops.example.com/ops"   # https, ending with the prefix

Every problem is `settings.console_invalid`, at the line that writes the key."""

import re
from urllib.parse import urlsplit

from .problems import Problem
from .project import Project
from .settings import PYPROJECT, _shown, line_of

KEYS = ("console", "console_team", "console_aud", "console_token", "console_url")
PREFIX = re.compile(r"(/[A-Za-z0-9._~-]+)+")
TEAM = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
AUD = re.compile(r"[A-Za-z0-9]{16,128}")
SECRET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CODE = "settings.console_invalid"


def check_console(project: Project) -> tuple[dict | None, list[Problem]]:
    """The manifest's CONSOLE ({"prefix", "team", "aud", "token"}), or None where the app serves
    no console; and the problems of what `[tool.tickwork]` says of it."""
    text = (project.root / PYPROJECT).read_text(encoding="utf-8")
    problems: list[Problem] = []

    def problem(key: str, message: str, mend: str) -> None:
        problems.append(Problem(CODE, message, mend, PYPROJECT, line_of(text, ("tool", "tickwork"), key)))

    written = dict(project.console or {})
    for key in set(written) - set(KEYS):
        problem(key, f"`{key}` is no setting of the console", "write one of " + ", ".join(f"`{k}`" for k in KEYS))
    if "console" not in written:
        for key in set(written) & set(KEYS):
            problem(key, f"`{key}` is set but `console` is not, so no console is served",
                    'name the console\'s path prefix: `console = "/ops"`, or remove the key')
        return None, problems
    prefix = written["console"]
    if not (isinstance(prefix, str) and PREFIX.fullmatch(prefix)):
        problem("console", f"`console = {_shown(prefix)}` is not a path prefix",
                'write the path the console is served under, from "/" and without a trailing "/": `console = "/ops"`')
    elif prefix.split("/")[1] == "cdn-cgi":
        problem("console", f"`console = {_shown(prefix)}` is under /cdn-cgi, which Cloudflare keeps for itself",
                'choose another prefix: `console = "/ops"`')
    checks = {
        "console_team": (TEAM, "a Cloudflare Access team's name",
                         'write the team alone, as in <team>.cloudflareaccess.com: `console_team = "acme"`'),
        "console_aud": (AUD, "an Access application's AUD tag",
                        "copy the Application Audience (AUD) tag from the Access application's overview"),
        "console_token": (SECRET, "the name of a Worker secret",
                          'name the secret that holds the token: `console_token = "CONSOLE_TOKEN"`'),
    }
    for key, (pattern, what, mend) in checks.items():
        value = written.get(key)
        if value is not None and not (isinstance(value, str) and pattern.fullmatch(value)):
            problem(key, f"`{key} = {_shown(value)}` is not {what}", mend)
    if ("console_team" in written) != ("console_aud" in written):
        missing, given = (("console_aud", "console_team") if "console_team" in written
                          else ("console_team", "console_aud"))
        problem(given, f"`{missing}` is not set: Cloudflare Access needs both the team and the application's AUD tag",
                f"set `{missing}`, or remove the other to let only the bearer token in")
    if "console_team" not in written and "console_aud" not in written and "console_token" not in written:
        problem("console", "the console lets no one in: neither Cloudflare Access nor a token is set",
                'set `console_team` and `console_aud` for Cloudflare Access, or `console_token = "CONSOLE_TOKEN"` '
                "naming a Worker secret")
    if "console_url" in written and isinstance(prefix, str):
        wrong = _address_wrong(written["console_url"], prefix)
        if wrong:
            problem("console_url", f"`console_url = {_shown(written['console_url'])}` {wrong}",
                    f'write the address operators open the console at, https and ending with the prefix: '
                    f'`console_url = "https://ops.example.com{prefix}"`')
    token = written.get("console_token")
    if isinstance(token, str) and isinstance(project.worker_vars, dict) and token in project.worker_vars:
        problem("console_token", f"`{token}` is a plain var of the Worker's configuration, not a secret",
                f"remove it from [vars] and keep it as a secret: `npx wrangler secret put {token}` "
                "(and in .dev.vars locally)")
    if problems:
        return None, problems
    found = {"prefix": prefix, "team": written.get("console_team"), "aud": written.get("console_aud"),
             "token": token}
    if "console_url" in written:
        found["url"] = written["console_url"].rstrip("/")
    return found, []



def _address_wrong(address: object, prefix: str) -> str | None:
    """What keeps `address` from being the console's absolute address under `prefix`; None if nothing."""
    if not isinstance(address, str):
        return "is not an address"
    parts = urlsplit(address)
    local = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        return "is not an https address (http only for localhost)"
    if not parts.hostname or parts.username or parts.password or parts.query or parts.fragment or "?" in address:
        return "is not a plain address: a host, and a path with no query, fragment or credentials"
    if not parts.path.rstrip("/").endswith(prefix):
        return f"does not end with the console's prefix `{prefix}`"
    return None

"""The console's settings (issue 18): `[tool.tickwork] console = "/ops"` opts in, with Cloudflare
Access (`console_team`, `console_aud`) or a bearer token secret (`console_token`); the build
writes them to the manifest, and any it cannot use is `settings.console_invalid` at its line."""

import pytest
from test_build import CENSUS, problems, project
from test_build_settings import written_at

from tickwork_build.build import build

AUD = "4714c1358e65fe4b408ad6d432a5f878"


def manifest_console(root):
    namespace: dict = {}
    exec(build(root).manifest.read_text(), namespace)
    return namespace["CONSOLE"]


def test_no_console_is_served_by_default(tmp_path):
    assert manifest_console(project(tmp_path, {"c.jadpo": CENSUS})) is None


def test_the_console_s_prefix_and_access_are_written_to_the_manifest(tmp_path):
    tool = f'console = "/ops"\nconsole_team = "acme"\nconsole_aud = "{AUD}"\nconsole_token = "CONSOLE_TOKEN"\n'
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=tool)
    assert manifest_console(root) == {"prefix": "/ops", "team": "acme", "aud": AUD, "token": "CONSOLE_TOKEN"}


@pytest.mark.parametrize("tool, line", [
    ('console = "ops"\nconsole_token = "T"', 'console = "ops"'),
    ('console = "/ops/"\nconsole_token = "T"', 'console = "/ops/"'),
    ('console = "/"\nconsole_token = "T"', 'console = "/"'),
    ('console = "/o ps"\nconsole_token = "T"', 'console = "/o ps"'),
    ('console = 5\nconsole_token = "T"', "console = 5"),
    ('console = "/cdn-cgi/ops"\nconsole_token = "T"', 'console = "/cdn-cgi/ops"'),
    ('console = "/ops"', 'console = "/ops"'),  # lets no one in
    ('console = "/ops"\nconsole_team = "acme"', 'console_team = "acme"'),  # no AUD: the nearest line
    ('console = "/ops"\nconsole_team = "acme.cloudflareaccess.com"\nconsole_aud = "' + AUD + '"',
     'console_team = "acme.cloudflareaccess.com"'),
    ('console = "/ops"\nconsole_team = "acme"\nconsole_aud = "not hex!"', 'console_aud = "not hex!"'),
    ('console = "/ops"\nconsole_token = "not a name"', 'console_token = "not a name"'),
    ('console_token = "T"', 'console_token = "T"'),  # no console to let anyone in to
    ('console = "/ops"\nconsole_token = "T"\nconsole_tokens = "U"', 'console_tokens = "U"'),
])
def test_a_console_setting_the_build_cannot_use_is_console_invalid_at_its_line(tmp_path, tool, line):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=tool + "\n")
    text = (root / "pyproject.toml").read_text()
    found = [(p.code, p.file, p.line) for p in problems(root)]
    assert found == [("settings.console_invalid", "pyproject.toml", written_at(text, line))]


def test_a_token_kept_as_a_plain_var_is_refused(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool='console = "/ops"\nconsole_token = "CONSOLE_TOKEN"\n')
    wrangler = root / "wrangler.toml"
    wrangler.write_text(wrangler.read_text() + '\n[vars]\nCONSOLE_TOKEN = "hunter2"\n')
    [problem] = problems(root)
    assert problem.code == "settings.console_invalid" and "wrangler secret put CONSOLE_TOKEN" in problem.mend

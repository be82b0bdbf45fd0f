"""`[tool.tickwork] version_metadata`: the Worker's version-metadata binding, whose version id each
deploy marker keeps (issue 25). It must name the binding the Worker's configuration declares
(`[version_metadata] binding = "CF_VERSION_METADATA"`): a name of no binding would leave every
marker without its version, unsaid."""

import re

from .problems import Problem
from .settings import line_of

BINDING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def declared_binding(wrangler: dict) -> str | None:
    """The binding the Worker's configuration gives its version metadata, where it gives one."""
    table = wrangler.get("version_metadata")
    binding = table.get("binding") if isinstance(table, dict) else None
    return binding if isinstance(binding, str) else None


def check_version_metadata(value: object, declared: str | None, config_file: str, pyproject: str) -> list[Problem]:
    """`settings.version_metadata_invalid` where `value` is set and is not the binding declared."""
    if value is None or (isinstance(value, str) and BINDING.fullmatch(value) and value == declared):
        return []
    named = value if isinstance(value, str) and BINDING.fullmatch(value) else "CF_VERSION_METADATA"
    what = (f"version_metadata = {value!r} is not the version-metadata binding of {config_file} "
            f"({'it declares ' + declared if declared else 'it declares none'})" if isinstance(value, str)
            else f"version_metadata = {value!r} is not the name of a binding")
    return [Problem("settings.version_metadata_invalid", what,
                    f'declare the binding in {config_file}: [version_metadata] binding = "{named}", and name it '
                    f'here: version_metadata = "{named}" (or leave version_metadata out: markers then keep no '
                    "version)", "pyproject.toml", line_of(pyproject, ("tool", "tickwork"), "version_metadata"))]

"""`[tool.tickwork] metrics`: the Analytics Engine dataset each run and skip writes a data point
to (issue 27). It must name a binding of the Worker's configuration's `analytics_engine_datasets`:
a name of no binding would leave the operator's charts empty, unsaid. Left out, tickwork writes no
metrics, even where datasets are bound: a dataset of the app's own keeps only the app's points."""

from .problems import Problem
from .settings import line_of
from .version_metadata import BINDING


def declared_datasets(wrangler: dict) -> tuple[str, ...]:
    """The Analytics Engine bindings the Worker's configuration declares."""
    datasets = wrangler.get("analytics_engine_datasets")
    if not isinstance(datasets, list):
        return ()
    return tuple(d["binding"] for d in datasets if isinstance(d, dict) and isinstance(d.get("binding"), str))


def check_metrics(value: object, declared: tuple[str, ...], config_file: str, pyproject: str) -> list[Problem]:
    """`settings.metrics_invalid` where `value` is set and is not a dataset binding declared."""
    if value is None or (isinstance(value, str) and BINDING.fullmatch(value) and value in declared):
        return []
    named = value if isinstance(value, str) and BINDING.fullmatch(value) else "TICKWORK_METRICS"
    what = (f"metrics = {value!r} is not an Analytics Engine binding of {config_file} "
            f"({'it declares ' + ', '.join(declared) if declared else 'it declares none'})"
            if isinstance(value, str) else f"metrics = {value!r} is not the name of a binding")
    return [Problem("settings.metrics_invalid", what,
                    f'declare the dataset in {config_file}: [[analytics_engine_datasets]] binding = "{named}" '
                    f'dataset = "tickwork", and name it here: metrics = "{named}" (or leave metrics out: '
                    "no data points are written)", "pyproject.toml",
                    line_of(pyproject, ("tool", "tickwork"), "metrics"))]

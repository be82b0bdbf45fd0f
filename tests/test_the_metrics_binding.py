"""The metrics dataset (issue 27): `[tool.tickwork] metrics` names an Analytics Engine binding the
Worker's configuration declares, checked by the build and written to the manifest; the Worker
hands the bound dataset to its ticks, which write each run's and skip's point to it."""

from types import SimpleNamespace

from helpers import every, open_store, run
from test_build import CENSUS, problems, project
from test_worker_adapter import D1Shaped
from tickwork_build.build import build

from tickwork.adapters.workers import run_cron_tick
from tickwork.app import App
from tickwork.testing import MemoryDataset
from tickwork.times import utc

DECLARED = '\n[[analytics_engine_datasets]]\nbinding = "TICKWORK_METRICS"\ndataset = "tickwork"\n'


def with_dataset(tmp_path, tool: str, declared: str = DECLARED):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=tool)
    with (root / "wrangler.toml").open("a") as wrangler:
        wrangler.write(declared)
    return root


def test_the_dataset_wrangler_declares_is_written_to_the_manifest(tmp_path):
    root = with_dataset(tmp_path, 'metrics = "TICKWORK_METRICS"\n')
    assert "METRICS = 'TICKWORK_METRICS'" in build(root).manifest.read_text()


def test_a_dataset_bound_but_not_named_is_not_written_to(tmp_path):
    assert "METRICS = None" in build(with_dataset(tmp_path, "")).manifest.read_text()


def test_a_name_wrangler_does_not_bind_is_metrics_invalid_at_its_line(tmp_path):
    [problem] = problems(with_dataset(tmp_path, 'metrics = "METRICS"\n'))
    assert (problem.code, problem.file, problem.line) == ("settings.metrics_invalid", "pyproject.toml", 3)
    assert "it declares TICKWORK_METRICS" in problem.message
    assert 'binding = "METRICS"' in problem.mend


def test_a_setting_with_no_dataset_bound_or_not_a_name_is_refused(tmp_path):
    [none_bound] = problems(with_dataset(tmp_path / "a", 'metrics = "TICKWORK_METRICS"\n', ""))
    assert none_bound.code == "settings.metrics_invalid" and "it declares none" in none_bound.message
    [not_a_name] = problems(with_dataset(tmp_path / "b", "metrics = 5\n"))
    assert not_a_name.code == "settings.metrics_invalid" and "not the name of a binding" in not_a_name.message


def test_the_worker_hands_its_ticks_the_dataset_the_app_names(tmp_path):
    path = str(tmp_path / "d1.sqlite")
    open_store(path)
    app = App(store="DB", schedules=(every(1),))
    app.metrics = "TICKWORK_METRICS"
    dataset = MemoryDataset()
    env = SimpleNamespace(DB=D1Shaped(path), TICKWORK_METRICS=dataset)
    for at in (utc("2026-03-02 09:00"), utc("2026-03-02 09:01")):
        run(run_cron_tick(app, env, SimpleNamespace(cron="* * * * *", scheduledTime=at)))
    assert [p["blobs"][:2] for p in dataset.points] == [["census", "succeeded"]]

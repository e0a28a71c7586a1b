"""An option added by extending the declarations (a field of a subclass of ``RunOptions``,
declared with :func:`assay.options.option`) reaches every place made from them with no
other line of code: the command line (its ``--help`` and its parsed value), the keywords
of the API and the planner's options; and a run hands the planner's options to the
executor (the one line of that road, tested last, with Spark)."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest
import typer
from typer.testing import CliRunner

from assay.api.explaining import explain_tables
from assay.api.running import run_with
from assay.api.suites import load
from assay.cli import options as opt
from assay.options import (
    Flag,
    RunOptions,
    checked,
    keywords,
    option,
    takes_options,
)
from assay.planner.cost import PlannerOptions, planner_options


@dataclasses.dataclass(frozen=True)
class WithDummy(RunOptions):
    """The run's options and one more, as a new field would be declared in RunOptions."""

    dummy_outputs: int = option(
        24,
        group="running",
        flags=[Flag(("--dummy-outputs",), "Aggregate outputs of one scan branch.", bounds=(1, 99))],
        kind="count",
        commands=("run", "check"),
        planner="max_outputs",
    )


def _app(seen: list[RunOptions]) -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None, add_completion=False)

    @app.callback()
    def _root() -> None:
        """Commands."""

    for name in ("run", "check", "explain"):

        @app.command(name)
        @opt.takes_run_options(name, cls=WithDummy)
        def command(configs: opt.Configs, *, debug: opt.Debug = False, given: opt.Given) -> None:
            seen.append(opt.run_options(given, cls=WithDummy))

    return app


def test_the_option_is_on_the_command_lines_its_declaration_names():
    app, runner = _app([]), CliRunner()
    shown = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "100"})
    assert shown.exit_code == 0
    lines = shown.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("--dummy-outputs"))
    assert "Aggregate outputs of one scan branch." in lines[at]
    assert "[default: 24; 1<=x<=99]" in " ".join(lines[at : at + 2])
    # after every option of RunOptions (the field order), before the command's own
    assert "--openlineage-namespace" in "".join(lines[:at])
    assert "--debug" in "".join(lines[at:])
    assert "--dummy-outputs" in runner.invoke(app, ["check", "--help"]).output
    # the planner reads it, so explain takes it too: the plan explained is the plan run
    assert "--dummy-outputs" in runner.invoke(app, ["explain", "--help"]).output


def test_its_parsed_value_is_in_the_options_and_the_planners():
    seen: list[RunOptions] = []
    runner = CliRunner()
    done = runner.invoke(_app(seen), ["run", "x.yaml", "--dummy-outputs", "7", "-v", "a=1"])
    assert done.exit_code == 0, done.output
    assert seen == [WithDummy(dummy_outputs=7, vars={"a": "1"}, progress=seen[0].progress)]
    assert planner_options(seen[0]) == PlannerOptions(max_outputs=7)
    refused = runner.invoke(_app(seen), ["run", "x.yaml", "--dummy-outputs", "100"])
    assert refused.exit_code == 2 and "--dummy-outputs" in refused.output


def test_it_is_a_keyword_of_the_api():
    @takes_options("run", WithDummy)
    def run(config: str, *, spark: object = None, **options: object) -> RunOptions:
        return WithDummy(**checked(run, options))  # type: ignore[arg-type]

    parameter = inspect.signature(run).parameters["dummy_outputs"]
    assert (parameter.kind, parameter.default) == (parameter.KEYWORD_ONLY, 24)
    assert [p.name for p in keywords("run", WithDummy)][-1] == "dummy_outputs"
    assert run("x.yaml", dummy_outputs=3).dummy_outputs == 3
    assert "dummy_outputs" not in inspect.signature(run_with).parameters  # one options object
    assert "dummy_outputs" not in [p.name for p in keywords("load", WithDummy)]


def test_explain_plans_with_the_options_a_run_plans_with(tmp_path):
    rules = [{"type": "range", "column": f"c{i}", "min": 0} for i in range(6)]
    table = {"name": "t", "source": {"path": str(tmp_path / "t.parquet")}, "rules": rules}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"tables": [table]}))
    suite = load(str(path), for_run=False)
    default = explain_tables(suite, planner_options(WithDummy()))[0].plan
    narrow = explain_tables(suite, planner_options(WithDummy(dummy_outputs=1)))[0].plan
    assert default == explain_tables(suite)[0].plan
    # one aggregate output per branch: the option reached the plan explain prints
    assert (default["aggregate"]["branches"], narrow["aggregate"]["branches"]) == (1, 7)
    assert keywords("explain", WithDummy)[-1].name == "dummy_outputs"
    assert "dummy_outputs" in [p.name for p in keywords("explain", WithDummy)]


def test_without_a_planner_field_the_planner_keeps_its_defaults():
    assert planner_options(RunOptions(concurrency=1, sample_size=3)) == PlannerOptions()


@pytest.mark.spark
def test_a_run_hands_the_planners_options_to_the_executor(spark, tmp_path, monkeypatch):
    import assay.executor.run as executor

    path = tmp_path / "t.json"
    data = str(tmp_path / "t.parquet")
    spark.createDataFrame([(1,), (2,)], "id long").write.parquet(data)
    table = {"name": "t", "source": {"path": data}, "rules": [{"type": "not_null", "column": "id"}]}
    path.write_text(json.dumps({"tables": [table]}))
    real, given = executor.run_suite, []

    def run_suite(*args, **kwargs):
        given.append(kwargs["options"])
        return real(*args, **kwargs)

    monkeypatch.setattr(executor, "run_suite", run_suite)
    result = run_with(str(path), WithDummy(dummy_outputs=5), spark=spark)
    assert result.exit_code == 0
    assert given == [PlannerOptions(max_outputs=5)]

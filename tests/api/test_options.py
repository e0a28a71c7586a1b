"""The options of a run are declared once (``assay.options.RunOptions``, each field with
its flags): ``assay.run``'s keywords, ``assay.load``'s, the command line of every command
and the loader's ``LoadOptions`` are made from the declarations and cannot drift from
them. No Spark."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import subprocess
import sys

import pytest

import assay
from assay.api.running import run_with
from assay.api.suites import load_with
from assay.cli import app as cli
from assay.cli.console import err
from assay.cli.options import KINDS, run_options
from assay.dialects.base import LoadOptions
from assay.errors import ConfigError
from assay.executor.deadline import DEFAULT_PLAN_TIMEOUT
from assay.options import RunOptions, declarations
from tests.conftest import ROOT

FIELDS = [f.name for f in dataclasses.fields(RunOptions)]
NOT_OPTIONS = {"config", "spark"}
"""What ``assay.run`` takes besides options: what to run, and the session to run it on."""
COMMAND_ONLY = {"configs", "debug", "format", "passes"}
"""Parameters of the commands that are not options of a run."""


def _keywords(function) -> dict[str, object]:
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if name not in NOT_OPTIONS and p.kind is p.KEYWORD_ONLY
    }


def test_the_keywords_of_assay_run_are_the_fields_of_the_options():
    assert sorted(_keywords(assay.run)) == sorted(FIELDS)
    assert set(inspect.signature(assay.run).parameters) - set(FIELDS) == NOT_OPTIONS


def test_the_defaults_of_assay_run_are_the_options_defaults():
    assert RunOptions(**_keywords(assay.run)) == RunOptions()
    assert RunOptions().plan_timeout == DEFAULT_PLAN_TIMEOUT


def test_the_keywords_of_assay_load_are_options_and_for_run():
    keywords = _keywords(assay.load)
    assert keywords.pop("for_run") is True
    assert set(keywords) <= set(FIELDS)
    assert RunOptions(**keywords) == RunOptions()


def test_validate_defaults_agree_with_run():
    keywords = _keywords(assay.validate)
    shared = {k: keywords[k] for k in keywords if k in FIELDS and k != "sample_size"}
    assert set(shared) == {
        "vars",
        "concurrency",
        "on_event",
        "plan_timeout",
        "metrics",
        "metrics_table",
        "tags",
        "run_time",
    }
    assert RunOptions(**shared) == RunOptions()


def _command_parameters(command) -> dict[str, object]:
    return {
        name: p.default
        for name, p in inspect.signature(command).parameters.items()
        if name not in COMMAND_ONLY
    }


def _options(command) -> set[tuple[frozenset[str], str]]:
    """Every option of a click command: its names and its help."""
    return {(frozenset((*p.opts, *p.secondary_opts)), p.help) for p in command.params}


def _click_commands() -> dict[str, object]:
    group = cli.command()
    found = {name: c for name, c in group.commands.items() if name != "server"}
    found |= {f"server {name}": c for name, c in group.commands["server"].commands.items()}
    return found


def test_every_command_takes_the_options_its_declarations_name_and_no_other():
    commands = _click_commands()
    for f, declared in declarations(RunOptions):
        assert declared.commands <= set(commands), f.name
        for flag in declared.flags:
            names = frozenset(n.strip() for part in flag.names for n in part.split("/"))
            option = (names - {""}, flag.help)
            for name, command in commands.items():
                assert (option in _options(command)) == (name in declared.commands), (f.name, name)


def test_every_option_of_assay_run_is_a_declared_flag():
    parameters = set(_command_parameters(cli.run))
    params = {flag.param or f.name for f, d in declarations(RunOptions) for flag in d.flags}
    assert parameters == params
    # Every field but the event sink (the CLI's own) comes from the command line.
    given = {f.name for f, d in declarations(RunOptions) if d.flags}
    assert given == set(FIELDS) - {"on_event"}


def test_every_kind_has_a_type_and_a_default_per_flag():
    for f, declared in declarations(RunOptions):
        if declared.flags:
            kind = KINDS[declared.kind]
            assert len(kind.types(f)) == len(kind.defaults(f)) == len(declared.flags), f.name


def test_every_planner_field_named_is_one_of_the_planners_options():
    from assay.planner.cost import PlannerOptions

    knobs = {f.name for f in dataclasses.fields(PlannerOptions)}
    assert {d.planner for _, d in declarations(RunOptions) if d.planner} <= knobs


def test_the_run_command_declares_no_option_it_ignores():
    own = inspect.signature(inspect.unwrap(cli.run)).parameters
    assert list(own) == ["configs", "debug", "given"]


def test_the_command_lines_defaults_are_the_options_defaults():
    from_cli = run_options(_command_parameters(cli.run))
    assert from_cli == RunOptions(progress=err)  # the CLI shows progress by default
    assert run_options(_command_parameters(cli.check)) == RunOptions()


def test_the_command_line_is_converted_once_in_field_order():
    params = {
        "var": ("B=3",),
        "vars_": "A=1,B=2",
        "input_": ("orders=sales.orders",),
        "plugin": ("my_rules",),
        "conf": ("spark.sql.shuffle.partitions=4",),
        "plan_timeout": "45m",
        "exit_error_on_fail": "FALSE",
        "email_on_pass": "true",
        "json_report": ROOT / "r.json",
        "junit_report": ROOT / "junit.xml",
        "progress": False,
        "concurrency": 2,
        "remote": "sc://h:15002",
    }
    options = run_options(params, on_event=print)
    assert options == RunOptions(
        vars={"A": "1", "B": "3"},
        inputs={"orders": "sales.orders"},
        plugins=("my_rules",),
        server_conf={"spark.sql.shuffle.partitions": "4"},
        plan_timeout=2700.0,
        exit_error_on_fail=False,
        email_on_pass=True,
        json_report=str(ROOT / "r.json"),
        junit_report=str(ROOT / "junit.xml"),
        concurrency=2,
        remote="sc://h:15002",
        on_event=print,
    )
    with pytest.raises(ConfigError, match="--vars item '1X' is not a variable name"):
        run_options({**params, "vars_": "1X=2", "email_on_pass": "maybe"})


def test_load_options_are_the_run_options_and_for_run():
    fields = [f.name for f in dataclasses.fields(LoadOptions)]
    assert fields == [*FIELDS, "for_run"]
    options = RunOptions(allow_shell=True, inputs={"a": "t"}, source="s", pipeline="p")
    loading = LoadOptions.of(options, for_run=True)
    assert loading.for_run and all(getattr(loading, f) == getattr(options, f) for f in FIELDS)
    assert LoadOptions(allow_shell=True).inputs == {}


def test_options_are_frozen_and_own_their_values():
    given = {"a": "1"}
    options = RunOptions(vars=given, plugins=["m"])
    given["a"] = "2"
    assert options.vars == {"a": "1"} and options.plugins == ("m",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.concurrency = 8  # type: ignore[misc]
    assert options.with_vars({"b": "x"}).vars == {"a": "1", "b": "x"}
    assert options.with_vars({}) is options


def test_a_keyword_a_function_does_not_take_is_a_type_error():
    with pytest.raises(TypeError, match="run\\(\\) got an unexpected keyword argument 'remot'"):
        assay.run("x.yaml", remot="sc://h")
    with pytest.raises(TypeError, match="load\\(\\) got an unexpected keyword argument 'remote'"):
        assay.load("x.yaml", remote="sc://h")


def test_the_api_passes_the_options_object_down():
    assert list(inspect.signature(run_with).parameters) == ["config", "options", "spark"]
    assert list(inspect.signature(load_with).parameters) == ["config", "options", "for_run"]


def test_the_options_module_imports_nothing_of_the_project_when_run():
    tree = ast.parse((ROOT / "src/assay/options.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    modules = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    modules += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert not [m for m in modules if m.split(".")[0] in ("assay", "pyspark")]


def test_importing_assay_imports_nothing_else_and_exports_its_all():
    code = (
        "import sys, assay; "
        "loaded = sorted(m for m in sys.modules if m.startswith('assay')); "
        "assert loaded == ['assay', 'assay.version'], loaded; "
        "missing = [n for n in assay.__all__ if getattr(assay, n, None) is None]; "
        "assert not missing, missing"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert {"compare", "run_comparison_job", "run_comparison_job_from_dfs"} <= set(assay.__all__)
    assert set(assay.__all__) <= set(dir(assay))


def test_no_import_circle_through_the_package():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("assay", exclude_type_checking_imports=True)
    assert graph.find_shortest_chain(importer="assay", imported="assay.api") is None
    assert graph.find_modules_directly_imported_by("assay.options") == set()

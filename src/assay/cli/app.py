"""``assay``: run, check and explain data-quality configs.

Thin by design: parse options, call one core function, map errors to exit codes
(0 passed, 1 a check failed, 2 config or usage error, 3 Spark or environment failure).
stdout carries JSON lines only (``explain --format text`` excepted); everything else
goes to stderr.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from assay.cli import options as opt
from assay.cli.compare import compare as compare_command
from assay.cli.console import RunStream, err, guarded, on_sigterm, stdout_closed, summarised
from assay.cli.console import fail as _fail
from assay.cli.console import out as _out
from assay.cli.convert import convert_command
from assay.cli.history import history_command
from assay.cli.options import variables as _variables  # noqa: F401 - tests read it here
from assay.cli.profile import profile_command, suggest_command
from assay.cli.report import report as report_command
from assay.cli.server import server_app
from assay.errors import AssayError, ConfigError
from assay.ir.suite import Suite
from assay.version import __version__

if TYPE_CHECKING:
    from assay.api.result import Result
    from assay.api.suites import ReadConfigs

app = typer.Typer(
    name="assay",
    help="Data-quality checks for Apache Spark, compiled into one Spark plan per table.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


def _load(configs: list[Path], params: Mapping[str, Any], for_run: bool) -> Suite:
    """The suite as ``assay check`` (``for_run``: every refusal ``run`` would make before
    Spark starts, so both give the same exit code) and ``assay explain`` (a sparquet
    file without ``--source`` is explained over a placeholder) load it."""
    from assay.api.suites import load_with

    return load_with(configs, opt.run_options(params), for_run=for_run)


STATUS_PREFIX = "DATA_VALIDATOR_STATUS="


def _is_data_validator(configs: ReadConfigs, dialect: str | None) -> bool:
    """Whether any config is a data-validator file (best effort: unreadable files are not)."""
    if dialect is not None:
        return dialect == "data-validator"
    from assay.dialects import detect

    for tree in configs.trees.values():
        try:
            if detect(tree) == "data-validator":
                return True
        except AssayError:
            continue
    return False


@app.command()
@opt.takes_run_options("run")
def run(configs: opt.Configs, *, debug: opt.Debug = False, given: opt.Given) -> None:
    """Run every check; stream one JSON line per result, per table and a summary."""
    from assay.api.suites import read_configs

    read = read_configs(configs)  # parsed once: for the status line and for the load
    dialect = given["dialect"]
    shows_status = given["exit_error_on_fail"] is not None or _is_data_validator(read, dialect)
    code, failed = 3, False
    try:
        code, failed = _ran(read, given, debug)
    finally:
        if shows_status:  # data-validator prints it on stdout; assay keeps that for JSON
            err(f"{STATUS_PREFIX}{'PASS' if code == 0 and not failed else 'FAIL'}")
    raise typer.Exit(code)


def _ran(configs: ReadConfigs, params: Mapping[str, Any], debug: bool) -> tuple[int, bool]:
    """The exit code of ``assay run`` and whether a check failed."""
    try:
        result = summarised(debug, lambda stream: _run(configs, params, stream))
    except typer.Exit as exit_:
        return exit_.exit_code, False
    return result.exit_code, result.summary.failed > 0


def _run(configs: ReadConfigs, params: Mapping[str, Any], stream: RunStream) -> Result:
    """The run of the command line, its events streamed (JSON lines on stdout, errors on
    stderr), and every reason of a non-zero exit on stderr, terminal or not (CI logs)."""
    from assay.api.running import run_with
    from assay.executor.session import quiet_pyspark_logging

    options = opt.run_options(params, on_event=stream)
    quiet_pyspark_logging()
    result = run_with(configs, options)
    if result.summary.exit_code != 0:
        err(f"assay: {result.exit_reason}")
    for problem in result.report_problems:
        err(f"error: report: {problem}")
    _github(result)
    return result


def _github(result: Result) -> None:
    """In a GitHub Actions step: the Markdown summary appended to the job summary, and
    the annotations on stderr (stdout is the JSON lines'; the runner reads both). Outside
    GitHub Actions nothing is imported (the Markdown's templates, jinja2)."""
    import os

    if not os.environ.get("GITHUB_STEP_SUMMARY") and os.environ.get("GITHUB_ACTIONS") != "true":
        return  # publish would neither append a summary nor annotate
    from assay.report.github import publish

    events = [e.to_dict() for e in result.events]
    for problem in publish(events, os.environ, err, annotate=True):
        err(f"warning: {problem}")


@app.command()
@opt.takes_run_options("check")
def check(configs: opt.Configs, *, debug: opt.Debug = False, given: opt.Given) -> None:
    """Validate configs completely without starting Spark (exit 0 valid, 2 invalid);
    one ``check`` JSON line either way, the errors also on stderr."""
    from assay.api.watching import monitoring_of
    from assay.cli.checked import invalid_event, valid_event

    def action() -> None:
        try:
            suite = _load(configs, given, True)
            monitoring_of(suite, opt.run_options(given))  # the store run would use
        except Exception as error:
            _out(invalid_event(configs, error))  # then the error on stderr, and its exit code
            raise
        _out(valid_event(configs, suite))

    guarded(debug, action)


@app.command()
@opt.takes_run_options("explain", after={"format": "vars", "passes": "plugins"})
def explain(
    configs: opt.Configs,
    *,
    format: opt.Format = "text",  # noqa: A002 - the option's name
    passes: opt.Passes = False,
    debug: opt.Debug = False,
    given: opt.Given,
) -> None:
    """Print each table's plan and how many Spark plans a run submits (no Spark)."""
    from assay.api import explain_tables
    from assay.api.explaining import explain_history, history_text
    from assay.api.watching import monitoring_of
    from assay.planner.cost import planner_options

    if format not in ("text", "json"):
        _fail(ConfigError(f"--format must be text or json, not {format!r}"))

    def action() -> None:
        suite = _load(configs, given, False)
        if suite.deferred:
            err(
                "note: variables resolved at run time ("
                + ", ".join(v.name for v in suite.deferred)
                + f"): the {suite.unresolved_rules} rules using them are not shown"
            )
        tables = explain_tables(suite, planner_options(opt.run_options(given)))
        if passes:
            _explain_passes(format, suite)
        for table in tables:
            if format == "json":
                _out(table.to_dict())
            else:
                sys.stdout.write(table.text + "\n\n")
        history = explain_history(suite, monitoring_of(suite, opt.run_options(given)))
        if history is not None and format == "json":
            _out(history)
        elif history is not None:
            sys.stdout.write(history_text(history) + "\n\n")
        if format == "text" and (tables or not suite.comparisons):
            total = sum(t.spark_plans for t in tables)
            views = f"; {len(suite.views)} temp views are created first" if suite.views else ""
            sys.stdout.write(
                f"{len(tables)} tables, {total} Spark plans when every rule passes"
                f" (+1 per table whose row-level rules fail){views}\n"
            )
        from assay.cli.compare import explain_comparisons

        explain_comparisons(suite, format)

    guarded(debug, action)


def _explain_passes(format: str, suite: Suite) -> None:
    """The planner's passes, in order, then each table's state after each of them: text,
    or one ``passes`` line (the list only)."""
    from assay.dialects import validator_functions as validators
    from assay.planner.passes import PASSES, describe
    from assay.planner.trace import trace, traced

    if format == "json":
        listed = [{"name": p.name, "does": p.does, "where": p.where, "test": p.test,
                   "option": p.option} for p in PASSES]  # fmt: skip
        tables = [{"table": t.name, "states": traced(validators.split(t)[0])} for t in suite.tables]
        _out({"event": "passes", "passes": listed, "tables": tables})
        return
    sys.stdout.write(describe() + "\n")
    for table in suite.tables:
        planned, _ = validators.split(table)
        sys.stdout.write(trace(planned) + "\n")


app.command("report")(report_command)
app.add_typer(server_app, name="server")
app.command("history")(history_command)
app.command("profile")(profile_command)
app.command("suggest")(suggest_command)
app.command("convert")(convert_command)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"assay {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Data-quality checks for Apache Spark over Spark Connect."""


@functools.lru_cache(maxsize=1)
def command() -> Any:
    """The command line as click reads it, built once from the typer app: building it
    evaluates every option's annotations (84 ms), which the warm client does before its
    first command instead of in every one; each option's coercion is built only for a
    value given (:mod:`assay.cli.coercion`: a run's ~30 options left out cost ~85 ms)."""
    from assay.cli.coercion import defer_coercions

    return defer_coercions(typer.main.get_command(app))


def main() -> None:
    """Console-script entry point."""
    # pyspark's Connect client imports IPython, when installed, for the terminal width of
    # a progress bar assay never shows: 0.25 s of a run's start-up (benchmarks/README.md).
    if "IPython" not in sys.modules:
        sys.modules["IPython"] = None  # type: ignore[assignment]  # its import then fails
    on_sigterm()  # a scheduler's SIGTERM ends a command as Ctrl-C does
    try:
        command()(standalone_mode=True)  # what app() does, with the command built once
    except BrokenPipeError:
        try:
            stdout_closed()
        except typer.Exit as exit_:
            _exit(exit_.exit_code)
    except SystemExit as exit_:
        code = exit_.code
        _exit(code if isinstance(code, int) else (0 if code is None else 2))


def _exit(code: int) -> NoReturn:
    """Exit with ``code`` once the exit hooks ran and the output is flushed, without the
    interpreter's teardown of every module (pandas, pyarrow and gRPC's take 0.3-0.4 s)
    when no other thread is left to wait for."""
    import atexit
    import contextlib
    import os
    import threading

    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    if any(t.is_alive() and not t.daemon for t in others):
        sys.exit(code)
    atexit._run_exitfuncs()  # the embedded server's stop, logging's flush
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


app.command("compare")(compare_command)

"""``assay``: run, check and explain data-quality configs.

Thin by design: parse options, call one core function, map errors to exit codes
(0 passed, 1 a check failed, 2 config or usage error, 3 Spark or environment failure).
stdout carries JSON lines only (``explain --format text`` excepted); everything else
goes to stderr.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NoReturn, TypeVar

import orjson
import typer

from assay import __version__
from assay.cli import options as opt
from assay.errors import AssayError, ConfigError
from assay.ir.suite import RunPolicy, Suite

app = typer.Typer(
    name="assay",
    help="Data-quality checks for Apache Spark, compiled into one Spark plan per table.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)

T = TypeVar("T")


def _err(line: str) -> None:
    sys.stderr.write(line.rstrip("\n") + "\n")
    sys.stderr.flush()


def _out(obj: dict) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE))
    sys.stdout.buffer.flush()


def _fail(error: AssayError) -> NoReturn:
    label = "config error" if error.exit_code == 2 else "error"
    for line in str(error).splitlines() or [error.message]:
        _err(f"{label}: {line}" if not line.startswith(" ") else line)
    raise typer.Exit(error.exit_code)


def _guarded(debug: bool, action: Callable[[], T]) -> T:
    """Run ``action``; AssayError -> its exit code, anything else -> exit 3 (no traceback
    unless --debug)."""
    try:
        return action()
    except AssayError as error:
        _fail(error)
    except KeyboardInterrupt:
        _err("interrupted")
        raise typer.Exit(130) from None
    except BrokenPipeError:
        _stdout_closed()
    except typer.Exit:
        raise
    except Exception as error:  # noqa: BLE001 - the boundary: never a raw traceback
        if debug:
            traceback.print_exc(file=sys.stderr)
        _err(f"internal error: {type(error).__name__}: {error}")
        _err("  hint: rerun with --debug for the traceback, and report it")
        raise typer.Exit(3) from None


BROKEN_PIPE_EXIT = 141
"""The exit code when the reader of stdout went away (``assay explain c.yaml | head``):
128 + SIGPIPE, what a shell reports for a program the signal ended."""


def _stdout_closed() -> NoReturn:
    """The reader of stdout closed it: stop quietly (no traceback, no message), with
    stdout pointed at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    raise typer.Exit(BROKEN_PIPE_EXIT)


def parse_assignments(items: Iterable[str], what: str) -> dict[str, str]:
    """``["a=1", "b=x=y"]`` -> ``{"a": "1", "b": "x=y"}``; a missing ``=`` is a usage error."""
    found: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{what} {item!r} must look like NAME=VALUE")
        found[name.strip()] = value
    return found


def _variables(var: list[str] | None, vars_: str | None) -> dict[str, str]:
    found = parse_assignments([p for p in (vars_ or "").split(",") if p], "--vars item")
    found.update(parse_assignments(var or [], "--var"))
    return found


def _load(
    configs: list[Path],
    variables: dict[str, str],
    sample_size: int | None = None,
    dialect: str | None = None,
    options=None,
) -> Suite:
    from assay.config import load_suite

    suite = load_suite(configs, variables=variables, dialect=dialect, options=options)
    if sample_size is not None:
        tables = tuple(dataclasses.replace(t, sample_size=sample_size) for t in suite.tables)
        suite = dataclasses.replace(suite, tables=tables)
    return suite


def _load_options(
    allow_shell: bool,
    inputs: list[str] | None,
    source: str | None,
    pipeline: str | None,
    plugins: list[str] | None,
    *,
    for_run: bool,
):
    """The front ends' options; imports ``--plugin`` modules and ``assay.rules`` entry
    points first, so their rule types are known."""
    from assay.dialects.base import LoadOptions
    from assay.plugins import load_entry_points, load_plugins

    load_entry_points()
    load_plugins(plugins or [])
    return LoadOptions(
        allow_shell=allow_shell,
        inputs=parse_assignments(inputs or [], "--input"),
        source=source,
        pipeline=pipeline,
        for_run=for_run,
    )


def _bool_option(value: str | None, name: str, default: bool) -> bool:
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise ConfigError(f"{name} must be true or false, not {value!r}")
    return lowered == "true"


STATUS_PREFIX = "DATA_VALIDATOR_STATUS="


def _is_data_validator(configs: list[Path], dialect: str | None) -> bool:
    """Whether any config is a data-validator file (best effort: unreadable files are not)."""
    if dialect is not None:
        return dialect == "data-validator"
    from assay.config import read_document
    from assay.dialects import detect

    for config in configs:
        try:
            if detect(read_document(config)) == "data-validator":
                return True
        except AssayError:
            continue
    return False


@app.command()
def run(
    configs: opt.Configs,
    *,
    remote: opt.Remote = None,
    var: opt.Var = None,
    vars_: opt.Vars = None,
    sample_size: opt.SampleSize = None,
    concurrency: opt.Concurrency = 4,
    conf: opt.ServerConf = None,
    progress: opt.Progress = None,
    dialect: opt.Dialect = None,
    allow_shell: opt.AllowShell = False,
    input_: opt.Input = None,
    source: opt.Source = None,
    pipeline: opt.Pipeline = None,
    plugin: opt.Plugin = None,
    exit_error_on_fail: opt.ExitErrorOnFail = None,
    email_on_pass: opt.EmailOnPass = None,
    json_report: opt.JsonReport = None,
    html_report: opt.HtmlReport = None,
    debug: opt.Debug = False,
) -> None:
    """Run every check; stream one JSON line per result, per table and a summary."""
    checks_failed = [False]

    def action() -> int:
        exit_on_fail = _bool_option(exit_error_on_fail, "--exitErrorOnFail", True)
        on_pass = _bool_option(email_on_pass, "--emailOnPass", False)
        variables = _variables(var, vars_)
        options = _load_options(allow_shell, input_, source, pipeline, plugin, for_run=True)
        server_conf = parse_assignments(conf or [], "--conf")

        def load(extra: dict[str, str]) -> Suite:
            suite = _load(configs, {**variables, **extra}, sample_size, dialect, options)
            if not exit_on_fail:
                waived = RunPolicy("warn", "--exitErrorOnFail false")
                suite = dataclasses.replace(suite, policy=waived)
            return suite

        reports = _Reports(
            str(json_report) if json_report is not None else None,
            str(html_report) if html_report is not None else None,
            on_pass,
        )
        code, failed = _run(
            load, variables, remote, server_conf, concurrency, progress, reports, debug
        )
        checks_failed[0] = failed
        return code

    show_status = exit_error_on_fail is not None or _is_data_validator(configs, dialect)
    code = 3
    try:
        code = _guarded(debug, action)
    except typer.Exit as exit_:
        code = exit_.exit_code
        raise
    finally:
        if show_status:
            # data-validator prints this line on stdout; assay keeps stdout for JSON lines.
            ok = code == 0 and not checks_failed[0]
            _err(f"{STATUS_PREFIX}{'PASS' if ok else 'FAIL'}")
    raise typer.Exit(code)


@dataclasses.dataclass
class _Reports:
    """The client-side reports of a run (``--jsonReport``, ``--htmlReport``, and the
    config's outputs and email)."""

    json_report: str | None
    html_report: str | None
    email_on_pass: bool


def _run(
    load: Callable[[dict[str, str]], Suite],
    variables: dict[str, str],
    remote: str | None,
    server_conf: dict[str, str],
    concurrency: int,
    progress: bool | None,
    reports: _Reports,
    debug: bool = False,
) -> tuple[int, bool]:
    """Run the suite; the exit code, and whether a rule failed (whatever the policy).

    Every table error, and the reason of a non-zero exit, go to stderr whether or not it
    is a terminal (CI logs show why a run failed); Spark's own words with ``--debug``."""
    from assay.executor.run import Progress, run_suite
    from assay.executor.session import open_session, quiet_pyspark_logging
    from assay.report.events import TableFinished
    from assay.report.files import preflight, write_reports
    from assay.report.jsonl import JsonLinesSink

    suite = load({})
    if not suite.deferred:
        preflight(suite.reports, reports.json_report, reports.html_report)
    quiet_pyspark_logging()
    show = sys.stderr.isatty() if progress is None else progress
    reporter = Progress(enabled=show, write=_err)
    reporter.note("assay: starting Spark" if remote is None else "assay: connecting to Spark")
    events: list[dict] = []
    sink = JsonLinesSink()

    def tee(event) -> None:
        sink(event)
        events.append(event.to_dict())
        if isinstance(event, TableFinished) and event.error is not None:
            _err(f"error: table {event.table}: {event.error}")
            if debug and event.detail:
                _err(event.detail)

    with open_session(remote, server_conf=server_conf) as handle:
        reporter.note(f"assay: connected to {handle.url}")
        if suite.deferred:
            suite = _resolved(suite, load, variables, handle.spark, reporter)
            preflight(suite.reports, reports.json_report, reports.html_report)
        summary = run_suite(
            suite,
            handle.spark,
            tee,
            concurrency=concurrency,
            progress=reporter,
            server=f"the Spark Connect server at {handle.url}",
        )
    code = summary.exit_code
    if code != 0:
        _err(f"assay: {summary.exit_reason}")
    if suite.reports or reports.json_report or reports.html_report:
        problems = write_reports(
            suite.reports,
            events,
            json_report=reports.json_report,
            html_report=reports.html_report,
            failed=code != 0 or summary.failed > 0,
            email_on_pass=reports.email_on_pass,
        )
        for problem in problems:
            _err(f"error: report: {problem}")
        if problems:
            code = max(code, 3)
    return code, summary.failed > 0


def _resolved(suite: Suite, load, variables: dict[str, str], spark, reporter) -> Suite:
    """The suite rebuilt with its deferred variables' values (data-validator ``sql`` and
    ``shell`` variables), resolved in order on the open session."""
    from assay.dialects.data_validator import resolve_deferred
    from assay.executor.setup import sql_variable

    names = ", ".join(v.name for v in suite.deferred)
    reporter.note(f"assay: resolving variables {names}")
    values = resolve_deferred(suite.deferred, variables, sql_variable(spark))
    return load(values)


@app.command()
def check(
    configs: opt.Configs,
    *,
    var: opt.Var = None,
    vars_: opt.Vars = None,
    dialect: opt.Dialect = None,
    allow_shell: opt.AllowShell = False,
    input_: opt.Input = None,
    source: opt.Source = None,
    pipeline: opt.Pipeline = None,
    plugin: opt.Plugin = None,
    debug: opt.Debug = False,
) -> None:
    """Validate configs completely without starting Spark (exit 0 valid, 2 invalid)."""

    def action() -> None:
        options = _load_options(allow_shell, input_, source, pipeline, plugin, for_run=False)
        suite = _load(configs, _variables(var, vars_), dialect=dialect, options=options)
        event = {
            "event": "check",
            "valid": True,
            "files": [str(c) for c in configs],
            "tables": len(suite.tables),
            "rules": sum(len(t.rules) for t in suite.tables),
        }
        if suite.deferred:
            # As data-validator's config check, substitutions with run-time values are not
            # validated: these variables and the checks using them resolve at run time.
            event["unresolved_variables"] = [v.name for v in suite.deferred]
            event["unresolved_rules"] = suite.unresolved_rules
        _out(event)

    _guarded(debug, action)


@app.command()
def explain(
    configs: opt.Configs,
    *,
    var: opt.Var = None,
    vars_: opt.Vars = None,
    format: opt.Format = "text",
    dialect: opt.Dialect = None,
    allow_shell: opt.AllowShell = False,
    input_: opt.Input = None,
    source: opt.Source = None,
    pipeline: opt.Pipeline = None,
    plugin: opt.Plugin = None,
    debug: opt.Debug = False,
) -> None:
    """Print each table's plan and how many Spark plans a run submits (no Spark)."""
    from assay.planner import plan_table
    from assay.planner.render import render_plan

    if format not in ("text", "json"):
        _fail(ConfigError(f"--format must be text or json, not {format!r}"))

    def action() -> None:
        options = _load_options(allow_shell, input_, source, pipeline, plugin, for_run=False)
        suite = _load(configs, _variables(var, vars_), dialect=dialect, options=options)
        if suite.deferred:
            _err(
                "note: variables resolved at run time ("
                + ", ".join(v.name for v in suite.deferred)
                + f"): the {suite.unresolved_rules} rules using them are not shown"
            )
        plans = [plan_table(t) for t in suite.tables]
        for plan in plans:
            text = render_plan(plan) + _outputs_text(plan.table)
            if format == "json":
                _out(
                    {
                        "event": "plan",
                        "table": plan.table.name,
                        "spark_plans": plan.base_plans,
                        "detail_plan": plan.detail is not None,
                        "plan": text,
                    }
                )
            else:
                sys.stdout.write(text + "\n\n")
        if format == "text":
            total = sum(p.base_plans for p in plans)
            views = f"; {len(suite.views)} temp views are created first" if suite.views else ""
            sys.stdout.write(
                f"{len(plans)} tables, {total} Spark plans when every rule passes"
                f" (+1 per table whose row-level rules fail){views}\n"
            )
        from assay.cli.compare import explain_comparisons

        explain_comparisons(suite, format)

    _guarded(debug, action)


def _outputs_text(table) -> str:
    """The writes a table's dialect outputs add (one Spark plan each)."""
    from assay.executor.outputs import sinks_of
    from assay.ir.outputs import FailedRows

    if not table.outputs:
        return ""
    sinks = sinks_of(table)
    if all(isinstance(o, FailedRows) for o in table.outputs):
        when = "each only when its rule fails"
    elif table.hold_outputs:
        when = "none when a rule fails: on_failure fail"
    else:
        when = "after the checks"
    lines = [f"  writes: up to {len(sinks)} Spark plans ({when})"]
    lines += [f"    {s.format} -> {s.target}" for s in sinks]
    return "\n" + "\n".join(lines)


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


def main() -> None:
    """Console-script entry point."""
    try:
        app(standalone_mode=True)
    except BrokenPipeError:
        try:
            _stdout_closed()
        except typer.Exit as exit_:
            sys.exit(exit_.exit_code)
    except SystemExit as exit_:
        code = exit_.code
        sys.exit(code if isinstance(code, int) else (0 if code is None else 2))


import assay.cli.compare  # noqa: E402, F401  (registers ``assay compare``)

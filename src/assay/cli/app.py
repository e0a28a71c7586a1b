"""``assay``: run, check and explain data-quality configs.

Thin by design: parse options, call one core function, map errors to exit codes
(0 passed, 1 a check failed, 2 config or usage error, 3 Spark or environment failure).
stdout carries JSON lines only (``explain --format text`` excepted); everything else
goes to stderr.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TypeVar

import typer

from assay import __version__
from assay.cli import options as opt
from assay.cli.compare import compare as compare_command
from assay.cli.console import err, guarded, said_error, stdout_closed
from assay.cli.console import fail as _fail
from assay.cli.console import out as _out
from assay.cli.options import parse_assignments, parse_duration
from assay.cli.report import report as report_command
from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.ir.suite import Suite

app = typer.Typer(
    name="assay",
    help="Data-quality checks for Apache Spark, compiled into one Spark plan per table.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)

T = TypeVar("T")


VARIABLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""A name ``$name`` and ``${name}`` can refer to: a letter, then letters, digits or ``_``."""


def _variables(var: list[str] | None, vars_: str | None) -> dict[str, str]:
    """``--vars k1=v1,k2=v2`` and ``--var NAME=VALUE`` (winning), each name one a
    reference can use (every other named)."""
    items = [p for p in (vars_ or "").split(",") if p]
    given = (
        ("--vars item", parse_assignments(items, "--vars item")),
        ("--var", parse_assignments(var or [], "--var")),
    )
    wrong = [
        ConfigError(
            f"{what} {name!r} is not a variable name: no $reference can use it",
            hint="a variable name is a letter, then letters, digits or _",
        )
        for what, found in given
        for name in found
        if not VARIABLE_NAME.fullmatch(name)
    ]
    if wrong:
        raise wrong[0] if len(wrong) == 1 else ConfigErrors(wrong)
    return {**given[0][1], **given[1][1]}


def _load(
    configs: list[Path],
    var: list[str] | None,
    vars_: str | None,
    dialect: str | None,
    allow_shell: bool,
    input_: list[str] | None,
    source: str | None,
    pipeline: str | None,
    plugin: list[str] | None,
    for_run: bool,
) -> Suite:
    """The suite as ``assay check`` (``for_run``: every refusal ``run`` would make before
    Spark starts, so both give the same exit code) and ``assay explain`` (a sparquet
    file without ``--source`` is explained over a placeholder) load it."""
    from assay import api

    return api.load(
        configs,
        vars=_variables(var, vars_),
        dialect=dialect,
        allow_shell=allow_shell,
        inputs=parse_assignments(input_ or [], "--input"),
        source=source,
        pipeline=pipeline,
        plugins=plugin or [],
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
    plan_timeout: opt.PlanTimeout = "2h",
    conf: opt.ServerConf = None,
    progress: opt.Progress = True,
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
        from assay import api
        from assay.executor.session import quiet_pyspark_logging
        from assay.report.jsonl import JsonLinesSink

        stdout = JsonLinesSink()

        def on_event(event) -> None:  # type: ignore[no-untyped-def]
            stdout(event)
            said_error(event, debug)

        options = {
            "exit_error_on_fail": _bool_option(exit_error_on_fail, "--exitErrorOnFail", True),
            "email_on_pass": _bool_option(email_on_pass, "--emailOnPass", False),
            "vars": _variables(var, vars_),
            "inputs": parse_assignments(input_ or [], "--input"),
            "server_conf": parse_assignments(conf or [], "--conf"),
            "plan_timeout": parse_duration(plan_timeout, "--plan-timeout"),
        }
        quiet_pyspark_logging()
        result = api.run(
            configs,
            remote=remote,
            dialect=dialect,
            sample_size=sample_size,
            concurrency=concurrency,
            allow_shell=allow_shell,
            source=source,
            pipeline=pipeline,
            plugins=plugin or [],
            json_report=str(json_report) if json_report is not None else None,
            html_report=str(html_report) if html_report is not None else None,
            on_event=on_event,
            progress=err if progress else None,
            **options,  # type: ignore[arg-type]
        )
        # Every reason of a non-zero exit goes to stderr, terminal or not (CI logs).
        if result.summary.exit_code != 0:
            err(f"assay: {result.exit_reason}")
        for problem in result.report_problems:
            err(f"error: report: {problem}")
        checks_failed[0] = result.summary.failed > 0
        return result.exit_code

    show_status = exit_error_on_fail is not None or _is_data_validator(configs, dialect)
    code = 3
    try:
        code = guarded(debug, action)
    except typer.Exit as exit_:
        code = exit_.exit_code
        raise
    finally:
        if show_status:
            # data-validator prints this line on stdout; assay keeps stdout for JSON lines.
            ok = code == 0 and not checks_failed[0]
            err(f"{STATUS_PREFIX}{'PASS' if ok else 'FAIL'}")
    raise typer.Exit(code)


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
        suite = _load(
            configs, var, vars_, dialect, allow_shell, input_, source, pipeline, plugin, True
        )
        event = {
            "event": "check",
            "valid": True,
            "files": [str(c) for c in configs],
            "tables": len(suite.tables),
            "rules": sum(len(t.rules) for t in suite.tables),
            "comparisons": len(suite.comparisons),
        }
        if suite.deferred:
            # As data-validator's config check, substitutions with run-time values are not
            # validated: these variables and the checks using them resolve at run time.
            event["unresolved_variables"] = [v.name for v in suite.deferred]
            event["unresolved_rules"] = suite.unresolved_rules
        _out(event)

    guarded(debug, action)


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
    from assay.api import explain_tables

    if format not in ("text", "json"):
        _fail(ConfigError(f"--format must be text or json, not {format!r}"))

    def action() -> None:
        suite = _load(
            configs, var, vars_, dialect, allow_shell, input_, source, pipeline, plugin, False
        )
        if suite.deferred:
            err(
                "note: variables resolved at run time ("
                + ", ".join(v.name for v in suite.deferred)
                + f"): the {suite.unresolved_rules} rules using them are not shown"
            )
        tables = explain_tables(suite)
        for table in tables:
            if format == "json":
                _out(
                    {
                        "event": "plan",
                        "table": table.table,
                        "spark_plans": table.spark_plans,
                        "detail_plan": table.detail_plan,
                        "plan": table.text,
                    }
                )
            else:
                sys.stdout.write(table.text + "\n\n")
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


app.command("report")(report_command)


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
            stdout_closed()
        except typer.Exit as exit_:
            sys.exit(exit_.exit_code)
    except SystemExit as exit_:
        code = exit_.code
        sys.exit(code if isinstance(code, int) else (0 if code is None else 2))


app.command("compare")(compare_command)

"""``assay``: run, check and explain data-quality configs.

Thin by design: parse options, call one core function, map errors to exit codes
(0 passed, 1 a check failed, 2 config or usage error, 3 Spark or environment failure).
stdout carries JSON lines only (``explain --format text`` excepted); everything else
goes to stderr.
"""

from __future__ import annotations

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
    except typer.Exit:
        raise
    except Exception as error:  # noqa: BLE001 - the boundary: never a raw traceback
        if debug:
            traceback.print_exc(file=sys.stderr)
        _err(f"internal error: {type(error).__name__}: {error}")
        _err("  hint: rerun with --debug for the traceback, and report it")
        raise typer.Exit(3) from None


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


def _load(configs: list[Path], variables: dict[str, str], sample_size: int | None = None) -> Suite:
    from assay.config import load_suite

    suite = load_suite(configs, variables=variables)
    if sample_size is not None:
        tables = tuple(dataclasses.replace(t, sample_size=sample_size) for t in suite.tables)
        suite = dataclasses.replace(suite, tables=tables)
    return suite


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
    debug: opt.Debug = False,
) -> None:
    """Run every check; stream one JSON line per result, per table and a summary."""

    def action() -> int:
        suite = _load(configs, _variables(var, vars_), sample_size)
        server_conf = parse_assignments(conf or [], "--conf")
        return _run(suite, remote, server_conf, concurrency, progress)

    raise typer.Exit(_guarded(debug, action))


def _run(
    suite: Suite,
    remote: str | None,
    server_conf: dict[str, str],
    concurrency: int,
    progress: bool | None,
) -> int:
    from assay.executor.run import Progress, run_suite
    from assay.executor.session import open_session, quiet_pyspark_logging
    from assay.report.jsonl import JsonLinesSink

    quiet_pyspark_logging()
    show = sys.stderr.isatty() if progress is None else progress
    reporter = Progress(enabled=show, write=_err)
    reporter.note("assay: starting Spark" if remote is None else "assay: connecting to Spark")
    with open_session(remote, server_conf=server_conf) as handle:
        reporter.note(f"assay: connected to {handle.url}")
        summary = run_suite(
            suite, handle.spark, JsonLinesSink(), concurrency=concurrency, progress=reporter
        )
    return summary.exit_code


@app.command()
def check(
    configs: opt.Configs,
    *,
    var: opt.Var = None,
    vars_: opt.Vars = None,
    debug: opt.Debug = False,
) -> None:
    """Validate configs completely without starting Spark (exit 0 valid, 2 invalid)."""

    def action() -> None:
        suite = _load(configs, _variables(var, vars_))
        _out(
            {
                "event": "check",
                "valid": True,
                "files": [str(c) for c in configs],
                "tables": len(suite.tables),
                "rules": sum(len(t.rules) for t in suite.tables),
            }
        )

    _guarded(debug, action)


@app.command()
def explain(
    configs: opt.Configs,
    *,
    var: opt.Var = None,
    vars_: opt.Vars = None,
    format: opt.Format = "text",
    debug: opt.Debug = False,
) -> None:
    """Print each table's plan and how many Spark plans a run submits (no Spark)."""
    from assay.planner import plan_table
    from assay.planner.render import render_plan

    if format not in ("text", "json"):
        _fail(ConfigError(f"--format must be text or json, not {format!r}"))

    def action() -> None:
        suite = _load(configs, _variables(var, vars_))
        plans = [plan_table(t) for t in suite.tables]
        for plan in plans:
            text = render_plan(plan)
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
            sys.stdout.write(
                f"{len(plans)} tables, {total} Spark plans when every rule passes"
                f" (+1 per table whose row-level rules fail)\n"
            )

    _guarded(debug, action)


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
    except SystemExit as exit_:
        code = exit_.code
        sys.exit(code if isinstance(code, int) else (0 if code is None else 2))

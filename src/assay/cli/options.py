"""Every CLI option, defined once and reused by the commands, and how the command line
becomes the :class:`~assay.options.RunOptions` of a run (:func:`run_options`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from assay.errors import ConfigError, ConfigErrors
from assay.options import RunOptions

Configs = Annotated[
    list[Path],
    typer.Argument(
        help="Config files (YAML or JSON); their tables run together.", show_default=False
    ),
]
Remote = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(
        "--remote",
        "-r",
        envvar="SPARK_REMOTE",
        help="Spark Connect server, sc://host:port[/;params]. Default: an embedded local server.",
        show_default=False,
    ),
]
Var = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--var",
        "-v",
        help="Set a config variable, NAME=VALUE (repeatable); overrides the config's vars.",
        show_default=False,
    ),
]
Vars = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--vars", help="Variables as k1=v1,k2=v2 (data-validator style).", show_default=False
    ),
]
SampleSize = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--sample-size",
        min=0,
        max=1000,
        help="Sample failing rows per failed rule (overrides the config; 0 turns samples off).",
        show_default=False,
    ),
]
Concurrency = Annotated[
    int, typer.Option("--concurrency", min=1, max=64, help="Tables run at the same time.")
]
PlanTimeout = Annotated[
    str,
    typer.Option(
        "--plan-timeout",
        help="Longest one Spark plan may run (30s, 45m, 2h; 0: no bound); past it the plan "
        "is interrupted and its table is an error (exit 3).",
    ),
]
ServerConf = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--conf",
        help="Spark conf KEY=VALUE for the embedded server (repeatable).",
        show_default=False,
    ),
]
KeepServer = Annotated[
    bool,
    typer.Option(
        "--keep-server",
        help="Run on the warm server, starting it first when none runs, and leave it "
        "running for the next runs (`assay server stop` stops it).",
    ),
]
Order = Annotated[
    str,
    typer.Option(
        "--order",
        metavar="finish|config",
        help="Order of the JSON lines: finish (each table's lines as it finishes, streamed) "
        "or config (tables in config order, each table's results in rule order, then the "
        "comparisons; the summary last).",
    ),
]
Progress = Annotated[
    bool,
    typer.Option(
        "--progress/--quiet",
        " /--no-progress",
        " /-q",
        help="Progress lines on stderr (a table started, each plan submitted, its results "
        "and time), terminal or not, so a CI log shows where a run is; --quiet: none.",
    ),
]
Format = Annotated[
    str, typer.Option("--format", help="text (for people) or json (one JSON line per table).")
]
Passes = Annotated[
    bool, typer.Option("--passes", help="Also print the planner's passes, in the order they run.")
]
Debug = Annotated[
    bool, typer.Option("--debug", envvar="ASSAY_DEBUG", help="Show tracebacks of internal errors.")
]

# --- dialects (docs/dialects.md) -------------------------------------------------------------

Dialect = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--dialect",
        help="Force the config format: native, data-validator, metorikku or sparquet "
        "(default: recognised per file by its shape).",
        show_default=False,
    ),
]
AllowShell = Annotated[
    bool,
    typer.Option(
        "--allow-shell",
        help="Let data-validator 'shell' variables and 'pipe' outputs run shell commands "
        "(the config is then code: only for configs you trust).",
    ),
]
Input = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--input",
        help="Metorikku input table NAME=SOURCE, SOURCE a catalog table or a path with a "
        "known extension (repeatable).",
        show_default=False,
    ),
]
Source = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--source",
        help="The table a sparquet validations file checks: a catalog table or a path.",
        show_default=False,
    ),
]
Pipeline = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--pipeline",
        help="sparquet pipeline name (report column 'pipeline'; default: the file's 'name', "
        "else its file name).",
        show_default=False,
    ),
]
Plugin = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--plugin",
        help="Import MODULE first: it registers custom rule types (repeatable).",
        show_default=False,
    ),
]
ExitErrorOnFail = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--exitErrorOnFail",
        metavar="true|false",
        help="data-validator: with false, failed checks exit 0 (config and Spark errors "
        "still exit 2 and 3). Prints DATA_VALIDATOR_STATUS=PASS|FAIL on stderr.",
        show_default=False,
    ),
]
EmailOnPass = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--emailOnPass",
        metavar="true|false",
        help="data-validator: send the email report even when every check passed.",
        show_default=False,
    ),
]
JsonReport = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--jsonReport",
        help="Also write the run's events as one JSON document to FILE (atomically).",
        show_default=False,
    ),
]
HtmlReport = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--htmlReport",
        help="Also write a self-contained HTML report to FILE (atomically).",
        show_default=False,
    ),
]
JunitReport = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--junit",
        help="Also write a JUnit XML report to FILE (atomically): a test suite per table "
        "and comparison, a test case per rule.",
        show_default=False,
    ),
]
OpenLineage = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--openlineage",
        metavar="FILE",
        help="Write the OpenLineage run events to FILE (JSON lines, atomically): one per table "
        "and comparison, with its data-quality assertions and metrics.",
        show_default=False,
    ),
]
OpenLineageUrl = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--openlineage-url",
        metavar="URL",
        help="POST the OpenLineage run events to this server (URL/api/v1/lineage, as Marquez "
        "and DataHub take them). Default: $OPENLINEAGE_URL; $OPENLINEAGE_API_KEY is sent as a "
        "Bearer token.",
        show_default=False,
    ),
]
OpenLineageNamespace = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--openlineage-namespace",
        metavar="NAMESPACE",
        help="The OpenLineage jobs' namespace. Default: $OPENLINEAGE_NAMESPACE, else assay.",
        show_default=False,
    ),
]


Metrics = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--metrics",
        help="A metrics store file (JSON lines): append every measured value to it and read "
        "the history of rules with change or anomaly from it (overrides the config's "
        "metrics). See docs/monitoring.md.",
        show_default=False,
    ),
]
MetricsTable = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--metrics-table",
        metavar="NAME",
        help="A metrics store table of the Spark catalog (created when missing), instead "
        "of a file.",
        show_default=False,
    ),
]
Tag = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--tag",
        metavar="NAME=VALUE",
        help="Store the run's values with this tag, and judge rules over time against runs "
        "with the same tags (repeatable).",
        show_default=False,
    ),
]
RunTime = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--run-time",
        metavar="ISO-8601",
        help="The time the run's values are stored under (default: now), for backfills.",
        show_default=False,
    ),
]


def parse_assignments(items: Iterable[str], what: str) -> dict[str, str]:
    """``["a=1", "b=x=y"]`` -> ``{"a": "1", "b": "x=y"}``; a missing ``=`` is a usage error."""
    found: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{what} {item!r} must look like NAME=VALUE")
        found[name.strip()] = value
    return found


def parse_duration(text: str, what: str) -> float | None:
    """``"90s"``, ``"45m"``, ``"2h"``, ``"1.5"`` (seconds) -> seconds; ``"0"`` -> None (no
    bound); anything else is a usage error.

    >>> parse_duration("2h", "--plan-timeout"), parse_duration("0", "--plan-timeout")
    (7200.0, None)
    """
    from assay.grammar.transformers import SECONDS_PER_UNIT

    body = text.strip().lower()
    unit = SECONDS_PER_UNIT.get(body[-1:], None) if body else None
    number = body[:-1] if unit is not None else body
    try:
        seconds = float(number) * (unit or 1)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise ConfigError(f"{what} {text!r} must be a duration such as 30s, 45m or 2h")
    return seconds or None


VARIABLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""A name ``$name`` and ``${name}`` can refer to: a letter, then letters, digits or ``_``."""


def variables(var: Iterable[str] | None, vars_: str | None) -> dict[str, str]:
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


def bool_option(value: str | None, name: str, default: bool) -> bool:
    """``--exitErrorOnFail true|false`` (data-validator's spelling); not given: ``default``."""
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise ConfigError(f"{name} must be true or false, not {value!r}")
    return lowered == "true"


def _order(given: str) -> str:
    from assay.api.ordering import order_of

    return order_of(given, "--order")


def _progress_writer(progress: bool) -> Callable[[str], None] | None:
    from assay.cli.console import err

    return err if progress else None


FROM_COMMAND_LINE: dict[str, tuple[tuple[str, ...], Callable[..., Any]]] = {
    "vars": (("var", "vars_"), variables),
    "inputs": (("input_",), lambda given: parse_assignments(given or [], "--input")),
    "plugins": (("plugin",), lambda given: tuple(given or ())),
    "exit_error_on_fail": (
        ("exit_error_on_fail",),
        lambda given: bool_option(given, "--exitErrorOnFail", True),
    ),
    "server_conf": (("conf",), lambda given: parse_assignments(given or [], "--conf")),
    "plan_timeout": (("plan_timeout",), lambda given: parse_duration(given, "--plan-timeout")),
    "json_report": (("json_report",), lambda given: None if given is None else str(given)),
    "html_report": (("html_report",), lambda given: None if given is None else str(given)),
    "junit_report": (("junit_report",), lambda given: None if given is None else str(given)),
    "openlineage": (("openlineage",), lambda given: None if given is None else str(given)),
    "email_on_pass": (
        ("email_on_pass",),
        lambda given: bool_option(given, "--emailOnPass", False),
    ),
    "progress": (("progress",), _progress_writer),
    "order": (("order",), _order),
    "metrics": (("metrics",), lambda given: None if given is None else str(given)),
    "tags": (("tag",), lambda given: parse_assignments(given or [], "--tag")),
}
"""The fields of :class:`RunOptions` the command line gives through a conversion: the
typer parameters each reads (by their Python names) and how. Every other field a command
has an option for is that option's value as parsed (``--remote``, ``--dialect``,
``--sample-size``, ``--concurrency``, ``--allow-shell``, ``--source``, ``--pipeline``,
``--openlineage-url``, ``--openlineage-namespace``)."""


def run_options(params: Mapping[str, Any], **given: Any) -> RunOptions:
    """The options of a run from a command's parsed parameters (click's ``ctx.params``:
    each value by its parameter's name), in field order; a field the command has no option
    for keeps its default, or takes its value from ``given`` (``on_event``).

    Raises:
        ConfigError: an option's value is wrong (the first one, in field order).
        ConfigErrors: several ``--var`` / ``--vars`` names no reference can use.
    """
    found: dict[str, Any] = {}
    for field in dataclasses.fields(RunOptions):
        names, convert = FROM_COMMAND_LINE.get(field.name, ((field.name,), _as_given))
        if any(name in params for name in names):
            found[field.name] = convert(*(params.get(name) for name in names))
    return RunOptions(**{**found, **given})


def _as_given(value: Any) -> Any:
    return value

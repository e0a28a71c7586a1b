"""What a run takes, declared once: :class:`RunOptions`.

Each field of :class:`RunOptions` is an option of a run, and its declaration
(:func:`option`) says everything else about it: its command-line flags, their help, the
commands that take it, the Python functions that take it as a keyword (``assay.run``,
``assay.load``) and, when the planner reads it, the ``PlannerOptions`` field it sets.
From these declarations are generated the typer parameters of ``assay run``, ``check``
and ``explain`` (and the annotations the other commands' parameters use:
``assay.cli.options``), the keywords of ``assay.run``, ``assay.load`` and
``assay.explain`` (:func:`keywords`), the conversion of a command line into options
(``assay.cli.options.run_options``) and the planner's options
(``assay.planner.cost.planner_options``). Adding an option is adding a field here
(docs/architecture.md#how-to-add-a-run-option).

The options go down as one object: to the loader (``assay.dialects.base.LoadOptions`` is
these options and ``for_run``), the session, the executor and the reports.

This module imports nothing of the project (nor pyspark), so every layer can import it.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from assay.report.events import Event

PLAN_TIMEOUT = 2 * 3600.0
"""Seconds one Spark plan may run by default (``--plan-timeout 2h``); the executor's
``DEFAULT_PLAN_TIMEOUT`` (a test checks they are one number)."""

F = TypeVar("F", bound=Callable[..., Any])
Group = Literal["loading", "running", "watching", "reporting"]


@dataclass(frozen=True)
class Flag:
    """One command-line option: its names as click spells them (``"--remote", "-r"``; a
    switch's pair ``"--progress/--quiet"``), its help, and the name of the typer
    parameter that holds its value (``param``, the field's name when empty)."""

    names: tuple[str, ...]
    help: str
    param: str = ""
    metavar: str | None = None
    envvar: str | None = None
    bounds: tuple[int, int] | None = None


@dataclass(frozen=True)
class Declared:
    """What a field of :class:`RunOptions` is beyond its value.

    ``flags``: its command-line options (none: only Python callers set it); ``kind``: how
    their values become the field's (the names of ``assay.cli.options.KINDS``: ``text``,
    ``count``, ``switch``, ``file``, ``names``, ``assignments``, ``variables``,
    ``duration``, ``true_false``, ``order``, ``progress``); ``commands``: the commands
    that take it (``run``, ``check`` and ``explain`` get it generated; the others name
    it in their signature); ``api``: the functions that take it as a keyword
    (``run``: ``assay.run``, ``load``: ``assay.load``); ``group``: the part of a run it
    is about (the help panel); ``planner``: the field of ``PlannerOptions`` it sets.
    """

    group: Group
    flags: tuple[Flag, ...] = ()
    kind: str = "text"
    commands: frozenset[str] = frozenset({"run"})
    api: frozenset[str] = frozenset({"run"})
    planner: str | None = None


DECLARED = "assay.option"
"""The key of a field's :class:`Declared` in its ``metadata``."""

LOADING = frozenset({"run", "check", "explain"})
"""The commands that load a config: every loading option is theirs."""
BINDING = (*sorted(LOADING), "convert")
"""And ``assay convert``, which loads as ``assay check`` does: the options binding files."""


def option(
    default: Any = MISSING,
    *,
    factory: Callable[[], Any] | Any = MISSING,
    group: Group,
    flags: Iterable[Flag] = (),
    kind: str = "text",
    commands: Iterable[str] = ("run",),
    api: Iterable[str] = ("run",),
    planner: str | None = None,
) -> Any:
    """A field of :class:`RunOptions` (or of a subclass) with its declaration.
    ``assay.explain`` takes what ``assay.load`` takes; an option the planner reads is also
    ``explain``'s (the command and the function), so the plan explained is the plan run."""
    planned = {"explain"} if planner is not None else set()
    explained = {"explain"} if planner is not None or "load" in api else set()
    commands, api = frozenset(commands) | planned, frozenset(api) | explained
    declared = Declared(group, tuple(flags), kind, commands, api, planner)
    return field(default=default, default_factory=factory, metadata={DECLARED: declared})


def declared(f: dataclasses.Field[Any]) -> Declared | None:
    """The declaration of a field (None: a field that is not an option, ``for_run``)."""
    return f.metadata.get(DECLARED)


def declarations(cls: type[RunOptions]) -> list[tuple[dataclasses.Field[Any], Declared]]:
    """The options of ``cls`` and their declarations, in field order (the order of
    ``assay run --help``)."""
    found = [(f, declared(f)) for f in dataclasses.fields(cls)]
    return [(f, d) for f, d in found if d is not None]


def _flag(*names: str, help: str, **more: Any) -> Flag:  # noqa: A002 - click's word
    return Flag(tuple(names), help, **more)


@dataclass(frozen=True)
class RunOptions:
    """The options of one run, by the names of ``assay.run``'s keywords; each field's
    command-line options and help are in its declaration (``assay run --help``).

    Loading (``assay.load`` takes these too): ``vars`` fill ``$var`` references;
    ``sample_size`` overrides every table's; ``dialect`` forces the config format;
    ``allow_shell`` lets data-validator ``shell`` variables and ``pipe`` outputs run;
    ``inputs`` are Metorikku input tables, name -> catalog table or path; ``source`` is the
    table a sparquet validations file checks and ``pipeline`` its pipeline name;
    ``server`` the data contract's server (by name) whose data is checked;
    ``plugins`` are modules imported first; ``exit_error_on_fail=False`` lets failed
    checks exit 0.

    Running: ``remote`` is the Spark Connect server (None: ``$SPARK_REMOTE``, else the warm
    server, else an embedded server started with ``server_conf``); ``keep_server``
    starts a warm server when none runs and leaves it running after the run
    (``assay server``); ``concurrency`` tables run at once; ``plan_timeout`` bounds one
    Spark plan in seconds (None: no bound); ``order`` is the order the events are
    streamed in: ``finish`` (each table's as it finishes) or ``config`` (tables, then
    comparisons, in config order; ``assay.api.ordering``).

    Watching over time (docs/monitoring.md): ``metrics`` is a JSON-lines file and
    ``metrics_table`` a catalog table the run appends its measured values to and reads its
    rules' history from (either overrides the config's ``metrics``); ``tags`` are stored
    with the values and select the history (runs with the same tags); ``run_time`` (ISO
    8601) is the time the values are stored under (default: now); ``full``: incremental
    tables scan every partition, their states rebuilt (docs/incremental.md).

    Reporting: ``json_report``, ``html_report`` and ``junit_report`` are files written
    after the run; ``openlineage`` a file of OpenLineage events and ``openlineage_url``
    (None: ``$OPENLINEAGE_URL``) the server they are POSTed to, their jobs in
    ``openlineage_namespace`` (None: ``$OPENLINEAGE_NAMESPACE``, else ``assay``);
    ``email_on_pass`` sends the config's email report when every check passed;
    ``on_event`` gets each event as it is streamed, ``progress`` each progress line
    (``--progress``: the CLI's stderr).

    The mappings are copied (None is empty) and ``plugins`` is a tuple, so an options
    object never changes after it is built.
    """

    remote: str | None = option(
        None,
        group="running",
        flags=[_flag(
            "--remote", "-r", envvar="SPARK_REMOTE",
            help="Spark Connect server, sc://host:port[/;params]. Default: an embedded local "
            "server.",
        )],
        commands=("run", "compare", "profile", "suggest", "history", "report"),
    )  # fmt: skip
    vars: Mapping[str, str] = option(
        factory=dict,
        group="loading",
        flags=[
            _flag("--var", "-v", param="var",
                  help="Set a config variable, NAME=VALUE (repeatable); overrides the "
                  "config's vars."),
            _flag("--vars", param="vars_", help="Variables as k1=v1,k2=v2 (data-validator style)."),
        ],
        kind="variables",
        commands=(*BINDING, "history"),
        api=("run", "load"),
    )  # fmt: skip
    sample_size: int | None = option(
        None,
        group="loading",
        flags=[_flag(
            "--sample-size", bounds=(0, 1000),
            help="Sample failing rows per failed rule (overrides the config; 0 turns samples "
            "off).",
        )],
        kind="count",
        commands=("run", "compare"),
        api=("run", "load"),
    )  # fmt: skip
    concurrency: int = option(
        4,
        group="running",
        flags=[_flag("--concurrency", bounds=(1, 64), help="Tables run at the same time.")],
        kind="count",
    )
    plan_timeout: float | None = option(
        PLAN_TIMEOUT,
        group="running",
        flags=[_flag(
            "--plan-timeout",
            help="Longest one Spark plan may run (30s, 45m, 2h; 0: no bound); past it the plan "
            "is interrupted and its table is an error (exit 3).",
        )],
        kind="duration",
    )  # fmt: skip
    server_conf: Mapping[str, str] = option(
        factory=dict,
        group="running",
        flags=[_flag(
            "--conf", param="conf",
            help="Spark conf KEY=VALUE for the embedded server (repeatable).",
        )],
        kind="assignments",
        commands=("run", "compare", "profile", "suggest", "server start"),
    )  # fmt: skip
    keep_server: bool = option(
        False,
        group="running",
        flags=[_flag(
            "--keep-server",
            help="Run on the warm server, starting it first when none runs, and leave it "
            "running for the next runs (`assay server stop` stops it).",
        )],
        kind="switch",
    )  # fmt: skip
    progress: Callable[[str], None] | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--progress/--quiet", " /--no-progress", " /-q",
            help="Progress lines on stderr (a table started, each plan submitted, its results "
            "and time), terminal or not, so a CI log shows where a run is; --quiet: none.",
        )],
        kind="progress",
    )  # fmt: skip
    order: Literal["finish", "config"] = option(
        "finish",
        group="running",
        flags=[_flag(
            "--order", metavar="finish|config",
            help="Order of the JSON lines: finish (each table's lines as it finishes, "
            "streamed) or config (tables in config order, each table's results in rule "
            "order, then the comparisons; the summary last).",
        )],
        kind="order",
    )  # fmt: skip
    dialect: str | None = option(
        None,
        group="loading",
        flags=[_flag(
            "--dialect",
            help="Force the config format: native, data-validator, metorikku or sparquet "
            "(default: recognised per file by its shape).",
        )],
        commands=BINDING,
        api=("run", "load"),
    )  # fmt: skip
    allow_shell: bool = option(
        False,
        group="loading",
        flags=[_flag(
            "--allow-shell",
            help="Let data-validator 'shell' variables and 'pipe' outputs run shell commands "
            "(the config is then code: only for configs you trust).",
        )],
        kind="switch",
        commands=BINDING,
        api=("run", "load"),
    )  # fmt: skip
    inputs: Mapping[str, str] = option(
        factory=dict,
        group="loading",
        flags=[_flag(
            "--input", param="input_",
            help="Metorikku input table NAME=SOURCE, SOURCE a catalog table or a path with a "
            "known extension (repeatable).",
        )],
        kind="assignments",
        commands=BINDING,
        api=("run", "load"),
    )  # fmt: skip
    source: str | None = option(
        None, group="loading", commands=BINDING, api=("run", "load"), flags=[_flag(
            "--source", help="The table a sparquet validations file checks: a catalog table "
            "or a path.")])  # fmt: skip
    pipeline: str | None = option(
        None, group="loading", commands=BINDING, api=("run", "load"), flags=[_flag(
            "--pipeline", help="sparquet pipeline name (report column 'pipeline'; default: "
            "the file's 'name', else its file name).")])  # fmt: skip
    server: str | None = option(
        None, group="loading", commands=BINDING, api=("run", "load"), flags=[_flag(
            "--server", help="The data contract's server whose data is checked, by its name "
            "in the contract's 'servers' (default: the first).")])  # fmt: skip
    plugins: tuple[str, ...] = option(
        (),
        group="loading",
        flags=[_flag(
            "--plugin", param="plugin",
            help="Import MODULE first: it registers custom rule types (repeatable).",
        )],
        kind="names",
        commands=BINDING,
        api=("run", "load"),
    )  # fmt: skip
    exit_error_on_fail: bool = option(
        True,
        group="loading",
        flags=[_flag(
            "--exitErrorOnFail", metavar="true|false",
            help="data-validator: with false, failed checks exit 0 (config and Spark errors "
            "still exit 2 and 3). Prints DATA_VALIDATOR_STATUS=PASS|FAIL on stderr.",
        )],
        kind="true_false",
        api=("run", "load"),
    )  # fmt: skip
    email_on_pass: bool = option(
        False,
        group="reporting",
        flags=[_flag(
            "--emailOnPass", metavar="true|false",
            help="data-validator: send the email report even when every check passed.",
        )],
        kind="true_false",
    )  # fmt: skip
    json_report: str | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--jsonReport",
            help="Also write the run's events as one JSON document to FILE (atomically).",
        )],
        kind="file",
    )  # fmt: skip
    html_report: str | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--htmlReport", help="Also write a self-contained HTML report to FILE (atomically)."
        )],
        kind="file",
    )  # fmt: skip
    junit_report: str | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--junit",
            help="Also write a JUnit XML report to FILE (atomically): a test suite per table "
            "and comparison, a test case per rule.",
        )],
        kind="file",
    )  # fmt: skip
    metrics: str | None = option(
        None,
        group="watching",
        flags=[_flag(
            "--metrics",
            help="A metrics store file (JSON lines): append every measured value to it and "
            "read the history of rules with change or anomaly from it (overrides the "
            "config's metrics). See docs/monitoring.md.",
        )],
        kind="file",
        commands=(*LOADING, "history"),
    )  # fmt: skip
    metrics_table: str | None = option(
        None,
        group="watching",
        flags=[_flag(
            "--metrics-table", metavar="NAME",
            help="A metrics store table of the Spark catalog (created when missing), instead "
            "of a file.",
        )],
        commands=(*LOADING, "history"),
    )  # fmt: skip
    tags: Mapping[str, str] = option(
        factory=dict,
        group="watching",
        flags=[_flag(
            "--tag", param="tag", metavar="NAME=VALUE",
            help="Store the run's values with this tag, and judge rules over time against "
            "runs with the same tags (repeatable).",
        )],
        kind="assignments",
        commands=("run", "history"),
    )  # fmt: skip
    run_time: str | None = option(
        None,
        group="watching",
        flags=[_flag(
            "--run-time", metavar="ISO-8601",
            help="The time the run's values are stored under (default: now), for backfills.",
        )],
    )  # fmt: skip
    full: bool = option(False, group="watching", kind="switch", flags=[_flag("--full", help=(
        "Incremental tables scan every partition, their states rebuilt."))])  # fmt: skip
    openlineage: str | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--openlineage", metavar="FILE",
            help="Write the OpenLineage run events to FILE (JSON lines, atomically): one per "
            "table and comparison, with its data-quality assertions and metrics.",
        )],
        kind="file",
        commands=("run", "report"),
    )  # fmt: skip
    openlineage_url: str | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--openlineage-url", metavar="URL",
            help="POST the OpenLineage run events to this server (URL/api/v1/lineage, as "
            "Marquez and DataHub take them). Default: $OPENLINEAGE_URL; $OPENLINEAGE_API_KEY "
            "is sent as a Bearer token.",
        )],
        commands=("run", "report"),
    )  # fmt: skip
    openlineage_namespace: str | None = option(
        None,
        group="reporting",
        flags=[_flag(
            "--openlineage-namespace", metavar="NAMESPACE",
            help="The OpenLineage jobs' namespace. Default: $OPENLINEAGE_NAMESPACE, else "
            "assay.",
        )],
        commands=("run", "report"),
    )  # fmt: skip
    on_event: Callable[[Event], None] | None = option(None, group="reporting", commands=())

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if f.default_factory is dict:  # a mapping: copied, None is empty
                object.__setattr__(self, f.name, dict(getattr(self, f.name) or {}))
            elif isinstance(f.default, tuple):  # a list of names: a tuple
                object.__setattr__(self, f.name, tuple(getattr(self, f.name) or ()))

    def with_vars(self, extra: Mapping[str, str]) -> RunOptions:
        """These options with ``extra`` variables added (winning): the values of deferred
        variables once the session has resolved them."""
        return dataclasses.replace(self, vars={**self.vars, **extra}) if extra else self


# --- the keywords of the Python functions ------------------------------------------------


def keywords(api: str, cls: type[RunOptions] = RunOptions) -> list[inspect.Parameter]:
    """The keyword parameters of the options the function ``api`` takes (``run``:
    ``assay.run``, ``load``: ``assay.load``, ``explain``: ``assay.explain``), in field
    order; a mapping's default is None (empty)."""
    found = []
    for f, d in declarations(cls):
        if api in d.api:
            mapping = f.default_factory is dict
            default = None if mapping else f.default
            annotation = f"{f.type} | None" if mapping else f.type
            found.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                           default=default, annotation=annotation))  # fmt: skip
    return found


def takes_options(api: str, cls: type[RunOptions] = RunOptions) -> Callable[[F], F]:
    """Give a function of ``**options`` the signature its callers see: its own parameters
    with the options ``api`` takes (:func:`keywords`) after its keyword ``spark`` or
    before its keyword ``for_run``."""

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        at = next((i for i, p in enumerate(own) if p.name == "for_run"), len(own))
        function.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*own[:at], *keywords(api, cls), *own[at:]]
        )
        return function

    return decorate


def checked(function: Callable[..., Any], options: Mapping[str, Any]) -> Mapping[str, Any]:
    """``options``, the keywords a call of ``function`` (a :func:`takes_options` one) gave
    its ``**options``; one it does not take is the TypeError Python raises for one."""
    parameters = inspect.signature(function).parameters
    for name in options:
        if name not in parameters or parameters[name].kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{function.__name__}() got an unexpected keyword argument {name!r}")
    return options

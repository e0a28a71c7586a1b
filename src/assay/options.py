"""What a run takes, declared once: :class:`RunOptions`.

The CLI builds one from its command line (``assay.cli.options.run_options``),
``assay.run(config, **keywords)`` builds one from its keywords, and it goes down as it is:
to the loader (``assay.dialects.base.LoadOptions`` is these options and ``for_run``), the
session, the executor and the reports. Adding an option is adding a field here, a keyword
of ``assay.run`` and, when the command line sets it, a typer option in
``assay.cli.options``; ``tests/api/test_options.py`` fails until all of them agree.

This module imports nothing of the project (nor pyspark), so every layer can import it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from assay.report.events import Event

PLAN_TIMEOUT = 2 * 3600.0
"""Seconds one Spark plan may run by default (``--plan-timeout 2h``); the executor's
``DEFAULT_PLAN_TIMEOUT`` (a test checks they are one number)."""


@dataclass(frozen=True)
class RunOptions:
    """The options of one run, by the names of ``assay.run``'s keywords (the command-line
    option of each in brackets).

    Loading: ``vars`` (``--var``, ``--vars``) fill ``$var`` references; ``dialect``
    (``--dialect``) forces the config format; ``sample_size`` (``--sample-size``) overrides
    every table's; ``allow_shell`` (``--allow-shell``) lets data-validator ``shell``
    variables and ``pipe`` outputs run; ``inputs`` (``--input``) are Metorikku input
    tables, name -> catalog table or path; ``source`` (``--source``) is the table a
    sparquet validations file checks and ``pipeline`` (``--pipeline``) its pipeline name;
    ``plugins`` (``--plugin``) are modules imported first; ``exit_error_on_fail=False``
    (``--exitErrorOnFail false``) lets failed checks exit 0.

    Running: ``remote`` (``--remote``) is the Spark Connect server (None: ``$SPARK_REMOTE``,
    else the warm server, else an embedded server started with ``server_conf``,
    ``--conf``); ``keep_server`` (``--keep-server``) starts a warm server when none runs
    and leaves it running after the run (``assay server``); ``concurrency``
    (``--concurrency``) tables run at once; ``plan_timeout`` (``--plan-timeout``) bounds
    one Spark plan in seconds (None: no bound); ``order`` (``--order``) is the order the
    events are streamed in: ``finish`` (each table's as it finishes) or ``config``
    (tables, then comparisons, in config order; ``assay.api.ordering``).

    Watching over time (docs/monitoring.md): ``metrics`` (``--metrics``) is a JSON-lines
    file and ``metrics_table`` (``--metrics-table``) a catalog table the run appends its
    measured values to and reads its rules' history from (either overrides the config's
    ``metrics``); ``tags`` (``--tag``) are stored with the values and select the history
    (runs with the same tags); ``run_time`` (``--run-time``, ISO 8601) is the time the
    values are stored under (default: now).

    Reporting: ``json_report``, ``html_report`` and ``junit_report`` (``--jsonReport``,
    ``--htmlReport``, ``--junit``) are files written after the run; ``openlineage``
    (``--openlineage``) a file of OpenLineage events and ``openlineage_url``
    (``--openlineage-url``; None: ``$OPENLINEAGE_URL``) the server they are POSTed to,
    their jobs in ``openlineage_namespace`` (``--openlineage-namespace``; None:
    ``$OPENLINEAGE_NAMESPACE``, else ``assay``); ``email_on_pass``
    (``--emailOnPass``) sends the config's email report when every check passed;
    ``on_event`` gets each event as it is streamed, ``progress`` each progress line
    (``--progress``: the CLI's stderr).

    The mappings are copied (None is empty) and ``plugins`` is a tuple, so an options
    object never changes after it is built.
    """

    vars: Mapping[str, str] = field(default_factory=dict)
    dialect: str | None = None
    sample_size: int | None = None
    allow_shell: bool = False
    inputs: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None
    pipeline: str | None = None
    plugins: tuple[str, ...] = ()
    exit_error_on_fail: bool = True
    remote: str | None = None
    server_conf: Mapping[str, str] = field(default_factory=dict)
    keep_server: bool = False
    concurrency: int = 4
    plan_timeout: float | None = PLAN_TIMEOUT
    order: Literal["finish", "config"] = "finish"
    metrics: str | None = None
    metrics_table: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    run_time: str | None = None
    json_report: str | None = None
    html_report: str | None = None
    junit_report: str | None = None
    openlineage: str | None = None
    openlineage_url: str | None = None
    openlineage_namespace: str | None = None
    email_on_pass: bool = False
    on_event: Callable[[Event], None] | None = None
    progress: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        for name in ("vars", "inputs", "server_conf", "tags"):
            object.__setattr__(self, name, dict(getattr(self, name) or {}))
        object.__setattr__(self, "plugins", tuple(self.plugins or ()))

    def with_vars(self, extra: Mapping[str, str]) -> RunOptions:
        """These options with ``extra`` variables added (winning): the values of deferred
        variables once the session has resolved them."""
        return dataclasses.replace(self, vars={**self.vars, **extra}) if extra else self

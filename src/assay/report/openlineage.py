"""OpenLineage run events of a run (``--openlineage``, ``--openlineage-url``), made from its
events alone (docs/reports.md#openlineage), as Marquez, DataHub and other OpenLineage
consumers read them (spec 2-0-2).

One ``RunEvent`` per table (config order), then one per comparison. A table's event has
one input dataset, the table's source, with two input facets: ``dataQualityAssertions``
(every rule's verdict) and ``dataQualityMetrics`` (the row count, and the column metrics
the rules measured: :mod:`assay.report.openlineage_metrics`). ``eventType`` is
``COMPLETE``, or ``FAIL`` when the table could not be read or written, or a rule could not
be evaluated. The same lines give the same events, byte for byte: run ids are derived
from assay's ``run_id`` (uuid5), the event time from the summary.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import orjson

from assay.report import model
from assay.report.openlineage_http import DEFAULT_NAMESPACE
from assay.report.openlineage_metrics import column_metrics

Event = dict[str, Any]
SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
FACETS = "https://openlineage.io/spec/facets"
SCHEMA_URLS = {
    "dataQualityAssertions": f"{FACETS}/1-1-0/DataQualityAssertionsDatasetFacet.json"
    "#/$defs/DataQualityAssertionsDatasetFacet",
    "dataQualityMetrics": f"{FACETS}/1-0-3/DataQualityMetricsInputDatasetFacet.json"
    "#/$defs/DataQualityMetricsInputDatasetFacet",
    "errorMessage": f"{FACETS}/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
    "jobType": f"{FACETS}/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
}
"""Each facet's ``_schemaURL``: the version of its schema the events are written to."""
PRODUCER = "https://pypi.org/project/spark-assay/"
RUN_IDS = uuid.uuid5(uuid.NAMESPACE_URL, PRODUCER)
"""The namespace of the uuid5 run ids: one table of one assay run is always one id."""
CATALOG = "spark_catalog"
"""The dataset namespace of a catalog table named without its catalog (``db.orders``)."""
DERIVED = "inmemory://"
"""The dataset namespace of rows no store holds as such (a SQL query's, a DataFrame's,
several paths read as one): OpenLineage's name for a temporary dataset."""
OBJECT_STORES = frozenset({"s3", "gs", "abfs", "abfss", "wasb", "wasbs"})
"""URI schemes whose dataset name is the object key (no leading ``/``)."""
_OPTIONS = re.compile(r"(?: [^\s=,]+=\S*)*$")
"""The ``key=value`` options at the end of a path source's line."""


def openlineage_events(events: Sequence[Event], namespace: str = DEFAULT_NAMESPACE) -> list[Event]:
    """The run's OpenLineage events: the tables in config order, then the comparisons."""
    run = model.build(events)
    finished = {e["table"]: e for e in events if e.get("event") == "table"}
    summary = next((e for e in reversed(events) if e.get("event") == "summary"), {})
    common = _Common(namespace, run, summary)
    tables = [_table_event(t, finished.get(t.name, {}), common) for t in run.tables]
    compared = [_comparison_event(e, common) for e in events if e.get("event") == "comparison"]
    return tables + compared


def json_lines(lineage: Sequence[Event]) -> bytes:
    """OpenLineage events as the file ``--openlineage`` writes: one a line."""
    return b"".join(orjson.dumps(e) + b"\n" for e in lineage)


class _Common:
    """What every event of a run shares: its namespace, producer, time and run id."""

    def __init__(self, namespace: str, run: model.Run, summary: Event) -> None:
        self.namespace = namespace
        self.run_id = run.run_id
        self.producer = PRODUCER + (f"{run.assay_version}/" if run.assay_version else "")
        self.time = event_time(summary)

    def facet(self, key: str, **fields: Any) -> Event:
        return {"_producer": self.producer, "_schemaURL": SCHEMA_URLS[key], **fields}

    def event(self, kind: str, name: str, state: str, *, job: str, inputs: list[Event]) -> Event:
        """A ``RunEvent`` of one table (``kind`` ``table``) or comparison."""
        return {
            "eventType": state,
            "eventTime": self.time,
            "producer": self.producer,
            "schemaURL": f"{SPEC}#/$defs/RunEvent",
            "run": {"runId": run_uuid(self.run_id, kind, name)},
            "job": {
                "namespace": self.namespace,
                "name": job,
                "facets": {
                    "jobType": self.facet(
                        "jobType",
                        processingType="BATCH",
                        integration="ASSAY",
                        jobType=kind.upper(),
                    )
                },
            },
            "inputs": inputs,
            "outputs": [],
        }

    def failed(self, event: Event, message: str) -> Event:
        """``event`` as a ``FAIL`` with its reason in an ``errorMessage`` run facet."""
        facet = self.facet("errorMessage", message=message, programmingLanguage="PYTHON")
        return {
            **event,
            "eventType": "FAIL",
            "run": {**event["run"], "facets": {"errorMessage": facet}},
        }


def event_time(summary: Event) -> str:
    """When the run ended (the summary's ``started_at`` + ``elapsed_ms``: the lines carry
    no table's own end), ISO 8601 in UTC; now for a stream cut before its summary.

    >>> event_time({"started_at": "2024-01-31T06:00:00.250+00:00", "elapsed_ms": 1500})
    '2024-01-31T06:00:01.750000+00:00'
    """
    try:
        start = dt.datetime.fromisoformat(summary["started_at"])
        end = start + dt.timedelta(milliseconds=summary.get("elapsed_ms") or 0)
    except (KeyError, TypeError, ValueError):
        end = dt.datetime.now(dt.timezone.utc)
    if end.tzinfo is None:
        end = end.replace(tzinfo=dt.timezone.utc)
    return end.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")


def run_uuid(run_id: str, kind: str, name: str) -> str:
    """The OpenLineage run id of one table (or comparison) of one assay run: a uuid5, so
    sending the same lines twice updates one run rather than adding one.

    >>> run_uuid("3f2a9c1b7d10", "table", "orders") == run_uuid("3f2a9c1b7d10", "table", "orders")
    True
    """
    return str(uuid.uuid5(RUN_IDS, f"{run_id}/{kind}/{name}"))


def job_name(location: Event | None, name: str) -> str:
    """``<config file's stem>.<name>`` (``orders.customers``); the name alone when it has
    no file (a DataFrame given to ``assay.validate``, ``assay compare``).

    >>> job_name({"file": "examples/orders.yaml", "line": 8}, "orders")
    'orders.orders'
    """
    file = (location or {}).get("file")
    return f"{PurePosixPath(file).stem}.{name}" if file else name


def dataset_of(source: str | None, fallback: str) -> tuple[str, str]:
    """The OpenLineage ``(namespace, name)`` of a source line of the events (``parquet
    data/orders.parquet``, ``table db.orders``, ``sql SELECT ...``): a path by its URI
    (OpenLineage's naming: ``file``, ``s3://bucket``...), a catalog table by its catalog,
    rows no store holds as such (SQL, a DataFrame, several paths) as ``inmemory://``
    ``fallback``.

    >>> dataset_of("parquet s3a://lake/orders/", "x"), dataset_of("table db.orders", "x")
    (('s3://lake', 'orders/'), ('spark_catalog', 'db.orders'))
    """
    kind, _, rest = (source or "").partition(" ")
    if kind == "table" and rest:
        parts = rest.split(".")
        return (parts[0], ".".join(parts[1:])) if len(parts) > 2 else (CATALOG, rest)
    paths = _OPTIONS.sub("", rest).split(", ") if kind not in ("sql", "dataframe") else []
    if len(paths) != 1 or not paths[0]:
        return DERIVED, fallback
    return _path_dataset(paths[0])


def _path_dataset(path: str) -> tuple[str, str]:
    parts = urlsplit(path)
    scheme = {"s3a": "s3", "s3n": "s3"}.get(parts.scheme, parts.scheme)
    if len(scheme) <= 1:  # a local path (or a Windows drive letter)
        return "file", path
    if scheme == "file":
        return (f"file://{parts.netloc}" if parts.netloc else "file"), parts.path
    name = parts.path.lstrip("/") if scheme in OBJECT_STORES else parts.path
    return f"{scheme}://{parts.netloc}", name or "/"


# --- tables -------------------------------------------------------------------------------


def _table_event(table: model.Table, finished: Event, common: _Common) -> Event:
    job = job_name(finished.get("location"), table.name)
    namespace, name = dataset_of(table.source, job)
    results = [r.event for r in table.rules]
    checked = common.facet("dataQualityAssertions", assertions=[assertion(r) for r in results])
    facets: Event = {"dataQualityAssertions": checked}
    measured = column_metrics(results)
    if table.row_count is not None or measured:
        facets["dataQualityMetrics"] = common.facet(
            "dataQualityMetrics",
            **({"rowCount": table.row_count} if table.row_count is not None else {}),
            columnMetrics=measured,
        )
    dataset = {"namespace": namespace, "name": name, "inputFacets": facets}
    event = common.event("table", table.name, "COMPLETE", job=job, inputs=[dataset])
    errored = [r for r in table.rules if r.severity == "error"]
    if table.error or errored:
        return common.failed(event, table.error or _not_evaluated(errored))
    return event


def _not_evaluated(errored: Sequence[model.Rule]) -> str:
    first = errored[0]
    more = f" (and {len(errored) - 1} more)" if len(errored) > 1 else ""
    return f"rule {first.index} ({first.name or first.type}) not evaluated: {first.message}{more}"


def assertion(result: Event) -> Event:
    """One rule's verdict as an OpenLineage assertion: ``assertion`` its type, ``success``
    its ``passed`` (false for a rule not evaluated, whose ``description`` says why),
    ``column`` its first column, ``expected`` its threshold, ``actual`` what it
    measured, ``params`` its parameters as written."""
    rule = result.get("rule") or {}
    expect = result.get("expect") or {}
    found: Event = {"assertion": rule.get("type", ""), "success": bool(result.get("passed"))}
    columns = rule.get("columns") or ()
    if columns:
        found["column"] = columns[0]
    if rule.get("name"):
        found["name"] = rule["name"]
    if result.get("severity") == "error":
        found["description"] = str(result.get("message") or "not evaluated")
    elif expect.get("text"):
        found["description"] = expect["text"]
    if result.get("threshold") is not None:
        found["expected"] = str(result["threshold"])
    actual = _actual(result)
    if actual is not None:
        found["actual"] = actual
    params = expect.get("params") or {}
    if rule.get("type") == "sql" and isinstance(params.get("query"), str):
        found["content"], found["contentType"] = params["query"], "sql"
    if params:
        found["params"] = params
    return found


def _actual(result: Event) -> str | None:
    """What the rule measured: a ``group_by`` rule's failing groups in words (``0 of 4
    groups fail``), else its metric's value, else the rows that failed it."""
    groups = model.failing_groups(result)
    if groups:
        return groups
    for key in ("metric_value", "failed_count"):
        value = result.get(key)
        if value is not None:
            return model.cell(value)
    return None


# --- comparisons --------------------------------------------------------------------------

COLUMN_METRICS = frozenset({"mismatched", "mismatch_percent", "null_mismatched", "max_abs_diff"})
"""The comparison metrics whose argument is a column (``mismatch_percent(price)``)."""
_METRIC = re.compile(r"^(?P<metric>\w+)(?:\((?P<arg>.*)\))?$")


def _comparison_event(event: Event, common: _Common) -> Event:
    """A comparison's event: the source, then the target with the checks as assertions
    (a comparison reconciles the target against the source); each its row count."""
    name = str(event.get("comparison", ""))
    job = job_name(event.get("location"), name)
    counts = event.get("counts") or {}
    checks = [_check(c) for c in event.get("checks") or ()]
    inputs = []
    for side in ("source", "target"):
        namespace, dataset = dataset_of(event.get(side), f"{job}.{side}")
        facets: Event = {}
        if side == "target":
            facets["dataQualityAssertions"] = common.facet(
                "dataQualityAssertions", assertions=checks
            )
        rows = counts.get(f"{side}_rows")
        if rows is not None:
            facets["dataQualityMetrics"] = common.facet(
                "dataQualityMetrics", rowCount=rows, columnMetrics={}
            )
        inputs.append({"namespace": namespace, "name": dataset, "inputFacets": facets})
    found = common.event("comparison", name, "COMPLETE", job=job, inputs=inputs)
    if event.get("error") or event.get("severity") == "error":
        return common.failed(found, str(event.get("error") or event.get("message") or "error"))
    return found


def _check(check: Event) -> Event:
    metric = str(check.get("metric", ""))
    match = _METRIC.match(metric)
    found: Event = {
        "assertion": match["metric"] if match else metric,
        "success": bool(check.get("passed")),
    }
    if match and match["arg"] and match["metric"] in COLUMN_METRICS:
        found["column"] = match["arg"]
    found["name"] = metric
    if check.get("message"):
        found["description"] = str(check["message"])
    if check.get("threshold") is not None:
        found["expected"] = str(check["threshold"])
    if check.get("value") is not None:
        found["actual"] = model.cell(check["value"])
    return found

"""The metrics store of a run (docs/monitoring.md): its history read once before any table
is judged, its values and its tables' schemas appended once after.

Two backends behind these two calls: a JSON-lines file on the client
(:mod:`assay.monitoring.files`), and a table of the server's catalog, read by one Spark
plan and appended to by one write. A ``parquet`` (or ``orc``) table store is partitioned
by ``run_id``: a run writes its rows into a partition directory of its own, then adds the
partition to the catalog, so two runs appending at once cannot lose each other's rows (a
plain append to the table shares its ``_temporary`` directory between the two jobs, and
the first to commit removes it; a dynamic partition overwrite is a session setting, which
``insertInto`` reads from the session only). A ``delta`` or ``iceberg`` store is appended
to: those formats commit concurrent appends themselves.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession
from pyspark.sql.connect.window import Window

from assay.errors import SparkFailure
from assay.executor.spark_errors import spark_message
from assay.executor.stages.prepared import Prepared
from assay.ir.monitoring import MetricsStore, Monitoring
from assay.ir.suite import Suite, Table
from assay.monitoring import files
from assay.monitoring.records import (
    COLUMNS,
    NAMES,
    STATE_MEASURE,
    TABLE_RULE,
    parse_time,
    records,
    utc_text,
)
from assay.monitoring.rows import Skipped, checked_row, tally
from assay.monitoring.schemas import SCHEMA_MEASURE, SCHEMA_RULE, Columns, columns_of
from assay.monitoring.series import History, Selection, Wanted, newest, selected, wanted
from assay.monitoring.states import BASELINE, Stored, newest_states
from assay.report.events import RunSummary

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with the parent class; every frame here is a
    # Connect one.
    from pyspark.sql import DataFrame

_RUN_ID = re.compile(r"[A-Za-z0-9_-]+")
PARTITIONED = ("parquet", "orc")
"""Formats a table store is partitioned by run in (the others commit appends themselves)."""


class MetricsStoreFailure(SparkFailure):
    """The metrics store could not be read or appended to (exit 3)."""

    code = "METRICS_STORE_FAILED"


def read_history(spark: SparkSession | None, store: MetricsStore, want: Wanted) -> History:
    """The earlier values ``want`` asks for (:func:`history_read`, its skipped rows aside)."""
    return history_read(spark, store, want)[0]


def history_read(
    spark: SparkSession | None, store: MetricsStore, want: Wanted
) -> tuple[History, Skipped]:
    """The earlier values ``want`` asks for: one pass over a file, or one Spark plan over
    a table (none when no rule is judged over time, or the table does not exist yet);
    and the lines (rows) skipped as not store rows."""
    if not want.runs:
        return {}, Skipped()
    if store.kind == "file":
        return files.read(store.location, want)
    assert spark is not None
    try:
        if not spark.catalog.tableExists(store.location):
            return {}, Skipped()
        rows = _history_frame(spark, store, want).collect()
    except Exception as exc:  # noqa: BLE001 - the store's failure, in Spark's words
        raise MetricsStoreFailure(f"metrics store {store}: {_said(exc)}") from None
    found, skipped = _checked(row.asDict() for row in rows)
    return newest(found, want), skipped


def _checked(rows) -> tuple[list[dict[str, Any]], Skipped]:
    """A table store's rows (``run_time`` read as ``micros``), each checked as a file's
    line is: a row without a value (written by another program) is skipped."""
    found, skips = [], []
    for row in rows:
        micros = row.pop("micros")
        if micros is not None:
            row["run_time"] = dt.datetime.fromtimestamp(micros / 1e6, dt.timezone.utc)
        checked = checked_row(row)
        if isinstance(checked, str):
            skips.append((None, checked))
        else:
            found.append(checked)
    return found, tally(skips)


def _history_frame(spark: SparkSession, store: MetricsStore, want: Wanted):
    """The newest ``runs`` rows of each wanted key: one filter, one window."""
    keys = [f"{t}\u0000{r}\u0000{m}" for t, r, m in sorted(want.keys)]
    key = F.concat_ws("\u0000", F.col("table"), F.col("rule"), F.col("measure"))
    before = int(want.before.timestamp() * 1_000_000)
    kept = (
        key.isin(keys)
        & (F.col("run_id") != F.lit(want.run_id))
        & (F.unix_micros(F.col("run_time")) < F.lit(before))
    )
    for name, value in want.tags:
        kept = kept & (F.element_at(F.col("tags"), F.lit(name)) == F.lit(value))
    # a schema row Spark cannot read as columns takes no place among the newest: the
    # previous good one is read too (the bad one still comes back, skipped and counted)
    listed = F.from_json(F.col("columns"), "array<struct<name:string,type:string>>")
    # no field null: each field's array as long as without its nulls (not exists() with
    # a lambda, whose fresh expression id in every plan made Spark compile new code)
    whole = [F.size(F.array_compact(listed[f])) == F.size(listed) for f in ("name", "type")]
    readable = listed.isNotNull() & whole[0] & whole[1]
    schema = (F.col("rule") == SCHEMA_RULE) & (F.col("measure") == SCHEMA_MEASURE)
    good = F.coalesce(~schema | readable, F.lit(False)).alias("_good")
    newest_first = Window.partitionBy("table", "rule", "measure", "_good").orderBy(
        F.col("run_time").desc()
    )
    newest_rows = F.col("_n") <= F.lit(want.longest)
    for (t, r, m), runs in sorted(want.pinned.items()):  # pinned runs' rows, however old
        pinned = (key == F.lit(f"{t}\u0000{r}\u0000{m}")) & F.col("run_id").isin(sorted(runs))
        newest_rows = newest_rows | pinned
    frame = spark.read.table(store.location)
    state = ["state"] if want.states and "state" in frame.columns else []  # drift's sketches
    return (
        frame.where(kept)
        .withColumn("_good", good)
        .withColumn("_n", F.row_number().over(newest_first))
        .where(newest_rows)
        .select(
            "table",
            "rule",
            "measure",
            "value",
            "run_id",
            "columns",  # a schema row's columns
            *state,
            F.unix_micros(F.col("run_time")).alias("micros"),
        )  # fmt: skip
    )


def append(
    spark: SparkSession | None, store: MetricsStore, rows: Sequence[Mapping[str, Any]]
) -> int:
    """Append the run's rows to the store (created when missing); the rows written."""
    if not rows:
        return 0
    if store.kind == "file":
        try:
            files.append(store.location, rows)
        except files.PartialAppend as e:
            raise MetricsStoreFailure(f"metrics store {store}: {e.strerror}") from None
        except OSError as e:
            raise MetricsStoreFailure(
                f"metrics store {store}: {e.strerror or e}: none of the run's {len(rows)} rows"
                " appended (the file is as it was)"
            ) from None
        return len(rows)
    assert spark is not None
    try:
        order = _ensure_table(spark, store)
        frame = spark.createDataFrame([tuple(r.get(n) for n in NAMES) for r in rows], _schema())
        if store.format in PARTITIONED:
            _write_partition(spark, store, frame, {str(r["run_id"]) for r in rows})
        else:  # by position: in the table's order (a column added since ends it)
            frame.select(*order).write.insertInto(store.location)
    except Exception as exc:  # noqa: BLE001 - the store's failure, in Spark's words
        raise MetricsStoreFailure(f"metrics store {store}: {_said(exc)}") from None
    return len(rows)


def _write_partition(spark: SparkSession, store: MetricsStore, frame, run_ids: set[str]) -> None:
    """Write the run's rows into its own partition directory, then add the partition to
    the catalog: each run's job commits under a path of its own."""
    location = _location(spark, store)
    for run_id in sorted(run_ids):
        if not _RUN_ID.fullmatch(run_id):
            raise ValueError(f"a partition run id is letters, digits, - and _: {run_id!r}")
        part = frame.where(F.col("run_id") == F.lit(run_id)).drop("run_id")
        part.write.mode("error").format(store.format).save(f"{location}/run_id={run_id}")
        spark.sql(
            f"ALTER TABLE {store.location} ADD IF NOT EXISTS PARTITION (run_id = '{run_id}')"
        ).collect()


def _location(spark: SparkSession, store: MetricsStore) -> str:
    """Where the table's files are (its ``Location``)."""
    for row in spark.sql(f"DESCRIBE TABLE EXTENDED {store.location}").collect():
        if row[0] == "Location":
            return str(row[1]).rstrip("/")
    raise ValueError(f"{store.location} has no location: not a file-based table")


def _schema() -> str:
    return ", ".join(f"`{name}` {kind}" for name, kind in COLUMNS)


def _ensure_table(spark: SparkSession, store: MetricsStore) -> list[str]:
    """Create the table when missing, add the columns a store created by an earlier
    version lacks (``ALTER TABLE ADD COLUMNS``: ``state``; docs/monitoring.md#the-store);
    the table's columns in its order."""
    if not spark.catalog.tableExists(store.location):
        partitioned = " PARTITIONED BY (run_id)" if store.format in PARTITIONED else ""
        spark.sql(
            f"CREATE TABLE IF NOT EXISTS {store.location} ({_schema()}) USING {store.format}"
            + partitioned
        ).collect()
    order = spark.read.table(store.location).columns
    missing = [(n, kind) for n, kind in COLUMNS if n not in order]
    if missing:
        added = ", ".join(f"`{n}` {kind}" for n, kind in missing)
        spark.sql(f"ALTER TABLE {store.location} ADD COLUMNS ({added})").collect()
        order = spark.read.table(store.location).columns
    return list(order)


def stored(
    spark: SparkSession | None, store: MetricsStore, selection: Selection
) -> tuple[list[dict], Skipped]:
    """The stored rows ``selection`` asks for (:func:`assay.monitoring.series.selected`):
    one pass over a file, or one Spark plan over a table (none when it does not exist);
    and the lines (rows) skipped as not store rows, as a run's history read skips them."""
    if store.kind == "file":
        found, skipped = files.rows(store.location)
        return selected(found, selection), skipped
    assert spark is not None
    try:
        if not spark.catalog.tableExists(store.location):
            return [], Skipped()
        frame: DataFrame = spark.read.table(store.location)
        for column, values in (("table", selection.tables), ("rule", selection.rules),
                               ("measure", selection.measures)):  # fmt: skip
            if values:
                frame = frame.where(F.col(column).isin(list(values)))
        for name, value in selection.tags:
            frame = frame.where(F.element_at(F.col("tags"), F.lit(name)) == F.lit(value))
        if selection.last:
            newest_first = Window.partitionBy("table", "rule", "measure").orderBy(
                F.col("run_time").desc()
            )
            frame = frame.withColumn("_n", F.row_number().over(newest_first))
            frame = frame.where(F.col("_n") <= F.lit(selection.last)).drop("_n")
        frame = frame.withColumn("micros", F.unix_micros(F.col("run_time"))).drop("run_time")
        rows = [row.asDict() for row in frame.collect()]
    except Exception as exc:  # noqa: BLE001 - the store's failure, in Spark's words
        raise MetricsStoreFailure(f"metrics store {store}: {_said(exc)}") from None
    found, skipped = _checked(rows)
    return selected(found, selection), skipped


def read_all(spark: SparkSession | None, store: MetricsStore):
    """The whole store as a DataFrame of its columns (a file's rows are sent to the
    server)."""
    if store.kind == "table":
        assert spark is not None
        return spark.read.table(store.location)
    assert spark is not None
    found, skipped = files.rows(store.location)
    if skipped:
        warnings.warn(skipped.sentence(store), stacklevel=3)
    rows = [tuple(row.get(name) for name in NAMES) for row in found]
    return spark.createDataFrame(rows, _schema())


def _said(exc: BaseException) -> str:
    return spark_message(exc, max_lines=3).strip() or type(exc).__name__


@dataclass
class Watch:
    """A run's use of its metrics store: the history read when it starts (or why it could
    not be read: the rules judged over time are then errors), its values stored when it
    ends (a failed append exits 3, the verdicts stand)."""

    spark: SparkSession | None = None
    monitoring: Monitoring | None = None
    run_time: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))
    history: History | str = field(default_factory=dict)
    runs_read: int = 0
    skipped: Skipped = field(default_factory=Skipped)
    states: Mapping[str, Stored] | str = field(default_factory=dict)
    """The incremental tables' stored states by name (a text: why they could not be read)."""

    @classmethod
    def start(
        cls,
        spark: SparkSession,
        monitoring: Monitoring | None,
        suite: Suite,
        run_id: str,
        note: Callable[[str], None] = lambda _: None,
    ) -> Watch:
        """Read the history the suite's rules judged over time need (nothing without a
        store)."""
        if monitoring is None:
            return cls()
        run_time = parse_time(monitoring.run_time) if monitoring.run_time else now()
        want = wanted(suite.tables, monitoring, run_id, run_time)
        watch = cls(spark, monitoring, run_time)
        incremental = [t.name for t in suite.tables if t.incremental is not None]
        if incremental:
            try:
                watch.states = read_states(spark, want, monitoring.store, incremental)
            except (MetricsStoreFailure, OSError) as e:
                watch.states = str(e)
                note(f"assay: {e}: the incremental tables scan every partition")
        if not want.runs:
            return watch
        started = time.monotonic()
        try:
            watch.history, watch.skipped = history_read(spark, monitoring.store, want)
        except (MetricsStoreFailure, OSError) as e:
            watch.history = str(e)
            note(f"assay: {e}")
            return watch
        if watch.skipped:
            note(f"assay: warning: {watch.skipped.sentence(monitoring.store)}")
        watch.runs_read = sum(len(points) for points in watch.history.values())
        took = int((time.monotonic() - started) * 1000)
        note(f"assay: history of {len(want.runs)} rules read from {monitoring.store} "
             f"({watch.runs_read} values, {took} ms)")  # fmt: skip
        return watch

    def stored(
        self,
        summary: RunSummary,
        events: Sequence[Mapping[str, Any]],
        server: str | None,
        schemas: Mapping[str, Columns] | None = None,
        states: Sequence[Mapping[str, Any]] = (),
    ) -> RunSummary:
        """The summary once the run's values, the ``schemas`` of its tables and the
        ``states`` of its incremental tables are appended to the store (``metrics``), all
        in one append."""
        if self.monitoring is None:
            return summary
        store = self.monitoring.store
        rows = records(events, self.run_time, server, self.monitoring.tags, schemas,
                       summary.run_id)  # fmt: skip
        common = {"run_time": self.run_time, "server": server, "tags": dict(self.monitoring.tags)}
        rows += [{**common, **state, "run_id": summary.run_id} for state in states]
        said: dict[str, Any] = {"store": str(store), "run_time": utc_text(self.run_time),
                                "rows": 0, "history_runs_read": self.runs_read}  # fmt: skip
        if self.skipped:
            said["skipped"] = self.skipped.to_dict()
        try:
            said["rows"] = append(self.spark, store, rows)
        except MetricsStoreFailure as e:
            said["error"] = str(e)
            reason = f"{summary.exit_reason}; exit 3: {e}" if summary.exit_reason else str(e)
            return dataclasses.replace(summary, metrics=said, exit_code=max(summary.exit_code, 3),
                                       exit_reason=reason)  # fmt: skip
        return dataclasses.replace(summary, metrics=said)


def read_states(
    spark: SparkSession | None, want: Wanted, store: MetricsStore, tables: Sequence[str]
) -> dict[str, Stored]:
    """The stored states of each of ``tables`` among the runs ``want`` matches (this
    run's tags, earlier runs), per partition the newest since the table's newest baseline
    (:func:`~assay.monitoring.states.newest_states`): one pass over a file parsing its
    state lines only, or one Spark plan over a table keeping the newest row of each
    (table, rule, partition) (none when it does not exist, or was written before the
    ``state`` column)."""
    if store.kind == "file":
        found: Any = files.state_lines(store.location, tables)
    else:
        assert spark is not None
        try:
            if not spark.catalog.tableExists(store.location):
                return {}
            frame: DataFrame = spark.read.table(store.location)
            if "state" not in frame.columns:
                return {}
            rows = _states_frame(frame, want, tables).collect()
            found, _ = _checked(row.asDict() for row in rows)
        except Exception as exc:  # noqa: BLE001 - the store's failure, in Spark's words
            raise MetricsStoreFailure(f"metrics store {store}: {_said(exc)}") from None
    matched = (r for r in found if want.matches(r["tags"], r.get("run_id"), r["run_time"]))
    return newest_states(matched, tables)


def _states_frame(frame: DataFrame, want: Wanted, tables: Sequence[str]) -> DataFrame:
    """The state rows of ``tables`` a run reads: of earlier runs carrying its tags, since
    each table's newest baseline, the newest of each (table, rule, partition)."""
    before = int(want.before.timestamp() * 1_000_000)
    kept = (F.col("measure") == F.lit(STATE_MEASURE)) & F.col("table").isin(list(tables))
    kept = kept & (F.col("run_id") != F.lit(want.run_id))
    kept = kept & (F.unix_micros(F.col("run_time")) < F.lit(before)) & F.col("state").isNotNull()
    for name, value in want.tags:
        kept = kept & (F.element_at(F.col("tags"), F.lit(name)) == F.lit(value))
    base = (F.col("rule") == F.lit(TABLE_RULE)) & (F.col("columns") == F.lit(BASELINE))
    order = F.struct(F.col("run_time"), F.col("run_id"))
    baseline = F.max(F.when(base, order)).over(Window.partitionBy("table"))
    newest = Window.partitionBy("table", "rule", "columns").orderBy(order.desc())
    frame = frame.where(kept).withColumn("_base", baseline)
    frame = frame.where(F.col("_base").isNull() | (order >= F.col("_base")))
    frame = frame.withColumn("_n", F.row_number().over(newest)).where(F.col("_n") == 1)
    return frame.withColumn("micros", F.unix_micros(F.col("run_time"))).drop(
        "run_time", "_base", "_n"
    )


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def table_schemas(prepared: Sequence[object], tables: Sequence[Table]) -> dict[str, Columns]:
    """The schema of each table whose source was read (:class:`Prepared`), by name: read
    from its DataFrame's schema, which preparing it fetched and the client keeps (no
    request to the server)."""
    schemas = {}
    for ready, table in zip(prepared, tables, strict=True):
        if isinstance(ready, Prepared):
            fields = ready.df.schema.fields
            schemas[table.name] = columns_of(
                (f.name, f.dataType.simpleString(), f.nullable) for f in fields
            )
    return schemas

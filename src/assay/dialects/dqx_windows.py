"""DQX's dataset checks that flag some rows (databricks-labs-dqx 0.17, ``check_funcs.py``):
the time-window ones, ``is_data_fresh_per_time_window`` and
``has_no_gaps_per_time_window`` (DQX buckets the rows into Spark's fixed ``window`` of
the column and joins each bucket's verdict back to its rows), and ``has_no_outliers``
(bounds of the column's values joined to every row). Each is a SQL rule
(``failed_rows``) returning exactly the rows DQX flags, so its failed count is the
number of rows DQX puts in ``_errors``/``_warnings``.
"""

from __future__ import annotations

from assay.config.node import Node
from assay.dialects.dqx_args import Args, Function, Mapped, quote, takes
from assay.dialects.dqx_dataset import VIEW, plain_columns
from assay.ir.rules import SqlCheck

_EPOCH_1900 = "CAST('1900-01-01 00:00:00' AS TIMESTAMP)"
"""DQX's stand-in for a NULL time, which Spark's ``window`` would drop."""


def _positive(a: Args, key: str, message: str) -> int:
    node = a.get(key)
    if node is None or isinstance(node.value, bool) or not isinstance(node.value, int):
        raise (node or a.node).error(f"DQX: {message}", hint="DQX: InvalidParameterError")
    if node.value <= 0:
        raise node.error(f"DQX: {message}", hint="DQX: InvalidParameterError")
    return node.value


def _no_curr_timestamp(a: Args) -> None:
    node: Node | None = a.get("curr_timestamp")
    if node is not None:
        raise node.error(
            "DQX: curr_timestamp is a Spark Column in DQX, not a config value",
            hint="remove it: the check uses the server's current time",
        )


def _window(sql: str, minutes: int) -> str:
    return f"window({sql}, 'INTERVAL {minutes} MINUTES').start"


def _fresh_per_window(a: Args) -> Mapped:
    """A row of the filter (its time not after now, nor before the lookback) is flagged
    when fewer than ``min_records_per_window`` such rows share its window."""
    t = a.target()
    _no_curr_timestamp(a)
    node = a.get("lookback_windows")
    lookback = None
    if node is not None:
        if isinstance(node.value, bool) or not isinstance(node.value, int) or node.value <= 0:
            raise node.error("DQX: lookback_windows must be a positive integer if provided")
        lookback = node.value
    least = _positive(
        a, "min_records_per_window", "min_records_per_window must be a positive integer"
    )
    minutes = _positive(a, "window_minutes", "window_minutes must be a positive integer")
    keep = ["TRUE"]
    if a.row_filter is not None:
        keep.append(f"({a.row_filter})")
    if lookback is not None:
        seconds = minutes * lookback * 60
        keep.append(f"{t.sql} >= from_unixtime(unix_timestamp(current_timestamp()) - {seconds})")
    keep.append(f"{t.sql} <= current_timestamp()")
    bucket = _window(f"coalesce({t.sql}, {_EPOCH_1900})", minutes)
    rows = f"SELECT *, {bucket} AS _assay_w FROM {VIEW} WHERE {' AND '.join(keep)}"
    counted = f"SELECT *, count(*) OVER (PARTITION BY _assay_w) AS _assay_c FROM ({rows}) AS r"
    query = f"SELECT * FROM ({counted}) AS c WHERE _assay_c < {least}"
    message = (f"Data arrival completeness check failed: only {{count}} records found in "
               f"{minutes}-minute interval starting at {{start}} and ending at {{end}}, "
               f"expected at least {least} records")  # fmt: skip
    name = f"{t.norm}_is_data_fresh_per_time_window"
    return Mapped(SqlCheck(query, "failed_rows"), _plain(t.column), name, message)


def _plain(column: str | None) -> tuple[str, ...]:
    return (column,) if column is not None else ()


def _no_gaps(a: Args) -> Mapped:
    """Every row of a present window (of its group) whose next present window starts
    more than one window later is flagged (with ``trailing_gap``, the last window too
    when the window of the current time is more than one window later)."""
    t = a.target()
    minutes = _positive(a, "window_minutes", "window_minutes must be a positive integer")
    trailing = a.flag("trailing_gap")
    node = a.get("curr_timestamp")
    if node is not None and not trailing:
        raise node.error("DQX: curr_timestamp can only be provided when trailing_gap is enabled")
    _no_curr_timestamp(a)
    group_node = a.get("group_by")
    groups = [quote(g) for g in plain_columns(group_node)] if group_node is not None else []
    keys = "".join(f"{g}, " for g in groups)
    bucket = _window(f"coalesce(CAST({t.sql} AS TIMESTAMP), {_EPOCH_1900})", minutes)
    present = f"SELECT DISTINCT {keys}{bucket} AS _assay_w FROM {VIEW} WHERE {t.sql} IS NOT NULL"
    order = f"PARTITION BY {', '.join(groups)} ORDER BY _assay_w" if groups else "ORDER BY _assay_w"
    following = f"lead(_assay_w) OVER ({order})"
    if trailing:
        following = f"coalesce({following}, {_window('current_timestamp()', minutes)})"
    nexts = f"SELECT {keys}_assay_w, {following} AS _assay_n FROM ({present}) AS d"
    gap = f"unix_timestamp(_assay_n) - unix_timestamp(_assay_w) > {minutes * 60}"
    gaps = f"SELECT {keys}_assay_w FROM ({nexts}) AS l WHERE _assay_n IS NOT NULL AND {gap}"
    where = f" WHERE ({a.row_filter})" if a.row_filter is not None else ""
    rows = f"SELECT *, {bucket} AS _assay_w FROM {VIEW}{where}"
    on = " AND ".join([*(f"r.{g} <=> g.{g}" for g in groups), "r._assay_w = g._assay_w"])
    query = f"SELECT r.* FROM ({rows}) AS r JOIN ({gaps}) AS g ON {on}"
    message = ("Gap in time series: no data between the window starting at {start} and the "
               "next present window starting at {next}")  # fmt: skip
    name = f"{t.norm}_has_no_gaps_per_time_window"
    return Mapped(SqlCheck(query, "failed_rows"), _plain(t.column), name, message)


def _no_outliers(a: Args) -> Mapped:
    """DQX's ``has_no_outliers``: a value (of the filter) below the median minus 3.5
    median absolute deviations, or above the median plus them, is flagged (both are
    ``percentile_approx`` of the filter's values, as DQX's); no value, no bounds."""
    t = a.target()
    if t.column is None:
        raise a.require("column").error(
            "DQX: has_no_outliers reads a column of the table's schema by its name",
            hint="DQX looks the column's type up by name; check a named column",
        )
    where = f" WHERE ({a.row_filter})" if a.row_filter is not None else ""
    rows = f"SELECT * FROM {VIEW}{where}"
    median = f"SELECT percentile_approx({t.sql}, 0.5) AS m FROM ({rows}) AS r"
    mad = (f"SELECT CAST(first(m) AS DOUBLE) AS m, CAST(percentile_approx(abs({t.sql} - m), "
           f"0.5) AS DOUBLE) AS d FROM ({rows}) AS r CROSS JOIN ({median}) AS s")  # fmt: skip
    bounds = f"SELECT m - 3.5D * d AS lo, m + 3.5D * d AS hi FROM ({mad}) AS s"
    outside = f"r.{quote(t.column)} < b.lo OR r.{quote(t.column)} > b.hi"
    query = f"SELECT r.* FROM ({rows}) AS r CROSS JOIN ({bounds}) AS b WHERE {outside}"
    message = f"Value '{{value}}' in Column '{t.shown}' is an outlier as per MAD."
    name = f"{t.norm}_has_outliers"
    return Mapped(SqlCheck(query, "failed_rows"), _plain(t.column), name, message)


FUNCTIONS: dict[str, Function] = {
    "has_no_outliers": Function(_no_outliers, takes("column", "row_filter")),
    "is_data_fresh_per_time_window": Function(
        _fresh_per_window,
        takes(
            "column",
            "window_minutes",
            "min_records_per_window",
            "lookback_windows",
            "row_filter",
            "curr_timestamp",
        ),
    ),
    "has_no_gaps_per_time_window": Function(
        _no_gaps, takes("column", "window_minutes", "group_by", "trailing_gap", "curr_timestamp")
    ),
}
"""The time-window functions, by DQX's name."""

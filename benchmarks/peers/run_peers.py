"""Run peer data-quality libraries on the benchmark's rules, over Spark Connect.

Started by ``benchmarks/run.py --peers`` with the Python of ``benchmarks/.venv-peers``
(see ``benchmarks/requirements-peers.txt``); connects to ``$SPARK_REMOTE`` (the same
server as the rest of the benchmark). Each adapter translates the rules the peer can
express with its own rule types and records the rest as not expressible; each run is
timed like the other strategies (warm-up, then the median of ``--repeat``) and its
failing rules are compared with the rules expected to fail.

A peer that fails (not installed, cannot run on Spark Connect, a rule it rejects) is
recorded with the exception as its ``error``, never silently dropped; ``UNAVAILABLE``
lists peers not attempted at all, with the reason. ``NOTES`` says how each adapter maps
the rules where that is not obvious. ``serve_and_run.py`` runs this against an embedded
server of its own, for trying the adapters on small data.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import suites as suites_mod  # noqa: E402
from sparkui import SparkUI  # noqa: E402

Adapter = Callable[[Any, Any, list[suites_mod.Case]], tuple[list[int], list[int]]]
"""(spark, df, cases) -> (expressed rule indexes, failed rule indexes) after one run."""


# --- cuallee ---------------------------------------------------------------------------------


def cuallee_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    """Which rules cuallee can express, and why the others cannot be."""
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        t = c.type
        if t in ("not_null", "range", "accepted_values", "regex", "length", "unique"):
            expressed.append(i)
        elif t in ("avg", "sum", "min", "max", "distinct_count"):
            missing[i] = "has_mean/has_sum/has_min/has_max/has_cardinality test equality, not bounds"
        elif t == "missing_count":
            missing[i] = "no count-of-nulls bound (is_complete takes a pass-rate)"
        elif t == "missing_percent":
            missing[i] = "no percentage-of-nulls bound"
        elif t == "row_count":
            missing[i] = "no row-count bound"
        elif t == "sql":
            missing[i] = "no SQL-query rule"
        else:
            missing[i] = f"no equivalent of {t}"
    return expressed, missing


def run_cuallee(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    from cuallee import Check, CheckLevel

    check = Check(CheckLevel.ERROR, "assay-benchmark")
    expressed, _ = cuallee_plan(cases)
    for i in expressed:
        y = cases[i].yaml
        t = y["type"]
        if t == "not_null":
            if "column" in y:
                check.is_complete(y["column"])
            else:
                check.are_complete(list(y["columns"]))
        elif t == "range":
            low, high = y.get("min"), y.get("max")
            low, high = (_iso(low), _iso(high))
            if low is not None and high is not None:
                check.is_between(y["column"], (low, high))
            elif low is not None:
                check.is_greater_or_equal_than(y["column"], low)
            else:
                check.is_less_or_equal_than(y["column"], high)
        elif t == "accepted_values":
            check.is_contained_in(y["column"], tuple(y["values"]))
        elif t == "regex":
            check.has_pattern(y["column"], y["pattern"])
        elif t == "length":
            col = y["column"]
            check.satisfies(col, f"length({col}) BETWEEN {y.get('min', 0)} AND {y.get('max', 2**31 - 1)}")
        elif t == "unique":
            cols = y.get("columns") or [y["column"]]
            if len(cols) == 1:
                check.is_unique(cols[0])
            else:
                check.are_unique(tuple(cols))
    if len(check.rules) != len(expressed):
        raise RuntimeError(f"cuallee kept {len(check.rules)} of {len(expressed)} rules (duplicates?)")
    rows = check.validate(df).select("id", "status").collect()
    status = {int(r["id"]): r["status"] for r in rows}
    failed = [expressed[k - 1] for k, s in sorted(status.items()) if s != "PASS"]
    return expressed, failed


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


# --- sparkdq ---------------------------------------------------------------------------------


def sparkdq_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        t = c.type
        y = c.yaml
        if t in ("not_null", "accepted_values", "regex", "unique", "row_count"):
            expressed.append(i)
        elif t == "range":
            expressed.append(i)
        elif t == "length":
            if y.get("min", 1) >= 1:
                expressed.append(i)
            else:
                missing[i] = "string-length checks need a minimum length > 0"
        elif t in ("avg", "sum", "min", "max", "distinct_count", "missing_count", "missing_percent"):
            missing[i] = "no aggregate-metric bound for this statistic"
        elif t == "sql":
            missing[i] = "no SQL-query rule"
        else:
            missing[i] = f"no equivalent of {t}"
    return expressed, missing


def run_sparkdq(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    from pyspark.sql import functions as F
    from sparkdq.engine import BatchDQEngine
    from sparkdq.management import CheckSet

    expressed, _ = sparkdq_plan(cases)
    configs = []
    for i in expressed:
        y = cases[i].yaml
        t = y["type"]
        cid = f"r{i}"
        if t == "not_null":
            configs.append({"check": "null-check", "check-id": cid,
                            "columns": [y["column"]] if "column" in y else list(y["columns"])})
        elif t == "range":
            low, high = y.get("min"), y.get("max")
            if isinstance(low, dt.date) or isinstance(high, dt.date):
                configs.append({"check": "date-between-check", "check-id": cid, "columns": [y["column"]],
                                "min-value": _iso(low), "max-value": _iso(high),
                                "inclusive": [True, True]})
            elif high is None:
                configs.append({"check": "numeric-min-check", "check-id": cid, "columns": [y["column"]],
                                "min-value": low, "inclusive": True})
            else:
                configs.append({"check": "numeric-between-check", "check-id": cid,
                                "columns": [y["column"]], "min-value": low, "max-value": high,
                                "inclusive": [True, True]})
        elif t == "accepted_values":
            configs.append({"check": "is-contained-in-check", "check-id": cid,
                            "allowed-values": {y["column"]: list(y["values"])}})
        elif t == "regex":
            configs.append({"check": "regex-match-check", "check-id": cid, "column": y["column"],
                            "pattern": y["pattern"], "treat-null-as-failure": True})
        elif t == "length":
            configs.append({"check": "string-length-between-check", "check-id": cid,
                            "column": y["column"], "min-length": y.get("min", 1),
                            "max-length": y.get("max", 2**31 - 1)})
        elif t == "unique":
            configs.append({"check": "unique-rows-check", "check-id": cid,
                            "subset-columns": y.get("columns") or [y["column"]]})
        elif t == "row_count":
            configs.append({"check": "row-count-between-check", "check-id": cid,
                            "min-count": y.get("min", 0), "max-count": y.get("max", 2**62)})
    checks = CheckSet()
    checks.add_checks_from_dicts(configs)
    result = BatchDQEngine(checks).run_batch(df)
    # sparkdq annotates rows (one boolean column per row check) and evaluates aggregate
    # checks eagerly; per-rule verdicts need one more aggregate over the annotated rows.
    row_ids = [c["check-id"] for c in configs if c["check-id"] in result.df.columns]
    failed_ids: set[str] = set()
    if row_ids:
        counts = result.df.agg(*(F.count_if(F.col(k)).alias(k) for k in row_ids)).first().asDict()
        failed_ids |= {k for k, v in counts.items() if v}
    failed_ids |= {a.check_id for a in result.aggregate_results if not a.passed}
    failed = sorted(int(k[1:]) for k in failed_ids)
    return expressed, failed


# --- shared helpers for the metric bounds ---------------------------------------------------


def _number(text: str) -> int | float:
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _bound(y: dict[str, Any]) -> tuple[str, int | float, int | float | None]:
    """``must_be`` text as (op, value, high): ``between 1 and 2`` -> ("between", 1, 2)."""
    words = str(y["must_be"]).split()
    if words[0] == "between":
        return "between", _number(words[1]), _number(words[3])
    return words[0], _number(words[1]), None


def _sql_for(query: str, table: str) -> str:
    """The suite's boolean SQL invariant over ``_validation_df``, over ``table`` instead."""
    return query.replace("_validation_df", table)


PEER_ENV = {
    # Keep the peers from phoning home (no network here; an export that times out would be
    # timed as the peer's work): GX analytics (PostHog) is off by environment variable;
    # Soda's telemetry is switched off by its config file (soda_config.yml, see run_soda).
    "GX_ANALYTICS_ENABLED": "false",
}


# --- great-expectations ------------------------------------------------------------------------


def gx_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        t = c.type
        if t in ("not_null", "range", "accepted_values", "regex", "length", "unique", "row_count",
                 "avg", "sum", "min", "max", "distinct_count", "missing_percent", "sql"):
            expressed.append(i)
        elif t == "missing_count":
            op, value, _ = _bound(c.yaml)
            if (op in ("<=", "=") and value == 0) or (op == "<" and value == 1):
                expressed.append(i)  # "no nulls" is expect_column_values_to_not_be_null
            else:
                missing[i] = ("no count-of-nulls bound (expect_column_values_to_not_be_null takes "
                              "`mostly`, a fraction of the rows)")
        else:
            missing[i] = f"no equivalent of {t}"
    return expressed, missing


def _gx_between(op: str, value: Any, high: Any) -> dict[str, Any]:
    """Keyword arguments of a GX *_to_be_between expectation for a ``must_be`` bound."""
    if op == "between":
        return {"min_value": value, "max_value": high}
    return {">=": {"min_value": value}, ">": {"min_value": value, "strict_min": True},
            "<=": {"max_value": value}, "<": {"max_value": value, "strict_max": True},
            "=": {"min_value": value, "max_value": value}}[op]


def gx_expectations(i: int, y: dict[str, Any]) -> list[Any]:
    """The GX expectations of rule ``i`` (one rule may need several; all must pass)."""
    import great_expectations.expectations as gxe

    t = y["type"]
    meta = {"rule": i}
    if t == "not_null":
        return [gxe.ExpectColumnValuesToNotBeNull(column=c, meta=meta)
                for c in ([y["column"]] if "column" in y else y["columns"])]
    if t == "range":
        return [gxe.ExpectColumnValuesToBeBetween(column=y["column"], min_value=y.get("min"),
                                                  max_value=y.get("max"), meta=meta)]
    if t == "accepted_values":
        return [gxe.ExpectColumnValuesToBeInSet(column=y["column"], value_set=list(y["values"]),
                                                meta=meta)]
    if t == "regex":
        return [gxe.ExpectColumnValuesToMatchRegex(column=y["column"], regex=y["pattern"],
                                                   meta=meta)]
    if t == "length":
        return [gxe.ExpectColumnValueLengthsToBeBetween(column=y["column"], min_value=y.get("min"),
                                                        max_value=y.get("max"), meta=meta)]
    if t == "unique":
        cols = y.get("columns") or [y["column"]]
        if len(cols) == 1:
            return [gxe.ExpectColumnValuesToBeUnique(column=cols[0], meta=meta)]
        return [gxe.ExpectCompoundColumnsToBeUnique(column_list=list(cols), meta=meta)]
    if t == "row_count":
        return [gxe.ExpectTableRowCountToBeBetween(min_value=y.get("min"), max_value=y.get("max"),
                                                   meta=meta)]
    if t == "sql":
        # A boolean invariant becomes "the rows that say it does not hold".
        query = _sql_for(y["query"], "{batch}")
        return [gxe.UnexpectedRowsExpectation(
            unexpected_rows_query=f"SELECT * FROM ({query}) AS q(ok) WHERE ok IS NOT TRUE",
            meta=meta)]
    op, value, high = _bound(y)
    col = y["column"]
    if t == "missing_count":
        return [gxe.ExpectColumnValuesToNotBeNull(column=col, meta=meta)]
    if t == "missing_percent":  # % missing OP v  <=>  non-null proportion (reversed OP) 1 - v/100
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
        if op == "between":
            kwargs = {"min_value": 1 - high / 100, "max_value": 1 - value / 100}
        else:
            kwargs = _gx_between(flip[op], 1 - value / 100, None)
        return [gxe.ExpectColumnProportionOfNonNullValuesToBeBetween(column=col, meta=meta,
                                                                     **kwargs)]
    cls = {"avg": gxe.ExpectColumnMeanToBeBetween, "sum": gxe.ExpectColumnSumToBeBetween,
           "min": gxe.ExpectColumnMinToBeBetween, "max": gxe.ExpectColumnMaxToBeBetween,
           "distinct_count": gxe.ExpectColumnUniqueValueCountToBeBetween}[t]
    return [cls(column=col, meta=meta, **_gx_between(op, value, high))]


GX_RESULT_FORMAT = "SUMMARY"  # GX's default: counts plus up to 20 unexpected values per rule


def run_gx(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    expressed, _ = gx_plan(cases)
    expectations = [e for i in expressed for e in gx_expectations(i, cases[i].yaml)]
    return expressed, gx_validate(spark, df, expectations)


def gx_validate(spark: Any, df: Any, expectations: list[Any]) -> list[int]:
    """Validate ``df`` against a suite of ``expectations`` (each with ``meta.rule``) as
    ``run_gx`` does; the rules of the expectations that failed."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    # No "Calculating Metrics" progress bar on stderr (the benchmark keeps its stderr).
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    # add_spark() takes no session: GX finds the active one (SparkConnectSession.builder
    # .getOrCreate(), i.e. the session this runner opened on $SPARK_REMOTE).
    asset = context.data_sources.add_spark(name="benchmark").add_dataframe_asset(name="lineitem")
    batch_definition = asset.add_batch_definition_whole_dataframe("lineitem")
    suite = context.suites.add(gx.ExpectationSuite(name="assay-benchmark"))
    for expectation in expectations:
        suite.add_expectation(expectation)
    batch = batch_definition.get_batch(batch_parameters={"dataframe": df})
    try:
        result = batch.validate(suite, result_format=GX_RESULT_FORMAT)
    finally:
        # The Spark data source persists (caches) the batch's dataframe by default; drop the
        # cache so the next measured run reads the file again like every other strategy.
        getattr(getattr(batch, "data", None), "dataframe", df).unpersist()
        df.unpersist()
    failed = set()
    for r in result.results:
        rule = int(r.expectation_config.meta["rule"])
        if not r.success:
            failed.add(rule)
    return sorted(failed)


# --- soda-core-spark-df --------------------------------------------------------------------------

SODA_TABLE = "lineitem"


def soda_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        if c.type in ("not_null", "range", "accepted_values", "regex", "length", "unique",
                      "row_count", "avg", "sum", "min", "max", "missing_count",
                      "missing_percent", "sql"):
            expressed.append(i)
        elif c.type == "distinct_count":
            missing[i] = ("no distinct-count metric in Soda Core 3.5.4 on Spark (`distinct(c)` "
                          "is rejected: 'Unsupported metric distinct')")
        else:
            missing[i] = f"no equivalent of {c.type}"
    return expressed, missing


def _soda_threshold(y: dict[str, Any]) -> str:
    op, value, high = _bound(y)
    return f"between {value} and {high}" if op == "between" else f"{op} {value}"


def soda_checks(i: int, y: dict[str, Any]) -> list[dict[str, Any]]:
    """SodaCL checks of rule ``i`` as YAML-ready mappings (all must pass), named r<i>."""
    t = y["type"]
    name = {"name": f"r{i}"}
    col = y.get("column")
    if t == "not_null":
        return [{f"missing_count({c}) = 0": dict(name)}
                for c in ([col] if col else y["columns"])]
    if t == "range":
        low, high = y.get("min"), y.get("max")
        if isinstance(low, dt.date) or isinstance(high, dt.date):
            # SodaCL's `valid min`/`valid max` take numbers only: a date window is a
            # failed-rows check with the failing-row condition.
            parts = ([f"{col} < DATE'{low.isoformat()}'"] if low is not None else []) + (
                [f"{col} > DATE'{high.isoformat()}'"] if high is not None else [])
            return [{"failed rows": {**name, "fail condition": " OR ".join(parts)}}]
        config = {**name}
        if low is not None:
            config["valid min"] = low
        if high is not None:
            config["valid max"] = high
        return [{f"invalid_count({col}) = 0": config}]
    if t == "accepted_values":
        return [{f"invalid_count({col}) = 0": {**name, "valid values": list(y["values"])}}]
    if t == "regex":
        # Soda pastes the regex into a SQL string literal without escaping quotes; \x27 is
        # the same character to the (Java) regex engine and needs no quoting.
        pattern = y["pattern"].replace("'", "\\x27")
        return [{f"invalid_count({col}) = 0": {**name, "valid regex": pattern}}]
    if t == "length":
        config = {**name}
        if "min" in y:
            config["valid min length"] = y["min"]
        if "max" in y:
            config["valid max length"] = y["max"]
        return [{f"invalid_count({col}) = 0": config}]
    if t == "unique":
        cols = y.get("columns") or [col]
        return [{f"duplicate_count({', '.join(cols)}) = 0": dict(name)}]
    if t == "row_count":
        check = (f"row_count between {y['min']} and {y['max']}" if "max" in y
                 else f"row_count >= {y['min']}")
        return [{check: dict(name)}]
    if t == "sql":
        # A user-defined metric: 1 when the boolean invariant holds.
        metric = f"r{i}_holds"
        query = f"SELECT CAST(({_sql_for(y['query'], SODA_TABLE)}) AS INT)"
        return [{f"{metric} = 1": {**name, f"{metric} query": query}}]
    fn = {"avg": "avg", "sum": "sum", "min": "min", "max": "max",
          "missing_count": "missing_count", "missing_percent": "missing_percent"}[t]
    return [{f"{fn}({col}) {_soda_threshold(y)}": dict(name)}]


def run_soda(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    import yaml

    expressed, _ = soda_plan(cases)
    checks: list[dict[str, Any]] = []
    for i in expressed:
        checks += soda_checks(i, cases[i].yaml)
    text = yaml.safe_dump({f"checks for {SODA_TABLE}": checks}, sort_keys=False)
    return expressed, soda_scan(spark, df, text, len(checks))


def soda_scan(spark: Any, df: Any, sodacl: str, count: int) -> list[int]:
    """Scan ``df`` (as the view ``lineitem``) with the SodaCL text ``sodacl`` of ``count``
    checks named r<i>, as ``run_soda`` does; the rules of the checks that did not pass."""
    from soda.common.config_helper import ConfigHelper

    # Soda reads (and, when missing, writes) ~/.soda/config.yml and sends usage telemetry
    # unless it says not to; point it at our own config, which says so, before it loads.
    ConfigHelper.get_instance(str(HERE / "soda_config.yml"))
    from soda.scan import Scan

    df.createOrReplaceTempView(SODA_TABLE)
    scan = Scan()
    scan.set_scan_definition_name("assay-benchmark")
    scan.set_data_source_name("spark_df")
    scan.add_spark_session(spark, data_source_name="spark_df")
    scan.add_sodacl_yaml_str(sodacl)
    scan.execute()
    if scan.has_error_logs():
        raise RuntimeError("soda scan errors: " + scan.get_error_logs_text()[:1500])
    results = scan.get_scan_results()["checks"]
    if len(results) != count:
        raise RuntimeError(f"soda evaluated {len(results)} of {count} checks")
    failed = {int(r["name"][1:]) for r in results if r.get("outcome") != "pass"}
    return sorted(failed)


# --- databricks-labs-dqx -------------------------------------------------------------------------


def dqx_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        if c.type in ("not_null", "range", "accepted_values", "regex", "length", "unique",
                      "row_count", "avg", "sum", "min", "max", "distinct_count", "missing_count",
                      "missing_percent", "sql"):
            expressed.append(i)
        else:
            missing[i] = f"no equivalent of {c.type}"
    return expressed, missing


def dqx_rules(i: int, y: dict[str, Any]) -> list[Any]:
    """DQX rules of rule ``i`` (all must pass), each named r<i>."""
    from databricks.labs.dqx import check_funcs as cf
    from databricks.labs.dqx.rule import DQDatasetRule, DQRowRule

    t = y["type"]
    name = f"r{i}"
    col = y.get("column")
    if t == "not_null":
        return [DQRowRule(name=name, check_func=cf.is_not_null, column=c)
                for c in ([col] if col else y["columns"])]
    if t == "range":
        low, high = y.get("min"), y.get("max")
        if high is None:
            return [DQRowRule(name=name, check_func=cf.is_not_less_than, column=col,
                              check_func_kwargs={"limit": low})]
        if low is None:
            return [DQRowRule(name=name, check_func=cf.is_not_greater_than, column=col,
                              check_func_kwargs={"limit": high})]
        return [DQRowRule(name=name, check_func=cf.is_in_range, column=col,
                          check_func_kwargs={"min_limit": low, "max_limit": high})]
    if t == "accepted_values":
        # A bare string in `allowed` is a column expression to DQX: pass literals.
        from pyspark.sql import functions as F

        return [DQRowRule(name=name, check_func=cf.is_in_list, column=col,
                          check_func_kwargs={"allowed": [F.lit(v) for v in y["values"]]})]
    if t == "regex":
        return [DQRowRule(name=name, check_func=cf.regex_match, column=col,
                          check_func_kwargs={"regex": y["pattern"]})]
    if t == "length":  # no string-length check: a row-level SQL expression
        low, high = y.get("min", 0), y.get("max", 2**31 - 1)
        return [DQRowRule(name=name, check_func=cf.sql_expression, check_func_kwargs={
            "expression": f"length({col}) BETWEEN {low} AND {high}", "columns": [col]})]
    if t == "unique":
        return [DQDatasetRule(name=name, check_func=cf.is_unique,
                              columns=list(y.get("columns") or [col]))]
    if t == "sql":  # dataset-level sql_query: `condition` true means the check fails
        query = _sql_for(y["query"], "{{ input_view }}")
        return [DQDatasetRule(name=name, check_func=cf.sql_query, check_func_kwargs={
            "query": f"SELECT ({query}) IS NOT TRUE AS condition"})]
    # Aggregate bounds: is_aggr_not_less_than / _not_greater_than / _not_equal on one
    # aggregate (a strict bound is "not less than" plus "not equal").
    if t == "row_count":
        column, aggr, kwargs = "*", "count", {}
        op, value, high = ("between", y["min"], y["max"]) if "max" in y else (">=", y["min"], None)
    else:
        op, value, high = _bound(y)
        column, kwargs = col, {}
        aggr = {"avg": "avg", "sum": "sum", "min": "min", "max": "max",
                "distinct_count": "count_distinct", "missing_count": "count",
                "missing_percent": "avg"}[t]
        if t == "missing_count":
            column, kwargs = "*", {"row_filter": f"{col} IS NULL"}
        elif t == "missing_percent":  # the mean of 100-if-null-else-0 is the null percentage
            from pyspark.sql import functions as F

            column = F.when(F.col(col).isNull(), 100.0).otherwise(0.0)
    checks = {"between": [(cf.is_aggr_not_less_than, value), (cf.is_aggr_not_greater_than, high)],
              ">=": [(cf.is_aggr_not_less_than, value)],
              ">": [(cf.is_aggr_not_less_than, value), (cf.is_aggr_not_equal, value)],
              "<=": [(cf.is_aggr_not_greater_than, value)],
              "<": [(cf.is_aggr_not_greater_than, value), (cf.is_aggr_not_equal, value)],
              "=": [(cf.is_aggr_equal, value)]}[op]
    return [DQDatasetRule(name=name, check_func=fn, column=column,
                          check_func_kwargs={"limit": limit, "aggr_type": aggr, **kwargs})
            for fn, limit in checks]


def _dqx_workspace_client() -> Any:
    """A stand-in for the Databricks ``WorkspaceClient`` DQX requires.

    DQX's engine takes a ``WorkspaceClient`` and, on construction, calls
    ``ws.clusters.select_spark_version()`` ("make sure Databricks workspace is accessible")
    and sends usage telemetry through it. There is no Databricks workspace here, so the
    adapter passes an autospec mock: those calls do nothing, and every check still runs on
    the Spark Connect session.
    """
    from unittest import mock

    from databricks.sdk import WorkspaceClient

    ws = mock.create_autospec(WorkspaceClient, instance=True)
    ws.config = mock.MagicMock()
    ws.config._product_info = None  # noqa: SLF001 - DQX sets it to ("dqx", version)
    return ws


def run_dqx(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    from databricks.labs.dqx.engine import DQEngine

    expressed, _ = dqx_plan(cases)
    rules: list[Any] = []
    for i in expressed:
        rules += dqx_rules(i, cases[i].yaml)
    engine = DQEngine(_dqx_workspace_client(), spark=spark)
    checked = engine.apply_checks(df, rules)
    return expressed, dqx_failed(checked)


def dqx_failed(checked: Any) -> list[int]:
    """The rules (checks named r<i>) DQX flagged in its annotated rows ``checked``."""
    from pyspark.sql import functions as F

    # DQX annotates rows (an `_errors` array of the failed checks per row); per-rule
    # verdicts need one more query over the annotated rows.
    # A check DQX could not evaluate (e.g. an unknown column) is reported in `_errors` too,
    # with a "skipped" message: that is a translation error, not a verdict.
    errors = checked.select(F.explode("_errors").alias("e"))
    rows = errors.groupBy(F.col("e.name").alias("name")).agg(
        F.max(F.col("e.message").startswith(DQX_SKIPPED)).alias("skipped")).collect()
    skipped = sorted(r["name"] for r in rows if r["skipped"])
    if skipped:
        raise RuntimeError(f"DQX skipped checks {skipped} (could not evaluate them)")
    return sorted({int(r["name"][1:]) for r in rows})


DQX_SKIPPED = "Check evaluation skipped"


# --- peers that were not run -------------------------------------------------------------------

UNAVAILABLE: dict[str, str] = {}

NOTES = {
    "great-expectations": (
        "ephemeral context, Spark data source (persists the dataframe, GX's default; the "
        "adapter unpersists after each run), result_format SUMMARY (GX's default); SQL rules "
        "as UnexpectedRowsExpectation"),
    "soda-core-spark-df": (
        "3.5.4 is the newest release that allows pyspark 4 (3.5.5+ pin pyspark<4); date "
        "ranges as failed-rows checks (valid min/max take numbers); SQL rules as "
        "user-defined metrics; telemetry off via benchmarks/peers/soda_config.yml"),
    "databricks-labs-dqx": (
        "DQEngine needs a Databricks WorkspaceClient (it calls clusters.select_spark_version() "
        "and logs telemetry through it): the adapter passes an autospec mock, the checks run "
        "on Spark Connect; length rules as sql_expression, SQL rules as dataset-level "
        "sql_query, strict metric bounds as not_less/not_greater plus is_aggr_not_equal; "
        "per-rule verdicts need one more query (explode _errors.name)"),
}

PEERS: dict[str, tuple[Adapter, Callable[[list[suites_mod.Case]], tuple[list[int], dict[int, str]]]]] = {
    "cuallee": (run_cuallee, cuallee_plan),
    "sparkdq": (run_sparkdq, sparkdq_plan),
    "great-expectations": (run_gx, gx_plan),
    "soda-core-spark-df": (run_soda, soda_plan),
    "databricks-labs-dqx": (run_dqx, dqx_plan),
}


def version_of(package: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--rules", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--ui-url", default=None)
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    from pyspark.sql import SparkSession

    os.environ.update(PEER_ENV)
    spark = SparkSession.builder.remote(os.environ["SPARK_REMOTE"]).getOrCreate()
    ui = SparkUI(args.ui_url) if args.ui_url else None
    cases = suites_mod.suite(args.rules)
    expected = sorted(i for i, c in enumerate(cases) if c.expect_fail)
    results: list[dict[str, Any]] = []
    for name in [p for p in args.peers.split(",") if p]:
        adapter, plan = PEERS[name]
        expressed, missing = plan(cases)
        row: dict[str, Any] = {"peer": name, "version": version_of(name),
                               "expressed": len(expressed), "not_expressed": {
                                   str(i): why for i, why in missing.items()}}
        if name in NOTES:
            row["note"] = NOTES[name]
        times, execs, server = [], [], []
        try:
            for k in range(args.warmup + args.repeat):
                df = spark.read.parquet(args.data)
                mark = ui.mark() if ui else None
                start = time.perf_counter()
                _, failed = adapter(spark, df, cases)
                seconds = time.perf_counter() - start
                ex = ui.since(mark) if ui and mark is not None else None
                sys.stderr.write(f"[peers] {name} run {k + 1}: {seconds:.2f} s, "
                                 f"{ex.count if ex else '?'} SQL executions\n")
                if k >= args.warmup:
                    times.append(seconds)
                    execs.append(ex.count if ex else None)
                    server.append(ex.server_seconds if ex else None)
            row.update(seconds=round(statistics.median(times), 3), runs=[round(t, 3) for t in times],
                       sql_executions=execs[-1], server_seconds=server[-1], failed_rules=failed,
                       verdicts_match_expected=failed == [i for i in expected if i in expressed],
                       verdict_diff={  # against the rules built to fail, among those expressed
                           "passed_but_expected_to_fail": [i for i in expected
                                                           if i in expressed and i not in failed],
                           "failed_but_expected_to_pass": [i for i in failed if i not in expected]})
        except Exception as exc:  # noqa: BLE001 - a peer that fails is recorded
            row.update(error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}",
                       traceback=traceback.format_exc()[-2000:])
            sys.stderr.write(f"[peers] {name} failed: {row['error']}\n")
        results.append(row)
    for name, why in UNAVAILABLE.items():
        results.append({"peer": name, "version": version_of(name), "error": why})
    Path(args.out).write_text(json.dumps({"rules": args.rules, "expected_failures": expected,
                                          "results": results}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The order of a run's lines: as the tables finish (``finish``, the default) or in config
order (``--order config``, ``assay.run(order="config")``): tables in config order, each
table's results by rule index, the comparisons in config order, the summary last."""

from __future__ import annotations

import json
import threading

import pytest

import assay
from assay.api.ordering import ConfigOrder, order_of
from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.suite import CatalogSource, Suite, Table
from assay.report.comparison import ComparisonResult
from assay.report.events import RuleResult, RunSummary, TableFinished
from tests.helpers import validate_event

HERE = Origin("c.yaml", "tables[0]", 1)


def _table(name: str) -> Table:
    return Table(name=name, source=CatalogSource(name), rules=(), origin=HERE)


def _result(table: str, index: int) -> RuleResult:
    return RuleResult(
        run_id="r", table=table, rule_index=index, rule_type="row_count", rule_name=None,
        columns=(), code=None, passed=True, severity="pass", failed_count=None, row_count=1,
        metric_value=None, threshold=None, message="ok", samples=None, origin=HERE,
        elapsed_ms=0,
    )  # fmt: skip


def _finished(table: str) -> TableFinished:
    return TableFinished(run_id="r", table=table, origin=HERE, row_count=1, rules=2,
                         failed=0, warned=0, errors=0, spark_plans=1, elapsed_ms=0)  # fmt: skip


def _compared(name: str) -> ComparisonResult:
    return ComparisonResult(run_id="r", comparison=name, semantics="native", source="a",
                            target="b", keys=("id",), passed=True, severity="pass",
                            message="ok", origin=HERE)  # fmt: skip


SUMMARY = RunSummary(run_id="r", tables=3, rules=6, failed=0, warned=0, errors=0,
                     spark_plans=3, elapsed_ms=0, exit_code=0)  # fmt: skip


def _label(event) -> str:
    if isinstance(event, RuleResult):
        return f"{event.table}[{event.rule_index}]"
    if isinstance(event, TableFinished):
        return event.table
    if isinstance(event, ComparisonResult):
        return f"compare {event.comparison}"
    return "summary"


def test_config_order_holds_each_table_until_those_before_it_are_passed_on():
    suite = Suite(tables=tuple(_table(n) for n in ("a", "b", "c")))
    seen: list[str] = []
    order = ConfigOrder(suite, lambda e: seen.append(_label(e)))
    # c finishes first, then a (its results out of rule order), then b
    for event in (_result("c", 0), _result("c", 1), _finished("c")):
        order(event)
    assert seen == []  # c waits for a and b
    for event in (_result("a", 1), _result("a", 0), _finished("a")):
        order(event)
    assert seen == ["a[0]", "a[1]", "a"]  # a is first: passed on at once
    for event in (_result("b", 0), _result("b", 1), _finished("b"), SUMMARY):
        order(event)
    assert seen == ["a[0]", "a[1]", "a", "b[0]", "b[1]", "b", "c[0]", "c[1]", "c", "summary"]


def test_comparisons_follow_the_tables_in_config_order():
    suite = Suite(tables=(_table("a"),), comparisons=_comparisons("x", "y"))
    seen: list[str] = []
    order = ConfigOrder(suite, lambda e: seen.append(_label(e)))
    for event in (_compared("y"), _result("a", 0), _compared("x"), _finished("a"), SUMMARY):
        order(event)
    assert seen == ["a[0]", "a", "compare x", "compare y", "summary"]


def _comparisons(*names: str):
    from assay.ir.compare import DatasetComparison

    return tuple(
        DatasetComparison(
            name=n, source=CatalogSource("s"), target=CatalogSource("t"), keys=("id",), origin=HERE
        )  # fmt: skip
        for n in names
    )


def test_what_a_stopped_run_still_holds_is_passed_on_at_close():
    suite = Suite(tables=(_table("a"), _table("b")))
    seen: list[str] = []
    order = ConfigOrder(suite, lambda e: seen.append(_label(e)))
    for event in (_result("b", 0), _finished("b"), _result("a", 0)):
        order(event)
    order.close()
    assert seen == ["b[0]", "b", "a[0]"]


def test_the_order_is_finish_or_config():
    assert order_of("finish") == "finish"
    with pytest.raises(ConfigError, match="--order must be finish or config, not 'table'"):
        order_of("table", "--order")
    with pytest.raises(ConfigError, match="order must be finish or config"):
        assay.run("examples/orders.yaml", order="random", spark=object())  # type: ignore[arg-type]


def test_a_wrong_order_on_the_command_line_exits_2_before_spark(monkeypatch):
    from typer.testing import CliRunner

    from assay.cli.app import app

    done = CliRunner().invoke(app, ["run", "examples/orders.yaml", "--order", "table",
                                    "--remote", "sc://localhost:1"])  # fmt: skip
    assert done.exit_code == 2, done.stderr
    assert "--order must be finish or config, not 'table'" in done.stderr
    assert done.stdout == ""


# --- with Spark: a first table slower than the others ------------------------------------

SLOW_MS = (1000, 4000)
"""How long the first table's rows take to compute, tried in turn: the string ``'null'``
(what Java's void says) after ``Thread.sleep``. The other tables' plans start with it and
are as small: on an idle server they finish within the first second; on a loaded one
they may not, and the longer sleep is tried (the command-line test checks that the slow
table ends last before it checks anything else); each run waits it out once."""


def _config(tmp_path, sleep_ms: int = SLOW_MS[0]):
    """Three tables; the first one's plan sleeps on the server, so it finishes last."""
    path = tmp_path / "order.yaml"
    slow = f"reflect('java.lang.Thread', 'sleep', {sleep_ms}L)"
    tables = [
        ("slow", f"SELECT id, {slow} AS z FROM range(2)"),
        ("fast", "SELECT id, 'x' AS z FROM range(5)"),
        ("faster", "SELECT id, 'y' AS z FROM range(2)"),
    ]
    body = "".join(
        f'  - name: {name}\n    source: {{sql: "{sql}"}}\n    rules:\n'
        "      - {type: not_null, column: z}\n      - {type: row_count, min: 1}\n"
        "      - {type: unique, column: id}\n"
        for name, sql in tables
    )
    path.write_text("tables:\n" + body)
    return path


CONFIG_ORDER = [
    *("result slow 0", "result slow 1", "result slow 2", "table slow"),
    *("result fast 0", "result fast 1", "result fast 2", "table fast"),
    *("result faster 0", "result faster 1", "result faster 2", "table faster"),
    "summary",
]


def _labels(lines: list[dict]) -> list[str]:
    return [
        " ".join(str(p) for p in (e["event"], e.get("table"), e.get("rule_index")) if p is not None)
        for e in lines
    ]


@pytest.mark.spark
def test_the_command_line_streams_in_config_order(server, tmp_path):
    from tests.helpers import assay_cli as cli

    for sleep_ms in SLOW_MS:  # a longer sleep only when the server was too busy for the first
        path = _config(tmp_path, sleep_ms)
        finished = cli("run", str(path), "--remote", server.url, "--quiet")
        assert finished.returncode == 0, finished.stderr
        events = map(json.loads, finished.stdout.splitlines())
        tables = [e["table"] for e in events if e["event"] == "table"]
        if tables[-1] == "slow":
            break
    assert tables[-1] == "slow"  # the setup holds: the first table finishes last
    proc = cli("run", str(path), "--remote", server.url, "--quiet", "--order", "config")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    for line in lines:
        validate_event(line)
    assert _labels(lines) == CONFIG_ORDER


@pytest.mark.spark
def test_the_api_hands_over_the_events_in_config_order(spark, tmp_path):
    path = _config(tmp_path)
    seen: list[dict] = []
    threads: set[str] = set()

    def on_event(event) -> None:
        threads.add(threading.current_thread().name)
        seen.append(event.to_dict())

    result = assay.run(path, spark=spark, order="config", on_event=on_event)
    assert _labels(seen) == CONFIG_ORDER
    assert _labels(result.to_dicts()) == CONFIG_ORDER
    assert [t.table for t in result.tables] == ["slow", "fast", "faster"]
    stream = assay.iter_run(path, spark=spark, order="config")
    assert [f"{r.table} {r.rule_index}" for r in stream] == [
        label.removeprefix("result ") for label in CONFIG_ORDER if label.startswith("result")
    ]

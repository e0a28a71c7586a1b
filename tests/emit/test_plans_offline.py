"""The Spark Connect plans assay.emit builds, read as protobuf with no server running.

A Spark Connect DataFrame is a lazy tree of plan objects; ``df._plan.plan(client)``
turns it into its ``Relation`` message locally (``to_proto`` would first ask the server
for its plan-compression settings), and a session made from a URL connects only at its
first RPC. So these tests build the frames of planned tables exactly as a run does and
assert on their shape: they fail when emit changes the plans it submits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.message import Message
from pyspark.sql.connect.proto import expressions_pb2, relations_pb2
from pyspark.sql.connect.session import SparkSession

from assay.config import load_suite
from assay.emit import detail as emit_detail
from assay.emit import spark as emit
from assay.emit.histogram import histogram_frame
from assay.ir.suite import Table
from assay.planner import plan_table
from assay.planner.lower import plan_detail
from assay.planner.plan import DetailPlan, TablePlan

Relation = relations_pb2.Relation
Expression = expressions_pb2.Expression


@pytest.fixture(scope="module")
def session() -> Iterator[SparkSession]:
    # Not the builder: create() would make this the process's default session.
    spark = SparkSession(connection="sc://localhost:1")  # nothing listens: no RPC may happen
    spark.client.set_retry_policies([])  # an RPC fails at once instead of retrying for minutes
    yield spark
    spark.client.close()


def test_an_rpc_fails_at_once(session):
    # what a test would see if emit started asking the server something
    with pytest.raises(Exception, match="(?i)unavailable|connect"):
        _ = session.read.table("db.t").schema


def table(tmp_path: Path, rules: str, *, keys: str = "", filter_: str = "") -> Table:
    extra = (f"    keys: [{keys}]\n" if keys else "") + (
        f'    filter: "{filter_}"\n' if filter_ else ""
    )
    path = tmp_path / "c.yaml"
    path.write_text(
        "tables:\n  - name: t\n    source: {table: db.t}\n" + extra + "    rules:\n" + rules
    )
    return load_suite([path]).tables[0]


def planned(tmp_path: Path, *rules: str, **kwargs: str) -> TablePlan:
    return plan_table(table(tmp_path, "".join(f"      - {r}\n" for r in rules), **kwargs))


def relation(df) -> Relation:
    return df._plan.plan(df._session.client)  # noqa: SLF001 - the plan is what is tested


def children(rel: Relation) -> list[Relation]:
    kind = getattr(rel, rel.WhichOneof("rel_type"))
    return [v for _, v in kind.ListFields() if isinstance(v, Relation)]


def walk(rel: Relation) -> Iterator[Relation]:
    yield rel
    for child in children(rel):
        yield from walk(child)


def kinds(rel: Relation) -> Counter[str]:
    return Counter(r.WhichOneof("rel_type") for r in walk(rel))


def chain(rel: Relation) -> list[str]:
    """The relation kinds from the root down a plan without joins or unions."""
    found = [rel.WhichOneof("rel_type")]
    while below := children(rel):
        assert len(below) == 1, found
        rel = below[0]
        found.append(rel.WhichOneof("rel_type"))
    return found


def depth(rel: Relation) -> int:
    return 1 + max((depth(c) for c in children(rel)), default=0)


def joins_deep(rel: Relation) -> int:
    """The most joins on a path from the root to a leaf."""
    below = max((joins_deep(c) for c in children(rel)), default=0)
    return below + rel.HasField("join")


def messages(message: Message) -> Iterator[Message]:
    """The messages directly inside ``message`` (repeated fields flattened)."""
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if _repeated(field):
            yield from value.values() if field.message_type.GetOptions().map_entry else value
        else:
            yield value


def _repeated(field) -> bool:
    # protobuf 6 has is_repeated; older versions only label
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def expression_depth(message: Message) -> int:
    """The deepest nesting of Expression messages inside ``message`` (not descending
    into sub-relations: each has its own expressions)."""
    best = 0
    for inner in messages(message):
        if isinstance(inner, Relation):
            continue
        best = max(best, expression_depth(inner) + isinstance(inner, Expression))
    return best


def expression_depths(rel: Relation) -> int:
    return max(expression_depth(r) for r in walk(rel))


def functions(message: Message) -> Counter[str]:
    """Function names used anywhere in ``message`` (sub-relations included)."""
    found: Counter[str] = Counter()
    if isinstance(message, Expression) and message.HasField("unresolved_function"):
        found[message.unresolved_function.function_name] += 1
    for inner in messages(message):
        found += functions(inner)
    return found


def source(session: SparkSession, plan: TablePlan):
    return emit.source_frame(session, plan.table.source, plan.table.filter)


# --- sources ------------------------------------------------------------------------------


def test_a_catalog_source_with_a_filter_is_a_filter_over_a_read(session, tmp_path):
    plan = planned(tmp_path, "{type: not_null, column: a}", filter_="b > 0")
    rel = relation(source(session, plan))
    assert chain(rel) == ["filter", "read"]
    assert rel.filter.input.read.named_table.unparsed_identifier == "db.t"


# --- the aggregate plan -------------------------------------------------------------------


def test_scan_rules_are_one_aggregate_with_one_expression_per_slot(session, tmp_path):
    plan = planned(
        tmp_path,
        "{type: not_null, columns: [a, b]}",
        "{type: range, column: q, min: 1, max: 9}",
        "{type: avg, column: q, must_be: '> 0'}",
        "{type: row_count, must_be: '> 0'}",
        "{type: regex, column: s, pattern: '^x'}",
    )
    assert plan.aggregate is not None and not plan.aggregate.groups
    rel = relation(emit.aggregate_frame(source(session, plan), plan.aggregate))
    assert chain(rel) == ["aggregate", "read"]
    names = [e.alias.name[0] for e in rel.aggregate.aggregate_expressions]
    assert names == [s.name for s in plan.aggregate.slots]
    assert len(names) == 5  # rows, not_null, range, avg, regex: the row count shared
    assert functions(rel)["count_if"] == 3


def test_group_rules_are_cross_joined_into_one_single_row_plan(session, tmp_path):
    plan = planned(
        tmp_path,
        "{type: not_null, column: a}",
        "{type: unique, column: a}",
        "{type: distinct_count, column: b, must_be: '> 1'}",
    )
    assert plan.aggregate is not None
    assert len(plan.aggregate.scans) == 1 and len(plan.aggregate.groups) == 2
    rel = relation(emit.aggregate_frame(source(session, plan), plan.aggregate))
    found = kinds(rel)
    assert found["join"] == 2 and found["read"] == 3
    assert all(
        r.join.join_type == relations_pb2.Join.JOIN_TYPE_CROSS
        for r in walk(rel)
        if r.HasField("join")
    )
    # a group part: one row of statistics over groupBy(keys).count() of non-null keys;
    # the unique rule's keys are shuffled straight to their partition
    unique = next(
        r for r in walk(rel) if r.HasField("aggregate") and r.aggregate.input.HasField("aggregate")
    )
    shape = chain(unique)
    assert shape[:2] == ["aggregate", "aggregate"] and shape[-2:] == ["filter", "read"]
    assert {len(unique.aggregate.aggregate_expressions)} == {4}


def test_a_thousand_rules_stay_shallow(session, tmp_path):
    columns = ", ".join(f"c{i}" for i in range(1000))
    rules = [f"{{type: not_null, columns: [{columns}]}}"]
    rules += [f"{{type: max, column: c{i}, must_be: '> 0'}}" for i in range(1000)]
    plan = planned(tmp_path, *rules)
    rel = relation(emit.aggregate_frame(source(session, plan), plan.aggregate))
    outputs = [
        e for r in walk(rel) if r.HasField("aggregate") for e in r.aggregate.aggregate_expressions
    ]
    assert len(outputs) == 1002  # rows, the not_null, 1,000 maxima
    assert len(plan.aggregate.slots) == 1002
    # an OR of 1,000 null tests, reduced as a balanced tree: ~log2(1000) levels, not 1,000
    assert expression_depths(rel) < 20


def test_many_group_bys_are_joined_as_a_balanced_tree(session, tmp_path):
    plan = planned(tmp_path, *(f"{{type: unique, column: c{i}}}" for i in range(64)))
    assert plan.aggregate is not None and len(plan.aggregate.groups) == 64
    rel = relation(emit.aggregate_frame(source(session, plan), plan.aggregate))
    assert kinds(rel)["join"] == 64  # 64 groups and the row-count scan: 65 parts
    # reduced as a balanced tree: ceil(log2(65)) = 7 joins on any path, not 64
    assert joins_deep(rel) == 7
    assert depth(rel) < 20


# --- the detail plan ----------------------------------------------------------------------


def detail_plan(tmp_path: Path) -> TablePlan:
    return planned(
        tmp_path,
        "{type: not_null, column: a}",
        "{type: regex, column: s, pattern: '^x'}",
        "{type: unique, column: a}",
        "{type: avg, column: q, must_be: '> 0'}",
        keys="id",
    )


def failed(plan: TablePlan, rows: dict[int, int], key_range=None) -> DetailPlan:
    """The detail plan a run submits when the rules of ``rows`` failed on that many rows."""
    detail = plan_detail(plan, set(rows), ("id",), failed_rows=rows, key_range=key_range)
    assert detail is not None
    return detail


def test_the_detail_plan_shares_one_scan_for_every_rule(session, tmp_path):
    plan = detail_plan(tmp_path)
    detail = failed(plan, {0: 1, 1: 2, 2: 2})
    assert [e.rule_index for e in detail.entries] == [0, 1, 2] and not detail.own_branch
    rel = relation(emit_detail.detail_frame(source(session, plan), detail))
    assert kinds(rel)["set_op"] == 0 and kinds(rel)["read"] == 1
    assert [e.alias.name[0] for e in rel.project.expressions if e.HasField("alias")] == [
        "_assay_row"
    ]
    # the N-per-rule limit is a filter on row_number() over the tagged rows
    limits = [r for r in walk(rel) if r.HasField("filter") and functions(r.filter.condition)["<="]]
    assert len(limits) == 1
    assert functions(rel)["row_number"] == 1 and functions(rel)["explode"] == 1
    # the rules' tags without their nulls by array_compact, not a lambda (whose variable's
    # fresh expression id in every plan made Spark compile new code for every run)
    assert functions(rel)["array_compact"] == 1 and functions(rel)["filter"] == 0


def test_a_rule_failing_on_many_rows_gets_a_limited_sorted_branch(session, tmp_path):
    plan = detail_plan(tmp_path)
    detail = failed(plan, {0: 1, 1: 10_000_000})
    assert detail.own_branch == (1,)
    rel = relation(emit_detail.detail_frame(source(session, plan), detail))
    assert rel.set_op.set_op_type == relations_pb2.SetOperation.SET_OP_TYPE_UNION
    assert rel.set_op.is_all
    branch = rel.set_op.left_input
    assert chain(branch) == ["project", "limit", "sort", "project", "filter", "read"]
    assert branch.project.input.limit.limit == detail.sample_size
    ordered = branch.project.input.limit.input.sort.order
    assert [o.child.unresolved_attribute.unparsed_identifier for o in ordered] == ["id", "s"]


def test_a_key_bound_comes_first_in_the_branch_test(session, tmp_path):
    plan = detail_plan(tmp_path)
    detail = failed(plan, {0: 1, 1: 10_000_000}, key_range=(1, 1_000_000_000))
    assert [i for i, _ in detail.bounds] == [1]
    rel = relation(emit_detail.detail_frame(source(session, plan), detail))
    where = next(r for r in walk(rel.set_op.left_input) if r.HasField("filter")).filter.condition
    assert where.unresolved_function.function_name == "and"
    key_test = where.unresolved_function.arguments[0]
    assert key_test.unresolved_function.function_name == "or"
    assert functions(key_test)["<="] == 1 and functions(key_test)["isNull"] == 1


# --- the histogram plan -------------------------------------------------------------------


def test_histograms_are_one_aggregate_of_bucket_arrays(session, tmp_path):
    plan = planned(tmp_path, "{type: colstats, column: x}", "{type: colstats, column: y}")
    assert plan.histogram is not None
    names = [h.name for h in plan.histogram.columns]
    rel = relation(histogram_frame(source(session, plan), plan.histogram, {names[0]: (0, 10)}))
    assert chain(rel) == ["aggregate", "project", "read"]  # each row's buckets, then counts
    (bucket,) = rel.aggregate.input.project.expressions  # y has no bounds: left out
    assert bucket.alias.name[0] == names[0]
    (output,) = rel.aggregate.aggregate_expressions
    assert output.alias.name[0] == names[0]
    array = output.alias.expr.unresolved_function
    assert array.function_name == "array"
    assert len(array.arguments) == plan.histogram.columns[0].measure.bins

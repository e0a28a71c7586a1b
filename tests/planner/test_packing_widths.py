"""The packing weighs columns by width: a string read by two scan branches costs far more
than a long read by two (each branch decodes and copies every value it reads), so where a
wide column's slots fit one branch they are kept in one; answers never change
(the Spark test at the end holds the packed plan against one aggregate)."""

from __future__ import annotations

from collections import Counter

import pytest

from assay.planner import plan_table
from assay.planner.cost import WIDE, PlannerOptions, _reads, widths
from assay.planner.packing import Packing, packed, pieces
from assay.planner.plan import Slot
from tests.conftest import ROOT

LINEITEM = {
    **dict.fromkeys(("l_orderkey", "l_partkey", "l_suppkey"), "bigint"),
    "l_linenumber": "int",
    **dict.fromkeys(("l_quantity", "l_extendedprice", "l_discount", "l_tax"), "decimal(15,2)"),
    **dict.fromkeys(
        ("l_returnflag", "l_linestatus", "l_shipinstruct", "l_shipmode", "l_comment"), "string"
    ),
    **dict.fromkeys(("l_shipdate", "l_commitdate", "l_receiptdate"), "date"),
}
"""lineitem's columns as a run reads their types (``simpleString``) from the server."""
STRINGS = {c for c, t in LINEITEM.items() if t == "string"}


def _suite_table(tmp_path, monkeypatch, rules: int):
    import yaml

    from assay.config import load_suite

    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import suites

    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(suites.config("/data/lineitem.parquet", suites.suite(rules))))
    return load_suite([str(path)]).tables[0]


def _reads_per_column(plan) -> Counter[str]:
    return Counter(
        c
        for scan in plan.aggregate.scans
        for c in {c for s in scan.slots for c in _reads(s.measure)}
    )


@pytest.mark.parametrize(("rules", "branches"), [(100, 3), (300, 9)])
def test_the_benchmark_suites_read_every_string_column_once(tmp_path, monkeypatch, rules, branches):
    """As a run plans them (the column types known): each of lineitem's string columns is
    read by one scan branch, with no more branches than before. The 300-rule suite read
    ``l_comment`` (a regex, lengths) and the four short strings by two branches each (10
    string reads in 9 branches, 41 reads in all); weighed by width, 5 string reads and
    41 in all (more of the keys, a long, read twice instead)."""
    table = _suite_table(tmp_path, monkeypatch, rules)
    plan = plan_table(table, size_bytes=231_672_087, columnar=True, types=LINEITEM)
    scans = plan.aggregate.scans
    assert len(scans) == branches and all(len(s.slots) <= 24 for s in scans)
    reads = _reads_per_column(plan)
    assert {c: reads[c] for c in STRINGS if reads[c]} == {c: 1 for c in STRINGS if reads[c]}
    assert "l_comment" in reads
    # the weighed total is lower than the unweighed packing's
    unweighed = plan_table(table, size_bytes=231_672_087, columnar=True)
    assert _cost(reads) <= _cost(_reads_per_column(unweighed))
    # explain has no types: the columns tested as text (l_comment) are wide all the same
    assert _reads_per_column(unweighed)["l_comment"] == 1


def _cost(reads: Counter[str]) -> int:
    return sum(n * (WIDE if c in STRINGS else 1) for c, n in reads.items())


def test_widths_from_types_or_from_the_tests_on_text():
    from assay.ir import Col, Compare, Length, Lit, Matches, Op
    from assay.planner.measures import CountIf

    types = {
        "s": "string collate UTF8_LCASE",
        "v": "varchar(3)",
        "n": "decimal(38,0)",
        "b": "binary",
    }
    assert widths([], types) == {"s": WIDE, "v": WIDE, "b": WIDE}
    slots = [
        Slot("m1", CountIf(Compare(Op.GT, Length(Col("Note")), Lit(3))), (0,)),
        Slot("m2", CountIf(Matches(Col("code"), "^a+$")), (1,)),
        Slot("m3", CountIf(Compare(Op.GT, Col("n"), Lit(3))), (2,)),
    ]
    assert widths(slots, None) == {"note": WIDE, "code": WIDE}


def _slot(name: str, *columns: str) -> Slot:
    from assay.ir import Col, IsNull, Or
    from assay.planner.measures import CountIf

    return Slot(name, CountIf(Or(tuple(IsNull(Col(c)) for c in columns))), (0,))


def test_a_wide_columns_slots_are_never_cut_apart():
    """One component larger than a branch (every rule joins the key k): cut in order, the
    string column s's slots straddle the cut; weighed, they start a piece of their own,
    and the slots reading s and k follow s, not k."""
    groups = [
        (("a",), [_slot(f"a{i}", "a") for i in range(2)]),
        (("k", "s"), [_slot("ks", "k", "s")]),
        (("a", "k"), [_slot("ak", "a", "k")]),
        (("s",), [_slot(f"s{i}", "s") for i in range(3)]),
        (("b", "k"), [_slot("bk", "b", "k")]),
    ]
    plain = [[s.name for s in p] for p in pieces(groups, 5)]
    assert plain == [["a0", "a1", "ak", "ks", "bk"], ["s0", "s1", "s2"]]
    weighed = [[s.name for s in p] for p in pieces(groups, 5, {"s": WIDE})]
    assert weighed == [["a0", "a1", "ak", "bk"], ["ks", "s0", "s1", "s2"]]
    order = {s.name: i for _, g in groups for i, s in enumerate(g)}
    branches = packed(groups, [], 5, order, {"s": WIDE})
    assert sum(any("s" in _reads(s.measure) for s in b.slots) for b in branches) == 1


def test_refining_weighs_a_wide_column_above_narrow_ones():
    """Moving the slot reading s and b beside the other s slot spares a read of s at the
    cost of one of b: no gain counted in columns, a gain weighed by width."""
    reads = {"m0": ("s",), "m1": ("a", "s"), "m2": ("b", "s"), "m3": ("b",)}
    for wide, expected in (({}, 2), ({"s": WIDE}, 1)):
        slots = {n: _slot(n, *c) for n, c in reads.items()}
        packing = Packing(reads, 3, wide)
        packing.branches = [[slots["m0"], slots["m1"]], [slots["m2"], slots["m3"]]]
        packing.refine()
        assert sum(any("s" in reads[s.name] for s in b) for b in packing.branches) == expected


# -- against Spark: the packed plan answers as one aggregate --------------------------------

NOTES = ["", " ", "a\n", "a\r\n", "é" * 30, "x" * 50, None, "ok, fine.", "\u2028", "ab\u0085"]


@pytest.mark.spark
def test_packing_by_width_answers_as_one_aggregate(spark, tmp_path):
    """Rules joining a string column and a long to the keys, in more slots than a branch
    holds (so the component is cut): the plan weighed by width reads the string by one
    branch where the unweighed one read it by two, and every answer (counts, metrics, the
    samples) equals the one-aggregate plan's, on strings with line terminators, nulls,
    empty and non-ASCII values."""
    from assay.config import load_suite
    from assay.executor.run import run_suite
    from tests.helpers import Collect, write_config

    rows = [
        (i, i % 7, None if i % 11 == 0 else i * 3, NOTES[i % len(NOTES)]) for i in range(1, 400)
    ]
    path = str(tmp_path / "w.parquet")
    spark.createDataFrame(rows, "id long, a int, n long, note string").write.parquet(path)
    rules = [
        "{type: not_null, columns: [id, note]}",
        "{type: not_null, columns: [id, n]}",
        "{type: length, column: note, min: 1, max: 40}",
        "{type: regex, column: note, pattern: '^[a-z ,.]{1,20}$'}",
        "{type: regex, column: note, pattern: '^[a-z]+$'}",
        "{type: range, column: a, min: 1, max: 5}",
        "{type: range, column: n, min: 0, max: 600}",
        "{type: range, column: id, min: 1, max: 300}",
        "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE a > n'}",
        "{type: max, column: n, must_be: '<= 1000'}",
        "{type: min, column: a, must_be: '>= 1'}",
        "{type: avg, column: id, must_be: '> 0'}",
        "{type: not_null, column: note}",
    ]
    body = "\n".join(f"      - {r}" for r in rules)
    text = f"tables:\n  - name: w\n    source: {{path: '{path}'}}\n    keys: [id]\n    rules:\n{body}\n"
    suite = load_suite([write_config(tmp_path, text)])
    split = PlannerOptions(strategy="split", max_outputs=6, by_value=False, class_runs=False)
    types = {"id": "bigint", "a": "int", "n": "bigint", "note": "string"}
    weighed = plan_table(suite.tables[0], split, types=types)
    assert _reads_per_column(weighed)["note"] == 1
    assert (
        _reads_per_column(plan_table(suite.tables[0], split, types=dict.fromkeys(types, "int")))[
            "note"
        ]
        > 1
    )

    answers = []
    for options in (PlannerOptions(strategy="single", by_value=False, class_runs=False), split):
        sink = Collect()
        run_suite(suite, spark, sink, options=options)
        answers.append(_results(sink.events))
    assert answers[0] == answers[1]
    assert any(r["passed"] is False for r in answers[0])


def _results(events: list[dict]) -> list[dict]:
    keep = ("rule", "passed", "failed_count", "value", "samples", "error")
    return [{k: e.get(k) for k in keep} for e in events if e["event"] == "result"]

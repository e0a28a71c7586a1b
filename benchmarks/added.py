"""What a rule kind adds to the table's fused plan, beside the same rule run alone: on
TPC-H lineitem, one embedded server, side by side in one run.

    python benchmarks/added.py                    # SF1, the 100-rule suite as the base
    python benchmarks/added.py --scale 0.1 --repeat 1
    python benchmarks/added.py --only percentile  # the cases whose name contains it
    python benchmarks/added.py --only foreign_key --scale 0.01 --base 10 --repeat 1
    python benchmarks/added.py --only drift --scale 0.01 --base 10 --repeat 1 --remote sc://...

For every case (one warm-up, then the median of ``--repeat`` runs, seconds, all
``assay.validate`` on one DataFrame, samples off so only the aggregate plan runs):

- ``base``: the benchmark's N-rule suite (``--base 100``) alone;
- ``base + <case>``: the suite with the case's rules added; ``added`` is the difference;
- ``<case> alone``: the case's rules alone;
- where the case has one, the hand-written Spark query that answers the same question
  (``handwritten``), timed the same way.

A case against history (``10 KLL drift rules against history``) runs with a metrics store
of its own (a JSON-lines file under ``--out``'s directory, new for each variant): its
warm-up is the first run, which stores the sketches (and passes as a first run), and the
timed runs are judged against the last stored run. Its ``added`` is against the base
with a store (``base with store``: the base's metrics are written too), so only the
drift rules' cost is counted.

``--plans`` (drift against history only): the aggregate plans alone, as a run emits
them, in alternating rounds in one JVM (one warm-up round, then ``--repeat``), each
with the server JVM's CPU seconds (``benchmarks/branches.py``'s reading of
``/proc/<pid>/stat``) and wall seconds: the base; the base with the 10 KLL drift
rules, their sketches at the rates a stored run's counts give (``Sketch.expected`` set
from a first run's counts, as a run with a store sets it), the counts beside in the
scan branches reading their columns (``counts beside``: as a run emits it) and in the
sketches' branch (``plain``); the base's branches with the counts beside alone; the
sketches' branch alone, its sample only (as emitted beside the counts) and plain. The two
forms' answers are compared: every output equal but the sketches' bytes (Spark's KLL
compaction is randomised), the values each sketch holds equal in number.

The JSON (``--out``) keeps every run. Which percentile is the default (exact
``percentile`` or ``percentile_approx``) was decided from this script's output; see
benchmarks/README.md "What a rule kind adds".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import suites as suites_mod  # noqa: E402
from run import ensure_data  # noqa: E402

Rules = list[dict[str, Any]]


def cases(data: str = "lineitem.parquet") -> dict[str, tuple[Rules, Callable[[Any], Any] | None]]:
    """Each case: its rules and the hand-written query answering the same (or None);
    ``data`` is lineitem's path (the foreign key's reference is built from it)."""

    def agg(*exprs: str) -> Callable[[Any], Any]:
        return lambda df: df.selectExpr(*exprs).collect()

    price = "l_extendedprice"
    return {
        "percentile exact": (
            [{"type": "percentile", "column": price, "quantile": 0.95, "must_be": "> 0"}],
            agg(f"percentile({price}, 0.95)"),
        ),
        "percentile approx": (
            [
                {
                    "type": "percentile",
                    "column": price,
                    "quantile": 0.95,
                    "accuracy": 10000,
                    "must_be": "> 0",
                }
            ],
            agg(f"percentile_approx({price}, 0.95, 10000)"),
        ),
        "median exact (int)": (
            [{"type": "median", "column": "l_quantity", "must_be": "> 0"}],
            agg("percentile(l_quantity, 0.5)"),
        ),
        "median approx (int)": (
            [{"type": "median", "column": "l_quantity", "accuracy": 10000, "must_be": "> 0"}],
            agg("percentile_approx(l_quantity, 0.5, 10000)"),
        ),
        "4 percentiles exact": (
            [
                {"type": "percentile", "column": c, "quantile": q, "must_be": "> 0"}
                for c in (price, "l_discount")
                for q in (0.5, 0.99)
            ],
            agg(*(f"percentile({c}, {q})" for c in (price, "l_discount") for q in (0.5, 0.99))),
        ),
        "4 percentiles approx": (
            [
                {
                    "type": "percentile",
                    "column": c,
                    "quantile": q,
                    "accuracy": 10000,
                    "must_be": "> 0",
                }
                for c in (price, "l_discount")
                for q in (0.5, 0.99)
            ],
            agg(
                *(
                    f"percentile_approx({c}, {q}, 10000)"
                    for c in (price, "l_discount")
                    for q in (0.5, 0.99)
                )
            ),
        ),
        # a filtered rule beside its unfiltered form: the same 10 rules, with and without
        # a per-rule filter (target: within 10% in the fused plan)
        "10 rules unfiltered": (_ten(None), None),
        "10 rules filtered": (_ten("l_returnflag = 'R'"), None),
        "5 expressions": (
            [
                {"type": "expression", "expression": e}
                for e in (
                    "l_commitdate < l_receiptdate + INTERVAL 90 DAYS",
                    "l_extendedprice >= l_quantity",
                    "l_discount <= 0.1 OR l_tax > 0",
                    "l_shipdate >= DATE'1992-01-01'",
                    "length(l_comment) < 50",
                )
            ],
            agg(
                "count_if(NOT coalesce(l_commitdate < l_receiptdate + INTERVAL 90 DAYS, false))",
                "count_if(NOT coalesce(l_extendedprice >= l_quantity, false))",
                "count_if(NOT coalesce(l_discount <= 0.1 OR l_tax > 0, false))",
                "count_if(NOT coalesce(l_shipdate >= DATE'1992-01-01', false))",
                "count_if(NOT coalesce(length(l_comment) < 50, false))",
            ),
        ),
        "3 metrics per group": (
            [
                {"type": "row_count", "group_by": ["l_shipmode"], "must_be": "> 0"},
                {"type": "avg", "column": price, "group_by": ["l_shipmode"], "must_be": "> 0"},
                {
                    "type": "missing_percent",
                    "column": "l_comment",
                    "group_by": ["l_returnflag", "l_linestatus"],
                    "must_be": "< 1%",
                },
            ],
            lambda df: (
                df.groupBy("l_shipmode").agg({"*": "count", price: "avg"}).collect(),
                df.groupBy("l_returnflag", "l_linestatus").agg({"l_comment": "count"}).collect(),
            ),
        ),
        # a foreign key against a small reference (a tenth of the orders, read from
        # lineitem itself, so most rows have no match): an anti join in the fused plan
        "foreign_key small ref": (
            [
                {
                    "type": "foreign_key",
                    "column": "l_orderkey",
                    "tolerance": "100%",
                    "references": {"sql": _orders(data), "columns": ["o_orderkey"]},
                }
            ],
            lambda df: _anti_join_count(df, data),
        ),
        # drift against a referenced source (half of lineitem, by order key): each rule a
        # branch of the fused plan grouping both sides by value
        "10 drift rules": (_drift(data), None),
        # drift against the metrics store's history: each numeric column's KLL sketch in
        # the table's one aggregate plan (the values counted exactly, the sketches over a
        # sample of the rows: emit/drift.sketch_frame), the stored sketches read back from
        # the store (no reference scanned)
        "10 KLL drift rules against history": (_kll_history(), None),
        # the sketch metrics: HLL distinct counts, Pearson, compliance, entropy, mutual
        # information, non-null counts
        "10 sketch metrics": (_sketches(), None),
    }


def _drift(data: str) -> Rules:
    path = data.replace("`", "``")
    half = {"sql": f"SELECT * FROM parquet.`{path}` WHERE l_orderkey % 2 = 0"}
    numeric = [
        (c, m)
        for c in ("l_quantity", "l_extendedprice", "l_discount")
        for m in ("psi", "ks") + (("wasserstein",) if c == "l_quantity" else ())
    ]
    rules: Rules = [
        {"type": "drift", "column": c, "method": m, "bins": 10, "references": dict(half),
         "must_be": ">= 0"}
        for c, m in numeric
    ]  # fmt: skip
    rules += [
        {"type": "drift", "column": c, "method": "chi_square", "bins": "values",
         "references": dict(half), "must_be": ">= 0"}
        for c in ("l_returnflag", "l_shipmode", "l_linestatus")
    ]  # fmt: skip
    return rules


def _kll_history() -> Rules:
    """10 drift rules against the last run: ks over 8 numeric columns (8 sketches),
    psi and wasserstein over two of them (the same sketches)."""
    last = {"history": "last"}
    numbers = ("l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity",
               "l_extendedprice", "l_discount", "l_tax")  # fmt: skip
    rules: Rules = [
        {"type": "drift", "column": c, "method": "ks", "references": dict(last), "must_be": ">= 0"}
        for c in numbers
    ]
    rules += [
        {"type": "drift", "column": "l_quantity", "method": "psi", "bins": 10,
         "references": dict(last), "must_be": ">= 0"},
        {"type": "drift", "column": "l_extendedprice", "method": "wasserstein",
         "references": dict(last), "must_be": ">= 0"},
    ]  # fmt: skip
    return rules


def against_history(rules: Rules) -> bool:
    """Whether a rule of ``rules`` is judged against the metrics store's history."""
    return any("history" in (r.get("references") or {}) for r in rules)


def _sketches() -> Rules:
    return [
        {"type": "approx_distinct_count", "column": "l_orderkey", "must_be": "> 0"},
        {"type": "approx_distinct_count", "column": "l_comment", "must_be": "> 0"},
        {"type": "correlation", "columns": ["l_quantity", "l_extendedprice"], "must_be": "> -2"},
        {"type": "correlation", "columns": ["l_discount", "l_tax"], "must_be": "> -2"},
        {"type": "compliance", "expression": "l_discount <= 0.1", "must_be": ">= 0"},
        {"type": "compliance", "expression": "l_shipdate <= l_commitdate", "must_be": ">= 0"},
        {"type": "entropy", "column": "l_shipmode", "must_be": ">= 0"},
        {"type": "entropy", "column": "l_returnflag", "must_be": ">= 0"},
        {"type": "mutual_information", "columns": ["l_returnflag", "l_linestatus"],
         "must_be": ">= 0"},
        {"type": "count", "column": "l_comment", "must_be": "> 0"},
    ]  # fmt: skip


def _orders(data: str) -> str:
    """The reference of the foreign key case: a tenth of lineitem's order keys."""
    path = data.replace("`", "``")
    return f"SELECT l_orderkey AS o_orderkey FROM parquet.`{path}` WHERE l_orderkey % 10 = 0"


def _anti_join_count(df: Any, data: str) -> int:
    """The foreign key by hand: keyed rows LEFT ANTI JOIN the distinct referenced keys."""
    keys = df.sparkSession.sql(_orders(data)).where("o_orderkey IS NOT NULL").distinct()
    rows = df.where("l_orderkey IS NOT NULL").select("l_orderkey")
    return rows.join(keys, rows["l_orderkey"] == keys["o_orderkey"], "left_anti").count()


def _ten(where: str | None) -> Rules:
    rules: Rules = [
        {"type": "range", "column": "l_quantity", "min": 0, "max": 50 + k} for k in range(5)
    ] + [
        {"type": "not_null", "column": c}
        for c in ("l_orderkey", "l_partkey", "l_suppkey", "l_comment", "l_shipdate")
    ]
    return [dict(r, filter=where) for r in rules] if where else rules


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(fn: Callable[[], Any], repeat: int) -> dict[str, Any]:
    fn()  # warm-up
    runs = [timed(fn) for _ in range(repeat)]
    return {"median": statistics.median(runs), "runs": runs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1)
    parser.add_argument("--base", type=int, default=100, help="rules of the base suite")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--only", default="", help="cases whose name contains one of these (comma-separated)"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results" / "added.json")
    parser.add_argument(
        "--remote", default=None, help="a Spark Connect URL (default: an embedded server)"
    )
    parser.add_argument(
        "--plans", action="store_true", help="the KLL drift plans' JVM CPU, side by side"
    )
    parser.add_argument("--ui-url", help="accepted for the smoke tests' harness; not used")
    args = parser.parse_args(argv)
    if args.plans:
        return plans_main(args)

    import assay
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    data = ensure_data(args.scale)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    handle = open_session(args.remote)
    spark = handle.spark
    try:
        df = spark.read.parquet(str(data))
        base = [dict(c.yaml) for c in suites_mod.suite(args.base)]

        def run(rules: Rules, store: str | None = None) -> Callable[[], Any]:
            """One validation of ``rules``; with ``store``, a fresh metrics store of that
            name (its first call, the warm-up, records the history)."""
            kept: dict[str, Any] = {}
            if store is not None:
                path = args.out.parent / f"{args.out.stem}-{store}.jsonl"
                path.unlink(missing_ok=True)
                kept = {"metrics": str(path), "name": "lineitem"}

            def call() -> None:
                result = assay.validate(
                    df, rules, keys=list(suites_mod.KEYS), sample_size=0, **kept
                )
                errors = [r.message for r in result.results if r.severity == "error"]
                assert not errors, errors[:3]

            return call

        out: dict[str, Any] = {"scale": args.scale, "base_rules": len(base), "cases": {}}
        out["base"] = measure(run(base), args.repeat)
        print(f"base ({len(base)} rules)            {out['base']['median']:8.2f} s", flush=True)
        for name, (rules, hand) in cases(str(data)).items():
            if not any(part in name for part in args.only.split(",")):
                continue
            out["cases"][name] = row = _case(name, rules, hand, base, run, args.repeat, df)
            against = row.get("base with store", out["base"])
            row["added"] = row["with base"]["median"] - against["median"]
            shown = (
                f"{name:<24} added {row['added']:6.2f} s   alone {row['alone']['median']:6.2f} s"
            )
            if hand is not None:
                shown += f"   handwritten {row['handwritten']['median']:6.2f} s"
            print(shown, flush=True)
        args.out.write_text(json.dumps(out, indent=2), encoding="utf-8")
    finally:
        handle.close()
    return 0


def _case(
    name: str,
    rules: Rules,
    hand: Callable[[Any], Any] | None,
    base: Rules,
    run: Callable[..., Callable[[], Any]],
    repeat: int,
    df: Any,
) -> dict[str, Any]:
    """One case's runs: with the base, alone, by hand; against history each variant
    with a store of its own, and the base with a store (what ``added`` is against)."""
    slug = "".join(ch if ch.isalnum() else "-" for ch in name)
    stored = against_history(rules)
    row: dict[str, Any] = {}
    if stored:
        row["base with store"] = measure(run(base, f"{slug}-base"), repeat)
    row["with base"] = measure(run(base + rules, f"{slug}-with" if stored else None), repeat)
    row["alone"] = measure(run(rules, f"{slug}-alone" if stored else None), repeat)
    if hand is not None:
        row["handwritten"] = measure(lambda: hand(df), repeat)
    return row


# --- the KLL drift plans side by side (--plans) ---------------------------------------------


def plans_main(args: argparse.Namespace) -> int:
    """``--plans``: see the module docstring."""
    import tempfile

    from branches import jvm_pid

    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    data = ensure_data(args.scale)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    handle = open_session(args.remote)
    try:
        with tempfile.TemporaryDirectory(prefix="assay-added-") as work:
            forms = _plan_forms(handle.spark, str(data), args.base, Path(work))
            out = _alternated(handle.spark, forms, jvm_pid(handle, args.remote), args.repeat)
    finally:
        handle.close()
    out.update(scale=args.scale, base_rules=args.base)
    args.out.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0 if out["answers_equal"] else 1


def _plan_forms(spark: Any, data: str, base_rules: int, work: Path) -> dict[str, Callable[[], Any]]:
    """Each form's call (collecting its one row): see the module docstring."""
    import dataclasses

    import yaml

    from assay.config import load_suite
    from assay.emit import spark as emit
    from assay.executor.prepare import prepare
    from assay.planner.drift import Sketch
    from assay.planner.drift_plan import counted_beside
    from assay.planner.plan import AggregatePlan, ScanAggregate

    def prepared(rules: Rules, name: str) -> Any:
        table = {"name": "lineitem", "source": {"path": data}, "keys": list(suites_mod.KEYS),
                 "rules": rules}  # fmt: skip
        path = work / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"version": 1, "tables": [table]}), encoding="utf-8")
        found = prepare(spark, load_suite([path]).tables[0])
        assert hasattr(found, "planned"), found
        return found

    base = [dict(c.yaml) for c in suites_mod.suite(base_rules)]
    plain, kll = prepared(base, "base"), prepared(base + _kll_history(), "kll")
    first = emit.aggregate_frame(kll.df, kll.planned.plan.aggregate).collect()[0].asDict()

    def rated(branch: Any) -> Any:  # each sketch at the rate its first run's count gives
        if not isinstance(branch, ScanAggregate):
            return branch
        return dataclasses.replace(branch, slots=tuple(
            dataclasses.replace(s, computed=dataclasses.replace(
                s.form, expected=first[f"{s.name}_values"])) if isinstance(s.form, Sketch) else s
            for s in branch.slots))  # fmt: skip

    whole = AggregatePlan(tuple(map(rated, kll.planned.plan.aggregate.branches)))
    counted = counted_beside(whole.branches)  # as a run holds and emits it (with_rates)
    sketched = [b for b in counted if any(isinstance(s.form, Sketch) for s in b.slots)]
    others = [b for b in counted if b not in sketched]  # the counts ride in these
    plain_sketches = [b for b in whole.branches if any(isinstance(s.form, Sketch) for s in b.slots)]

    def call(df: Any, plan: Any) -> Callable[[], Any]:
        return lambda: emit.aggregate_frame(df, plan).collect()[0].asDict()

    return {
        "base": call(plain.df, plain.planned.plan.aggregate),
        "base + KLL, counts beside": call(kll.df, AggregatePlan(counted)),
        "base + KLL, plain": call(kll.df, whole),
        "base + the counts beside": call(kll.df, AggregatePlan(others)),
        "sketches' branch, the sample alone": call(kll.df, AggregatePlan(sketched)),
        "sketches' branch, plain": call(kll.df, AggregatePlan(plain_sketches)),
    }


def _alternated(
    spark: Any, forms: dict[str, Callable[[], Any]], pid: int | None, repeat: int
) -> dict[str, Any]:
    """The forms in alternating rounds (a warm-up round first), JVM CPU and wall seconds
    each; the two whole forms' answers compared."""
    from branches import rounds

    from assay.executor.run import optimizer_rule_excluded
    from assay.judge.drift_kll import read
    from assay.planner.cost import MERGE_SUBPLANS_RULE

    with optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, True):
        answers = {k: call() for k, call in forms.items()}  # the warm-up round
        runs = rounds(forms, pid, repeat)
    beside, plain = answers["base + KLL, counts beside"], answers["base + KLL, plain"]
    sketched = [k for k in plain if k.endswith("_sketch")]
    equal = set(beside) == set(plain) and all(
        beside[k] == plain[k] for k in plain if k not in sketched
    )
    held = all(read(bytes(beside[k])).n == read(bytes(plain[k])).n for k in sketched)
    for k, r in runs.items():
        cpu = f"JVM CPU min {min(r['jvm_cpu']):6.2f} s " if r["jvm_cpu"] else ""
        print(f"{k:<34} {cpu}wall min {min(r['wall']):6.2f} s  {r}", flush=True)
    print(f"answers equal: {equal} ({len(plain)} outputs), sketches' n equal: {held}", flush=True)
    return {"plans": runs, "answers_equal": equal and held, "outputs": len(plain)}


if __name__ == "__main__":
    sys.exit(main())

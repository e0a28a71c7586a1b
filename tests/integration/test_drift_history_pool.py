"""First runs of drift against history, many tables at once, against Spark's subquery pool.

A first run (no stored count yet) sets the sketches' sampling rate from exact counts in a
scalar subquery (emit/drift.sketch_frame). Spark runs a query's scalar subqueries on a
pool of 16 threads (``spark.sql.subquery.maxThreadThreshold``, static); a subquery whose
own plan holds a subquery waits on that pool from inside it. Here the branches of 17
tables (one more than the pool's threads), each read through a SQL source that holds a
scalar subquery of its own (so each counting subquery nests one), run at once, as
``--concurrency 17`` runs them: every one finishes, its counts exact. (Later runs take the
rate from the stored counts, no subquery: tests/integration/test_drift_history_rate.py;
at 9cd9a22, 40 such tables through ``assay.run`` at once finished too.)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.judge.drift_kll import read

pytestmark = pytest.mark.spark

TABLES = 17
ROWS = 40


def test_seventeen_first_run_sketch_branches_at_once_all_finish(spark):
    from assay.emit.drift import sketch_frame
    from assay.planner.drift import Sketch
    from assay.planner.plan import Slot

    slot = Slot("s0", Sketch("x", sample=800), (0,))  # nothing stored: expected 0
    frames = []
    for i in range(TABLES):
        source = f"(SELECT CAST(id + {i} AS DOUBLE) AS x FROM range({ROWS}))"
        table = spark.sql(f"SELECT * FROM {source} WHERE x > (SELECT min(x) FROM {source})")
        frames.append(sketch_frame(table, [slot]))
    plan = frames[0]._explain_string("extended").lower()
    assert plan.count("subquery") >= 2, plan  # the count's subquery and the source's
    with ThreadPoolExecutor(TABLES) as pool:
        answers = [f.result(timeout=300) for f in [pool.submit(f.collect) for f in frames]]
    for (row,) in answers:
        assert row["s0_values"] == ROWS - 1 and row["s0_nulls"] == 0  # all but the minimum
        assert read(bytes(row["s0_sketch"]), row["s0_values"]).n == ROWS - 1

"""The embedded server keeps more generated classes than Spark's default 100: a 300-rule
aggregate plan compiles about 114, and with a cache of 100 every run compiled them all
again (docs/planner.md#shaping-by-cost-assayplannercost)."""

from __future__ import annotations


def test_the_embedded_server_keeps_two_thousand_generated_classes(spark):
    from assay.executor.session.embedded import CODEGEN_CACHE, CODEGEN_CACHE_ENTRIES

    assert CODEGEN_CACHE_ENTRIES == "2000"
    assert spark.conf.get(CODEGEN_CACHE) == CODEGEN_CACHE_ENTRIES

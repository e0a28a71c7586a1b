"""One table's run as explicit stages, each a function from a frozen input to a frozen
output; only the submitter (:mod:`.submitter`) talks to Spark::

    Table ──prepare──► Prepared (Planned + the frames)          assay.executor.prepare
    Table ──scan_for──► Scan | IncrementalScan, chosen once      .scan (measure, judge,
                                                                   sample, outcome below)
    Planned ──measure──► Measured (values, SQL answers,          .aggregate  (containment:
                                   rules Spark failed on)                     bisecting)
    Planned + Measured ──judge──► Judged (an Outcome per rule)   .judge
    Planned + Measured + Judged ──sample──► Sampled (samples)    .detail
    Judged + Sampled + history ──results──► TableOutcome         .over_time
    TableOutcome ──finish──► TableOutcome (validators, writes)   .outputs

:func:`assay.executor.table.run_table` calls them in this order, through the table's
scan (full or incremental); drift against history is part of measure, judge and the
outcome (:mod:`.drift_history`), a no-op without such rules.
"""

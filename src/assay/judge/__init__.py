"""Judging, pure and without Spark: the verdict on a rule and what it is judged from
(``outcome``), measured values -> a verdict per rule (``evaluate``, whose ``JUDGES`` holds a
judge for every kind of check), the rules judged by their own pass: schema, SQL and
validator functions (``own``), and a table's rules against its schema before any scan
(``preflight``).

A dataset comparison's checks are judged in :mod:`assay.comparison.judge`, beside its plan:
the planner's explain reads them, and this package is a layer above the planner.
"""

"""Judging, pure and without Spark: a table's rules against its schema before any scan
(``preflight``). A dataset comparison's checks are judged in :mod:`assay.comparison.judge`,
beside its plan: the planner's explain reads them, and this package is a layer above it.
"""

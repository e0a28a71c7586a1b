"""The Python API: ``assay.validate(df, rules)``, ``assay.run(config)`` and their results.

See docs/api.md. Everything here is re-exported by the ``assay`` package.
"""

from __future__ import annotations

from assay.api.explaining import TableExplain, explain, explain_tables
from assay.api.profiling import Profile, profile
from assay.api.result import Result, ResultStream
from assay.api.running import iter_run, iter_validate, run, validate
from assay.api.sessions import session
from assay.api.suites import load, rules_suite
from assay.api.watching import history
from assay.executor.connect import connect_frame, connect_session, is_classic

__all__ = [
    "Profile",
    "Result",
    "ResultStream",
    "TableExplain",
    "connect_frame",
    "connect_session",
    "explain",
    "explain_tables",
    "history",
    "is_classic",
    "iter_run",
    "iter_validate",
    "load",
    "profile",
    "rules_suite",
    "run",
    "session",
    "validate",
]

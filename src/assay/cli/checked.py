"""The ``check`` event of ``assay check``: one JSON line, for a valid config and an invalid
one alike (docs/events.md, ``check``).

A valid config's line counts its tables, rules and comparisons; an invalid one's says
``valid: false`` and lists every problem as the errors carry it (message, file, line,
path, hint), counting only the tables that loaded without a problem. The human-readable
errors still go to stderr, and the exit code is the error's (2 for a config mistake).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.errors import AssayError, ConfigErrors
from assay.ir.suite import Suite, Table

CHECK_SCHEMA_VERSION = 1
"""The ``schema_version`` of ``check`` lines."""


def _counts(tables: Sequence[Table]) -> dict[str, int]:
    return {"tables": len(tables), "rules": sum(len(t.rules) for t in tables)}


def valid_event(configs: Sequence[Path], suite: Suite) -> dict[str, Any]:
    """The line of a config that loaded: its counts, and the variables resolved at run
    time (data-validator ``sql`` and ``shell`` variables) with the rules using them."""
    event: dict[str, Any] = {
        "event": "check",
        "schema_version": CHECK_SCHEMA_VERSION,
        "valid": True,
        "files": [str(c) for c in configs],
        **_counts(suite.tables),
        "comparisons": len(suite.comparisons),
        "problems": [],
    }
    if suite.deferred:
        # As data-validator's config check, substitutions with run-time values are not
        # validated: these variables and the checks using them resolve at run time.
        event["unresolved_variables"] = [v.name for v in suite.deferred]
        event["unresolved_rules"] = suite.unresolved_rules
    return event


def invalid_event(configs: Sequence[Path], error: BaseException) -> dict[str, Any]:
    """The line of a config that did not load (or of a command line that is wrong):
    every problem, and the counts of the tables that loaded without one."""
    loaded = error.valid if isinstance(error, ConfigErrors) else ()
    return {
        "event": "check",
        "schema_version": CHECK_SCHEMA_VERSION,
        "valid": False,
        "files": [str(c) for c in configs],
        **_counts(loaded),
        "comparisons": 0,
        "problems": problems_of(error),
    }


def problems_of(error: BaseException) -> list[dict[str, Any]]:
    """Each problem of ``error`` as the ``problems`` of a ``check`` line (several for
    :class:`~assay.errors.ConfigErrors`, in the order stderr lists them)."""
    if isinstance(error, ConfigErrors):
        return [p for e in error.errors for p in problems_of(e)]
    if not isinstance(error, AssayError):
        return [_problem(f"internal error: {type(error).__name__}: {error}", "INTERNAL")]
    origin = error.origin
    return [
        _problem(
            error.message,
            error.code,
            file=origin.file if origin is not None else None,
            line=origin.line if origin is not None else None,
            path=(origin.path or None) if origin is not None else None,
            hint=error.hint,
        )
    ]


def _problem(message: str, code: str, **place: Any) -> dict[str, Any]:
    found = {"message": message, "file": None, "line": None, "path": None, "hint": None}
    return {**found, **place, "code": code}

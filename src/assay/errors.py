"""One exception tree, mapped onto the documented exit codes.

Exit 1 ("a check failed") is computed from results; :class:`ChecksFailed` carries it only
when a Python caller asks for an exception (``Result.raise_for_failures()``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from assay.ir.origin import Origin

if TYPE_CHECKING:
    from assay.ir.suite import Table
    from assay.report.events import RuleResult


class AssayError(Exception):
    """Base of every error assay raises on purpose; carries a stable ``code``."""

    exit_code: ClassVar[int] = 3
    code: ClassVar[str] = "ASSAY_ERROR"

    def __init__(self, message: str, origin: Origin | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.origin = origin
        self.hint = hint

    def __str__(self) -> str:
        where = f"{self.origin}: " if self.origin is not None else ""
        hint = f"\n  hint: {self.hint}" if self.hint else ""
        return f"{where}{self.message}{hint}"


class ConfigError(AssayError, ValueError):
    """The config or the command line is wrong; nothing ran (exit 2)."""

    exit_code = 2
    code = "CONFIG_INVALID"


class ThresholdSyntaxError(ConfigError):
    """A threshold, tolerance or template string does not parse."""

    code = "SYNTAX"


class VariableError(ConfigError):
    """A variable is unknown or cannot be resolved."""

    code = "VARIABLE"


class PreflightError(ConfigError):
    """A rule does not fit the table's schema (missing column, wrong type)."""

    code = "PREFLIGHT"


class ConfigErrors(ConfigError):
    """Several config errors found in one pass, reported together."""

    code = "CONFIG_INVALID"

    def __init__(self, errors: list[ConfigError], valid: tuple[Table, ...] = ()):
        self.errors = errors
        self.valid = valid
        """The tables loaded without an error, when loading found errors in others
        (their sources can still be checked: :func:`assay.api.running.execute`)."""
        super().__init__("\n".join(str(e) for e in errors))

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class SparkFailure(AssayError):
    """Spark or the environment failed (exit 3): unreachable server, Java missing,
    a query Spark rejected at run time."""

    exit_code = 3
    code = "SPARK_FAILED"


class EnvironmentFailure(SparkFailure):
    """The machine cannot run Spark (no Java, Java too old, no free port)."""

    code = "ENVIRONMENT"


class UnsupportedSession(AssayError, TypeError):
    """A Python caller handed over a session or DataFrame assay cannot use (a classic,
    non-Connect one); nothing ran (exit 2)."""

    exit_code = 2
    code = "UNSUPPORTED_SESSION"


class ChecksFailed(AssayError):
    """Rules failed that fail the run (exit 1): raised on request by
    ``Result.raise_for_failures()``, listing them in its message and in ``failures``."""

    exit_code = 1
    code = "CHECKS_FAILED"

    def __init__(self, failures: Sequence[RuleResult]):
        self.failures = tuple(failures)
        n = len(self.failures)
        lines = [f"{n} failed rule fails the run:" if n == 1 else f"{n} failed rules fail the run:"]
        lines += [f"  {r.table} {r.rule_type} {r.origin}: {r.message}" for r in self.failures]
        super().__init__("\n".join(lines))

"""``assay.profile(df)``: a whole-table profile in one or two Spark plans, and the
starter config it suggests (docs/profile.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.sources import DataFrameSource
from assay.profiling.plan import DEFAULT_PROFILE, ProfileOptions
from assay.report.jsonl import json_line

PLACEHOLDER_SOURCE = {"table": "replace_me"}
"""The source a config suggested from a DataFrame names until its caller says which."""


@dataclass(frozen=True)
class Profile:
    """A profile: a ``profile_column`` event per column, then the ``profile_table`` one
    (the JSON lines ``assay profile`` prints, as dicts)."""

    events: list[dict[str, Any]]

    @property
    def columns(self) -> list[dict[str, Any]]:
        """The columns' events, in schema order."""
        return [e for e in self.events if e["event"] == "profile_column"]

    @property
    def table(self) -> dict[str, Any]:
        """The table's event (row count, candidate keys, the plans and why)."""
        return next(e for e in self.events if e["event"] == "profile_table")

    def column(self, name: str) -> dict[str, Any]:
        """One column's event."""
        for event in self.columns:
            if event["column"] == name:
                return event
        raise KeyError(name)

    def to_json_lines(self) -> str:
        """The events as JSON lines, as ``assay profile`` prints them."""
        return b"".join(json_line(e) for e in self.events).decode()

    def suggest(self, source: Mapping[str, Any] | None = None) -> str:
        """A starter native config (YAML text) whose table reads ``source`` (a native
        source mapping: ``{"table": "db.t"}``, ``{"path": ..., "format": ...}``)."""
        from assay.profiling.suggest import suggest_yaml

        return suggest_yaml(self.events, source or PLACEHOLDER_SOURCE)

    def html(self) -> str:
        """The profile as a self-contained HTML page."""
        from assay.report.render import render_profile_html

        return render_profile_html(self.events)


def profile(
    df: Any,
    *,
    name: str = "dataframe",
    columns: Sequence[str] | None = None,
    sample: float | None = None,
    exact_distinct: bool = False,
    options: ProfileOptions = DEFAULT_PROFILE,
) -> Profile:
    """Profile a Spark Connect DataFrame: every per-column statistic in one Spark plan,
    histograms and candidate keys in at most one more (docs/profile.md).

    Raises:
        ConfigError: ``columns`` names a column the frame lacks, or ``sample`` is not
            in (0, 1].
        SparkFailure: Spark failed while profiling.
    """
    from assay.executor.connect import connect_frame
    from assay.executor.profile import Profiled
    from assay.executor.profile import profile as run_profile

    frame = connect_frame(df)
    chosen = replace(
        options,
        columns=tuple(columns) if columns is not None else options.columns,
        sample=checked_sample(sample, "sample") if sample is not None else options.sample,
        exact_distinct=exact_distinct or options.exact_distinct,
    )
    profiled = Profiled(frame, name, DataFrameSource(name), Origin("<python>", "profile"))
    return Profile(run_profile(frame.sparkSession, profiled, chosen).events)


def checked_sample(value: float, what: str) -> float:
    """A sample fraction, in (0, 1]."""
    if not 0 < value <= 1:
        raise ConfigError(f"{what} must be a fraction in (0, 1], got {value:g}")
    return value

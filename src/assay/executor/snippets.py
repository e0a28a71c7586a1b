"""The SQL a user wrote inside rules (a rule's ``filter``, an ``expression`` rule's
predicate), analysed by Spark before any scan, with errors at the setting that holds it.

Two analysis RPCs for all of a table's snippets, only when it has some, and no scan: the
snippets' types (each must be a boolean: a row condition) and the snippets as the
aggregate reads them (a row condition may not use an aggregate or window function), the
two in flight at once where the caller can run one beside the other. Each
is analysed alone only when its batch fails, so the error names the rule at fault and
quotes the user's text with a caret, never the query assay wraps it in. A metric's SQL
aggregate (:class:`~assay.ir.metrics.SqlMetric`, SodaCL's ``<name> expression``) is
analysed as the aggregate plan reads it: one more RPC, only when the table has one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.emit import spark as emit
from assay.errors import ConfigError
from assay.executor.spark_errors import in_users_text
from assay.ir.metrics import SqlMetric
from assay.ir.origin import Origin
from assay.ir.rules import MetricCheck
from assay.ir.suite import Table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True, slots=True)
class Snippet:
    """One piece of user SQL in a rule: its text, the setting holding it, its place."""

    rule: str
    setting: str
    text: str
    origin: Origin


SETTING_WORDS = {"filter": "the filter", "expression": "the expression", "aggregate": "the metric"}


def snippets_of(table: Table) -> list[Snippet]:
    """Every rule snippet of ``table``, in rule order."""
    found: list[Snippet] = []
    for rule in table.rules:
        for setting, origin in rule.places:
            text = rule.snippet(setting)
            if text is not None:
                found.append(Snippet(rule.kind, setting, text, origin))
    return found


def snippet_problems(
    df: DataFrame, table: Table, beside: Callable[[Callable[[], Any]], Future[Any]] | None = None
) -> list[ConfigError]:
    """What Spark finds wrong with the table's rule snippets (none: nothing to say; no
    RPC without snippets). ``beside`` (a way to run work in a thread of its own): the
    snippets as the aggregate reads them are asked at once, beside their types, as the
    usual case has them all conditions; asked again, after, only when one is not."""

    def counts(found: Sequence[Snippet]) -> list[str | ConfigError]:
        return _alone_on_failure(
            found, lambda s: emit.snippet_counts(df, [x.text for x in s]), _not_per_row
        )

    snippets = snippets_of(table)
    early = beside(lambda: counts(snippets)) if beside is not None and snippets else None
    typed = _alone_on_failure(snippets, lambda s: emit.snippet_types(df, [x.text for x in s]))
    problems = [p for p in typed if isinstance(p, ConfigError)]
    booleans = [s for s, t in zip(snippets, typed, strict=True) if t == "boolean"]
    for s, t in zip(snippets, typed, strict=True):
        if isinstance(t, str) and t != "boolean":
            problems.append(_error(s, f"{_words(s)} is {_a(t)}, not a condition (a boolean)"))
    counted = early.result() if early is not None else None
    if counted is None or len(booleans) < len(snippets):
        counted = counts(booleans)
    problems += [p for p in counted if isinstance(p, ConfigError)]
    aggregates = aggregates_of(table)
    computed = _alone_on_failure(
        aggregates, lambda s: emit.snippet_aggregates(df, [x.text for x in s])
    )
    problems += [p for p in computed if isinstance(p, ConfigError)]
    return sorted(problems, key=lambda e: (e.origin.line or 0) if e.origin else 0)


def aggregates_of(table: Table) -> list[Snippet]:
    """Every metric of ``table`` that is a SQL aggregate the config wrote, in rule order."""
    return [
        Snippet(rule.kind, "aggregate", rule.check.metric.text, rule.place("expression"))
        for rule in table.rules
        if isinstance(rule.check, MetricCheck) and isinstance(rule.check.metric, SqlMetric)
    ]


def _does_not_run(s: Snippet, exc: BaseException) -> str:
    return f"{_words(s)} does not run: {in_users_text(exc, s.text, 1)}"


def _not_per_row(s: Snippet, exc: BaseException) -> str:
    # Spark's words here are about the aggregate assay reads the condition in
    return (
        f"{_words(s)} is not a condition on one row: it may not use an aggregate or window function"
    )


def _alone_on_failure(
    snippets: Sequence[Snippet],
    analyse: Callable[[Sequence[Snippet]], Sequence[str]],
    said: Callable[[Snippet, BaseException], str] = _does_not_run,
) -> list[str | ConfigError]:
    """``analyse`` of all the snippets at once; when Spark refuses the batch, of each alone
    (its answer, or the error at its setting)."""
    if not snippets:
        return []
    try:
        return list(analyse(snippets))
    except Exception:  # noqa: BLE001 - each alone below names the one at fault
        pass
    out: list[str | ConfigError] = []
    for s in snippets:
        try:
            out.append(analyse([s])[0])
        except Exception as exc:  # noqa: BLE001 - the user's text, reported at its place
            out.append(_error(s, said(s, exc)))
    return out


def _error(s: Snippet, message: str) -> ConfigError:
    hint = (
        'an aggregate in Spark SQL over the table\'s columns, such as "avg(price * qty)"'
        if s.setting == "aggregate"
        else "a row condition in Spark SQL over the table's columns, such as \"status = 'shipped'\""
    )
    return ConfigError(f"{s.rule}: {message}", origin=s.origin, hint=hint)


def _words(s: Snippet) -> str:
    return f"{SETTING_WORDS.get(s.setting, s.setting)} {s.text!r}"


def _a(type_name: str) -> str:
    return f"an {type_name}" if type_name[:1] in "aeiou" else f"a {type_name}"

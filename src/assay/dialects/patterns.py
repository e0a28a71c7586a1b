"""The regexes of a suite's rules that Java cannot compile, found without Spark: each is
read by :mod:`assay.grammar.java_regex`, which says what ``java.util.regex.Pattern`` says,
so ``assay check`` refuses what ``assay run`` would (exit 2 at the rule, before any
session). A run still has the server compile every pattern (``executor.prepare``)."""

from __future__ import annotations

from collections.abc import Iterable

from assay.errors import ConfigError
from assay.grammar.java_regex import java_regex_error
from assay.ir.expr import patterns_of
from assay.ir.rules import expressions_of
from assay.ir.suite import Table

HINT = "patterns are Java regular expressions (java.util.regex.Pattern)"


def pattern_problems(tables: Iterable[Table]) -> list[ConfigError]:
    """One error per rule and regex of its that Java refuses, at the rule."""
    problems: list[ConfigError] = []
    for table in tables:
        for rule in table.rules:
            patterns = dict.fromkeys(
                p for expr in expressions_of(rule.check) for p in patterns_of(expr)
            )
            for pattern in patterns:
                refused = java_regex_error(pattern)
                if refused is None:
                    continue
                message = (
                    f"{rule.kind}: the regular expression {pattern!r} is not one Java can"
                    f" compile: {refused.text}"
                )
                problems.append(ConfigError(message, origin=rule.origin, hint=HINT))
    return problems

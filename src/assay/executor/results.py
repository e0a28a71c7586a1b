"""A rule's result event as the run's policy leaves it: whether it fails the run, or why
not. Every rule's result passes here, the fused rules' (:mod:`assay.executor.table`) and
the validator functions' (:mod:`assay.executor.validators`) alike."""

from __future__ import annotations

import dataclasses

from assay.ir.rules import Rule
from assay.ir.suite import RunPolicy
from assay.report.events import RuleResult


def judged(policy: RunPolicy, rule: Rule, result: RuleResult) -> RuleResult:
    """The result with what the policy makes of it: whether it fails the run, or why not."""
    if result.passed or result.severity == "error":
        return result
    if policy.blocks(rule):
        return dataclasses.replace(result, blocking=True)
    return dataclasses.replace(result, waiver=policy.waiver(rule))

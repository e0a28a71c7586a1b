"""A native rule written in another dialect's words (docs/config.md, "A rule in its
dialect's words"): a rule entry whose one key names the dialect and holds the rule as that
dialect writes it, read by that dialect's own reader, so its semantics and its result's
details (``details.great_expectations``, ``details.soda``, ``details.dqx``) are the
dialect's::

    rules:
      - great_expectations: {type: expect_column_values_to_not_be_null, kwargs: {column: id}}
      - data_validator: {type: nullCheck, column: name, threshold: "1"}
      - metorikku: {isComplete: {column: name, level: error}}
      - sodacl: {missing_count(email) = 0: {}}
        filter: "ordered_on < DATE '2024-07-01'"      # a Soda filter section's where
      - dqx: {criticality: warn, check: {function: is_not_null, arguments: {column: id}}}
        inputs: {customers: data/customers.parquet}     # the frames a check reads

This is what ``assay convert`` writes where no native rule type says what the dialect
means (:mod:`assay.conversion`). The readers are registered into the catalogue's
:data:`~assay.dialects.catalogue.WORDED` when this module is imported (by the dialect
registry), as plugins register rule types, so the catalogue imports no dialect.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

from assay.config.node import Node
from assay.dialects import (
    catalogue,
    dqx,
    great_expectations,
    metorikku_checks,
    soda,
    soda_checks,
    soda_group,
)
from assay.dialects.base import Context, LoadOptions
from assay.dialects.data_validator.checks import build_check
from assay.ir.expr import Expr, Sql, all_of
from assay.ir.rules import Rule
from assay.ir.sources import Source

BESIDE: dict[str, frozenset[str]] = {
    "great_expectations": frozenset(),
    "data_validator": frozenset(),
    "metorikku": frozenset(),
    "sodacl": frozenset({"filter", "filters", "inputs"}),
    "dqx": frozenset({"inputs"}),
}
"""The dialects whose rules a native table takes in their own words, and the keys each
takes beside the rule (``filter``: a Soda filter section's ``where``; ``filters``: the
partition filters the check names, by their section's name, ``twin [big]: <where>``;
``inputs``: the sources of the datasets or DataFrames the rule reads, as ``--input
NAME=SOURCE``)."""


def worded_rule(key: str, node: Node) -> Rule:
    """The rule of a native entry ``{key: rule, ...}`` (``key`` in :data:`BESIDE`)."""
    node.check_keys({key, *BESIDE[key]})
    inner = node.require(key)
    return READERS[key](inner, node)


def _great_expectations(inner: Node, node: Node) -> Rule:
    return great_expectations.expectation_rule(inner)


def _data_validator(inner: Node, node: Node) -> Rule:
    return build_check(inner)


def _metorikku(inner: Node, node: Node) -> Rule:
    rule, _ = metorikku_checks.dq_check(inner, None)
    return rule


def _context(node: Node) -> Context:
    """A context whose ``--input`` values are the entry's ``inputs``."""
    inputs: dict[str, str] = {}
    given = node.get("inputs")
    if given is not None:
        for name, value in given.as_mapping("a mapping of name to a table or path").items():
            inputs[name] = value.as_str("a catalog table or a path")
    base = Path(node.origin.file).resolve().parent
    return Context(file=node.origin.file, base_dir=base, options=LoadOptions(inputs=inputs))


def _sodacl(inner: Node, node: Node) -> Rule:
    ctx = _context(node)

    def resolve(at: Node, text: str) -> str:
        if "${" in text:
            raise at.error(f"{text!r}: a variable; write its value")
        return text

    def source_of(at: Node, name: str) -> Source:
        if name not in ctx.options.inputs:
            raise at.error(f"dataset '{name}' is not given", hint=f"add inputs: {{{name}: ...}}")
        return soda.dataset_source(name, at, ctx)

    dataset = soda_checks.Dataset(resolve, source_of, "", _partition_filters(node.get("filters")))
    got = soda_checks.entry(inner, dataset)
    if got.text == "group by":
        rule = soda_group.one_group_rule(got, dataset)
    else:
        rule = soda_checks.check_rule_of(got, dataset)
    where = node.get("filter")
    if where is None:
        return rule
    text = Sql(where.as_str("a SQL predicate"))
    both = all_of(text, rule.filter) if rule.filter is not None else text
    return dataclasses.replace(rule, filter=both)


_PARTITION = re.compile(r"\s*(?P<name>[^\s\[\]]+)\s*\[(?P<part>[^\]]+)\]\s*")


def _partition_filters(node: Node | None) -> dict[tuple[str, str], Expr]:
    """``filters: {"twin [big]": "<where>"}``: a SodaCL file's ``filter twin [big]``
    sections, for the check beside them that names a dataset's partition."""
    if node is None:
        return {}
    filters: dict[tuple[str, str], Expr] = {}
    for key, value in node.as_mapping("the partition filters, 'dataset [name]: where'").items():
        found = _PARTITION.fullmatch(key)
        if found is None:
            raise value.error(f"'{key}' is not a partition filter's name: 'dataset [name]'")
        filters[(found["name"], found["part"].strip())] = Sql(value.as_str("a SQL predicate"))
    return filters


def _dqx(inner: Node, node: Node) -> Rule:
    rules = dqx.check_rules(inner, _context(node))
    if len(rules) != 1:
        raise inner.error("a DQX check here runs once: for_each_column names one column")
    return rules[0]


READERS: dict[str, Callable[[Node, Node], Rule]] = {
    "great_expectations": _great_expectations,
    "data_validator": _data_validator,
    "metorikku": _metorikku,
    "sodacl": _sodacl,
    "dqx": _dqx,
}


def register() -> None:
    """Hand the catalogue the readers (idempotent)."""
    for key in BESIDE:
        catalogue.WORDED[key] = worded_rule


register()

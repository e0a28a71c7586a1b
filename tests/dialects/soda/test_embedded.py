"""SodaCL checks written in a native table (``sodacl:``, what ``assay convert`` writes
where no native rule type says the same): a ``group by`` of one check, and a row count
comparison with another dataset's partition given its filter beside it (``filters``).
Read without Spark: each loads to the rule its SodaCL file gives."""

from __future__ import annotations

from tests.dialects.helpers import errors, load, write
from tests.dialects.soda.test_reading import rules

ORDERS = "orders.parquet"


def native(tmp_path, entry: str):
    text = f"""
    tables:
      - name: tricky
        source: {{path: {ORDERS}}}
        rules:
          - {entry}
    """
    return write(tmp_path, text, "native.yaml")


GROUP = (
    'sodacl: {"group by": {query: "SELECT status, avg(amount) AS avg_amount FROM tricky '
    'GROUP BY status", fields: [status], checks: [%s]}}'
)


def test_a_group_by_of_one_check_is_the_rule_its_checks_file_gives(tmp_path):
    (embedded,) = load(native(tmp_path, GROUP % '{"avg_amount > 50": {name: avg}}')).tables[0].rules
    (original,) = rules(
        tmp_path,
        """
        checks for tricky:
          - group by:
              query: SELECT status, avg(amount) AS avg_amount FROM tricky GROUP BY status
              fields: [status]
              checks:
                - avg_amount > 50:
                    name: avg
        """,
        inputs={"tricky": ORDERS},
    )
    assert (embedded.kind, embedded.check, embedded.name) == (
        original.kind,
        original.check,
        original.name,
    )


def test_a_group_by_of_two_checks_is_refused_at_its_place(tmp_path):
    said = errors(
        native(tmp_path, GROUP % '{"avg_amount > 50": {name: a}}, {"avg_amount < 90": {name: b}}')
    )
    assert "native.yaml:6 tables[0].rules[0].sodacl" in said
    assert "this group by holds 2 checks, each a rule: a 'sodacl:' entry is one" in said


def test_a_partition_comparison_reads_its_filter_beside_it(tmp_path):
    check = 'sodacl: "row_count same as twin [big]"'
    given = '{"twin [big]": "amount > 10"}'
    inputs = f"inputs: {{twin: {ORDERS}}}"
    path = native(tmp_path, f"{check}\n            filters: {given}\n            {inputs}")
    (rule,) = load(path).tables[0].rules
    reference = rule.reference
    assert reference is not None and "WHERE amount > 10" in reference.source.query
    missing = errors(native(tmp_path, f"{check}\n            {inputs}"))
    assert "filter not declared: [big]" in missing
    bad = errors(
        native(tmp_path, f"{check}\n            filters: {{twin: x}}\n            {inputs}")
    )
    assert "'twin' is not a partition filter's name: 'dataset [name]'" in bad

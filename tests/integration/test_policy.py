"""A rule's verdict, its level and the run's policy are three different things.

``passed`` says whether the condition held, ``severity`` what the outcome means, and the
policy (``on_failure``, ``--exitErrorOnFail``) only which failures fail the run. The same
rules on the same data give the same verdicts under every policy.
"""

from __future__ import annotations

import pytest

from tests.helpers import run_config, validate_event, write_config

pytestmark = pytest.mark.spark

DATA = "SELECT * FROM VALUES (1, 'a', 10), (2, NULL, 20), (3, 'c', NULL) AS t(id, name, amount)"
RULES = """
        rules:
          - {type: not_null, column: name}
          - {type: not_null, column: amount, level: warn}
          - {type: missing_percent, column: name, must_be: "< 50%", warn: "< 10%"}
          - {type: not_null, column: id}
"""
# (passed, severity) per rule: the same under every policy
VERDICTS = [(False, "fail"), (False, "warn"), (True, "warn"), (True, "pass")]


def _config(tmp_path, top: str = "", table: str = ""):
    text = (
        f"""
    {top}
    tables:
      - name: t
        source: {{sql: "{DATA}"}}
        keys: [id]
        {table}"""
        + RULES
    )
    return write_config(tmp_path, text)


@pytest.mark.parametrize(
    ("top", "table", "blocking", "waiver"),
    [
        ("", "", True, None),
        ("on_failure: fail", "", True, None),
        ("on_failure: warn", "", False, "on_failure: warn"),
        ("", "on_failure: warn", False, "on_failure: warn"),
        ("on_failure: warn", "on_failure: fail", True, None),
    ],
    ids=["default", "file-fail", "file-warn", "table-warn", "table-overrides-file"],
)
def test_policy_changes_only_the_exit_code(spark, tmp_path, top, table, blocking, waiver):
    got = run_config(spark, _config(tmp_path, top, table))
    for event in got.events:
        validate_event(event)
    assert [(r["passed"], r["severity"]) for r in got.results] == VERDICTS
    assert [r["failed_count"] for r in got.results] == [1, 1, 1, 0]
    first, warned, metric, _ = got.results
    assert (first["blocking"], first["waiver"]) == (blocking, waiver)
    # a failed rule at level warn never fails the run, whatever the policy
    assert (warned["blocking"], warned["waiver"]) == (False, "level warn")
    # a metric's own warn threshold: the condition held, nothing to waive
    assert (metric["blocking"], metric["waiver"]) == (False, None)
    summary = got.summary
    assert summary["status"] == "FAIL" and summary["failed"] == 1 and summary["warned"] == 2
    assert summary["blocking"] == int(blocking) == got.tables()["t"]["blocking"]
    assert summary["exit_code"] == (1 if blocking else 0)
    if blocking:
        assert summary["exit_reason"] == (
            "exit 1: 1 failed rule fails the run (t tables[0].rules[0]); "
            "1 failed rule does not fail it (1 under level warn)"
        )
    else:
        assert summary["exit_reason"] == (
            "exit 0: no failed rule fails the run; "
            "2 failed rules do not fail it (1 under on_failure: warn, 1 under level warn)"
        )


def test_warnings_alone_exit_zero_and_say_so(spark, tmp_path):
    path = write_config(
        tmp_path,
        f"""
        tables:
          - name: t
            source: {{sql: "{DATA}"}}
            rules:
              - {{type: missing_percent, column: name, must_be: "< 50%", warn: "< 10%"}}
        """,
    )
    got = run_config(spark, path)
    assert (got.results[0]["passed"], got.results[0]["severity"]) == (True, "warn")
    assert got.summary["status"] == "PASS" and got.summary["exit_code"] == 0
    assert got.summary["exit_reason"] == "exit 0: every rule passed (with warnings)"


def test_a_policy_value_outside_fail_and_warn_is_refused(tmp_path):
    from assay.config import load_suite
    from assay.errors import ConfigErrors

    path = _config(tmp_path, "on_failure: skip")
    with pytest.raises(ConfigErrors) as info:
        load_suite([path])
    (error,) = info.value.errors
    assert "expected 'fail' or 'warn', got 'skip'" in str(error)
    assert error.origin is not None and error.origin.path == "on_failure"

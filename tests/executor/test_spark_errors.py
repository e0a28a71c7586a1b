"""A table's error blames what failed: Spark's own error keeps its words, a fault of
assay's own code says it is one (never "Spark failed")."""

from __future__ import annotations

import pytest

from assay.executor.deadline import PlanTimeout
from assay.executor.spark_errors import failure_sentence, internal
from assay.executor.stages.submitter import aggregate_values
from assay.planner.measures import RowCount
from assay.planner.plan import AggregatePlan, ScanAggregate, Slot


def _raised_in_assay() -> KeyError:
    plan = AggregatePlan((ScanAggregate((Slot("m000_rows", RowCount(), ()),)),), (), ())
    with pytest.raises(KeyError) as raised:
        aggregate_values(plan, {"another_output": 1})  # a row without the slot's output
    return raised.value


def test_a_fault_of_assay_is_named_an_internal_error():
    exc = _raised_in_assay()
    assert internal(exc)
    sentence = failure_sentence(exc, server="s", table="t", step="aggregate plan")
    assert sentence.startswith("assay failed during table t's aggregate plan, an internal error")
    assert "KeyError: 'm000_rows'" in sentence and "Spark" not in sentence


def test_errors_raised_elsewhere_keep_their_own_words():
    class AnalysisException(Exception):
        pass

    try:
        raise AnalysisException("[DIVIDE_BY_ZERO] Division by zero. SQLSTATE: 22012")
    except AnalysisException as exc:  # raised here, in the tests: not assay's code
        spark = exc
    assert not internal(spark)
    assert failure_sentence(spark, server="s", table="t", step="aggregate plan") == (
        "Spark failed during table t's aggregate plan: [DIVIDE_BY_ZERO] Division by zero."
        " SQLSTATE: 22012"
    )
    timeout = PlanTimeout(3.0)
    assert not internal(timeout)
    assert failure_sentence(timeout, server="s", table="t", step="aggregate plan").startswith(
        "table t's aggregate plan did not finish"
    )


@pytest.mark.spark
def test_a_task_failure_is_one_sentence_without_java_frames(spark, tmp_path):
    """A write whose tasks fail (here: a file where a task makes its attempt's directory)
    carries its executor's Java stack trace inside Spark's message: the message says the
    exception that failed the task, in one line."""
    target = tmp_path / "out"
    (target / "_temporary" / "0").mkdir(parents=True)
    (target / "_temporary" / "0" / "_temporary").write_text("a file, not a directory\n")
    with pytest.raises(Exception) as raised:  # noqa: PT011 - whatever pyspark raises
        spark.range(3).write.mode("append").parquet(str(target))
    assert "\tat org.apache.hadoop" in str(raised.value)  # what Spark says
    said = failure_sentence(raised.value, server="s", table="t", step="writes")
    assert said == (
        "Spark failed during table t's writes: a Spark task failed:"
        " (org.apache.hadoop.fs.ParentNotDirectoryException) Parent path is not a directory:"
        f" file:{target}/_temporary/0/_temporary"
    )

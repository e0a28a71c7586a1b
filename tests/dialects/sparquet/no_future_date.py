"""The custom validator of sparquet's docs, as an assay plugin (``--plugin``): rows whose
``column`` is after today fail. The builder returns a row predicate, so the planner counts
it in the table's single aggregate pass."""

from __future__ import annotations

import assay
from assay.ir import Col, Compare, Op, Sql


def no_future_date(params):
    return Compare(Op.GT, Col(params.column), Sql("current_date()"))


assay.register_rule(
    "no_future_date", no_future_date, keys=("column",), column_kind="temporal", replace=True
)

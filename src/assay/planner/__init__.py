"""The planner: a pure compiler from a table's rules to a :class:`TablePlan`."""

from __future__ import annotations

from assay.planner.lower import plan_detail, plan_table
from assay.planner.plan import TablePlan

__all__ = ["TablePlan", "plan_detail", "plan_table"]

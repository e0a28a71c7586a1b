"""Every DQX check function assay runs (databricks-labs-dqx 0.17, ``check_funcs.py``;
docs/dialects.md "DQX checks files"), by DQX's name, gathered from the modules that map
them with DQX's semantics: the row-level ones on a value (:mod:`assay.dialects.dqx_rows`),
on its text (:mod:`assay.dialects.dqx_text`), on a JSON schema
(:mod:`assay.dialects.dqx_json_schema`), on IPv6 addresses
(:mod:`assay.dialects.dqx_ipv6`) and on ISO codes (:mod:`assay.dialects.dqx_codes`), the
dataset-level ones on keys and queries (:mod:`assay.dialects.dqx_dataset`), on the
table's schema (:mod:`assay.dialects.dqx_schema`), on
aggregates (:mod:`assay.dialects.dqx_aggregates`) and on time windows
(:mod:`assay.dialects.dqx_windows`); their arguments are read by
:mod:`assay.dialects.dqx_args`. Dataset checks map onto assay's uniqueness check and the
aggregate pass, folded into the table's one scan.
"""

from __future__ import annotations

from assay.dialects import (
    dqx_aggregates,
    dqx_codes,
    dqx_dataset,
    dqx_ipv6,
    dqx_json_schema,
    dqx_rows,
    dqx_schema,
    dqx_text,
    dqx_windows,
)
from assay.dialects.dqx_args import Function
from assay.ir.rules import TypeFamily

FUNCTIONS: dict[str, Function] = {
    **dqx_rows.FUNCTIONS,
    **dqx_text.FUNCTIONS,
    **dqx_json_schema.FUNCTIONS,
    **dqx_schema.FUNCTIONS,
    **dqx_ipv6.FUNCTIONS,
    **dqx_codes.FUNCTIONS,
    **dqx_dataset.FUNCTIONS,
    **dqx_aggregates.FUNCTIONS,
    **dqx_windows.FUNCTIONS,
}
"""Every DQX check function assay runs, by DQX's name; any other is a config error."""

OLD_FUNCTIONS = {
    "value_is_in_list": "is_in_list",
    "value_is_not_null_and_is_in_list": "is_not_null_and_is_in_list",
    "not_in_future": "is_not_in_future",
    "not_in_near_future": "is_not_in_near_future",
    "not_less_than": "is_not_less_than",
    "not_greater_than": "is_not_greater_than",
}
"""DQX's first function names (``col_functions.py``), read as the current ones."""


NOT_RUN: dict[str, str] = {
    "compare_datasets": "use assay's comparisons (assay compare, docs/compare.md), whose "
    "semantics differ from DQX's (tolerances, pairing of duplicated keys, per-row results)",
    "aggr_matches_dataset": "use assay's comparisons (assay compare, docs/compare.md), whose "
    "semantics differ from DQX's (tolerances: DQX's absolute OR relative to the larger value)",
    "has_no_aggr_outliers": "its outlier bounds are not computed by assay",
}
"""DQX functions refused with a reason (any other unknown name is refused too)."""


def family_of(function: str) -> TypeFamily:
    """The kind of column a check reads (its names are checked to exist before any scan;
    DQX's own coercions decide the rest)."""
    del function
    return "any"

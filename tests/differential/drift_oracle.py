"""``drift`` in the differential suite: the rules generated for each table, and the
oracle's number for them computed otherwise than assay does: both sides' values collected
by plain SQL (``collect_list``), then binned by ``numpy.histogram`` and measured by scipy
(``ks_2samp``, ``wasserstein_distance``, ``entropy``, ``jensenshannon``,
``chi2_contingency``) and Soda's PSI formula, in Python."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from tests.differential.tricky import COLUMNS, Table, quote

NUMERIC = [n for n, t in COLUMNS if t in ("int", "bigint", "float", "double")]
CATEGORICAL = [n for n, t in COLUMNS if t in ("int", "bigint", "string")]
METHODS = ("psi", "js", "kl", "ks", "ks_p_value", "wasserstein", "chi_square", "chi_square_p_value")


def drift_rules(table: Table) -> list[dict[str, Any]]:
    """Two drift rules against the table's own view with about a third of its rows (by
    a hash) left out, ONE referenced source for both (so their branch is the merged
    one: both columns stacked from one read of each side): a numeric column over a few
    bins, and a categorical one (at times the same column). Drawn from a generator of
    their own (the other rules' draws are unchanged)."""
    rng = random.Random(f"drift {table.name}")
    view = f"assay_diff_{table.name}"
    number, category = rng.choice(NUMERIC), rng.choice(CATEGORICAL)
    kept = f"SELECT * FROM {view} WHERE xxhash64(id) % 3 <> 0"
    return [
        {
            "type": "drift",
            "column": number,
            "method": rng.choice(METHODS),
            "bins": rng.choice([1, 3, 10]),
            "references": {"sql": kept, "column": number},
            "must_be": rng.choice(["< 0.05", "> 0.5", "< 1"]),
        },
        {
            "type": "drift",
            "column": category,
            "method": rng.choice(["psi", "js", "kl", "chi_square", "chi_square_p_value"]),
            "bins": "values",
            "references": {"sql": kept, "column": category},
            "must_be": rng.choice(["< 0.05", "> 0.5", "< 1"]),
        },
    ]


def values_sql(rule: dict[str, Any]) -> tuple[str, str]:
    """The plain SQL collecting each side's values (an aggregate over ``w``, a scalar
    subquery over the reference), numbers as doubles."""
    numeric = rule["bins"] != "values"
    c = quote(rule["column"])
    ours = f"CAST({c} AS DOUBLE)" if numeric else c
    ref = quote(rule["references"]["column"])
    theirs = f"CAST({ref} AS DOUBLE)" if numeric else ref
    sql = rule["references"]["sql"]
    return (
        f"collect_list({ours})",
        f"(SELECT collect_list({theirs}) FROM ({sql}) AS _drift_ref)",
    )


def drift_value(rule: dict[str, Any], table: list[Any], reference: list[Any]) -> float | None:
    """The oracle's number for a drift rule (None: a side has nothing to compare)."""
    from scipy import stats  # here: every worker collects this module, few call it

    method = rule["method"]
    if rule["bins"] == "values":
        table = [v for v in table if v is not None]
        reference = [v for v in reference if v is not None]
        keys = sorted({_category(v) for v in [*table, *reference]}, key=repr)
        t = np.array([sum(1 for v in table if _category(v) == k) for k in keys])
        r = np.array([sum(1 for v in reference if _category(v) == k) for k in keys])
        if not t.sum() or not r.sum():
            return None
        return _binned(method, t, r)
    tf = [v for v in table if v is not None and math.isfinite(v)]
    rf = [v for v in reference if v is not None and math.isfinite(v)]
    if not tf or not rf:
        return None
    if method in ("ks", "ks_p_value"):
        result = stats.ks_2samp(tf, rf)
        return float(result.statistic if method == "ks" else result.pvalue)
    if method == "wasserstein":
        return float(stats.wasserstein_distance(tf, rf))
    span = (min(tf + rf), max(tf + rf))
    if not math.isfinite(span[1] - span[0]):
        return None  # assay's decision: no bins (numpy refuses 2+, overflows on 1)
    try:
        t = np.histogram(tf, bins=rule["bins"], range=span)[0]
        r = np.histogram(rf, bins=rule["bins"], range=span)[0]
    except ValueError:  # a range overflowing doubles, or too narrow for its bins
        return None
    return _binned(method, t, r)


def _category(value: Any) -> Any:
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


def _binned(method: str, t: np.ndarray, r: np.ndarray) -> float:
    from scipy import stats
    from scipy.spatial import distance

    if method.startswith("chi_square"):
        kept = (t + r) > 0
        if kept.sum() < 2:
            return 0.0 if method == "chi_square" else 1.0
        result = stats.chi2_contingency(np.array([t[kept], r[kept]]))
        return float(result.statistic if method == "chi_square" else result.pvalue)
    if method == "js":
        return float(distance.jensenshannon(t / t.sum(), r / r.sum()))
    p, q = _soda_shares(t), _soda_shares(r)
    if method == "kl":
        return float(stats.entropy(p, q))
    return float(np.sum((p - q) * np.log(p / q)))  # Soda's PSIAlgorithm


def _soda_shares(counts: np.ndarray) -> np.ndarray:
    shares = counts / counts.sum()
    return shares + np.where(shares == 0, 10**-5, 0)

"""Generated rules for a tricky table: every native rule kind (but ``schema``) on every
column it applies to, with bounds, lists and patterns drawn from the table's own values.

Two phases, so thresholds sit around the true values: :func:`base_rules` draws the rules
without tolerance or threshold; the oracle measures them (one query); :func:`finish`
then gives each base rule its tolerances (row-level rules) or thresholds (metrics) at,
just inside and just outside the measured value.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from tests.differential.drift_oracle import drift_rules
from tests.differential.oracle import ROW_KINDS, Oracle
from tests.differential.tricky import COLUMNS, POOLS, Table, f32_text, quote

TYPES = dict(COLUMNS)
NUMERIC = [
    n for n, t in COLUMNS if t in ("int", "bigint", "float", "double") or t.startswith("decimal")
]
STRINGS = [n for n, t in COLUMNS if t == "string"]
TEMPORAL = [n for n, t in COLUMNS if t in ("date", "timestamp", "timestamp_ntz")]
BOOLEAN = [n for n, t in COLUMNS if t == "boolean"]
FORMATS = ["boolean", "integer", "positive_integer", "negative_integer", "decimal",
           "percentage", "alpha", "alphanumeric", "hex", "cep", "zip", "uuid", "date",
           "date_us", "date_eu", "time", "ipv4", "email", "cpf", "credit_card"]  # fmt: skip
UTC = dt.timezone.utc
EXTRA_NUMBERS: dict[str, list[int | float]] = {
    "id": [0, 2**63, -(2**63) - 1],
    "i": [0, 0.5, 2**31, -(2**31) - 1],
    "b": [0, 1.5, 2**63, -(2**63) - 1, 9223372036854775807],
    "f": [0, 0.5, -0.0, 0.1],
    "dbl val": [0, 0.1, -0.0, 1e-7],
    "dec.38": [0.1, 0, 1e-18, -1e-18, 0.3],
    "dx": [1e20, -1e20, 0, 1e-18],
    "amt": [0.1, 0.005, 0, 0.3, 1e13, -0.015],
}


# --- values a rule can be written with ----------------------------------------------------


def _fits_exact(x: int | float) -> bool:
    """A number an exact (decimal) SQL literal of at most 38 digits can hold."""
    text = format(Decimal(repr(x)) if isinstance(x, float) else Decimal(x), "f")
    return len(text.replace("-", "").replace(".", "").lstrip("0")) <= 38 and len(text) <= 40


def rule_numbers(column: str, table: Table) -> list[int | float]:
    """Numbers to write bounds and lists with: the column's values as a config can
    write them (a DECIMAL value as the float YAML would read), their neighbours, and
    the column's extremes."""
    t = TYPES[column]
    out: list[int | float] = []
    for v in table.values(column) or POOLS.get(column, [1, 2, 3]):
        if isinstance(v, float):
            if not math.isfinite(v):
                continue
            if t == "float":
                out += [float(f32_text(v)), v]
            else:
                out.append(v)
        elif isinstance(v, Decimal):
            out.append(float(v))
            if v == v.to_integral_value():
                out.append(int(v))
        else:
            out += [v, v + 1, v - 1]
    out += EXTRA_NUMBERS.get(column, [])
    if t == "float":
        out = [x for x in out if abs(x) < 1e30 and (x == 0 or abs(x) > 1e-30)
               and (isinstance(x, float) or abs(x) < 2**24)]  # fmt: skip
    if t.startswith("decimal") or t in ("int", "bigint"):
        out = [x for x in out if _fits_exact(x)]
    return out


def _iso(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        dt.datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", value.strip()))
    except ValueError:
        return bool(re.fullmatch(r"\s*\d{4}-\d{2}-\d{2}\s*", value))
    return True


def _var_safe(text: str) -> bool:
    """No ``$name``/``${`` a config would substitute, no ``$$``."""
    return not re.search(r"\$[A-Za-z_{$]", text)


def rule_strings(column: str, table: Table) -> list[str]:
    values = table.values(column) or POOLS[column]
    return [v for v in values + POOLS[column][:8] if not _iso(v) and _var_safe(v)]


def rule_temporals(column: str, table: Table, rng: random.Random) -> list[Any]:
    """Dates, timestamps (naive and UTC) and ISO strings around the column's values."""
    values = table.values(column) or POOLS[column]
    out: list[Any] = []
    for v in values:
        if isinstance(v, dt.datetime):
            out += [v, v + dt.timedelta(microseconds=1), v - dt.timedelta(microseconds=1),
                    v.date()]  # fmt: skip
            if v.tzinfo is None:
                out.append(v.replace(tzinfo=UTC))
                out.append(v.isoformat())
            else:
                out.append(v.isoformat().replace("+00:00", "Z"))
        else:
            out += [v, v + dt.timedelta(days=1) if v.year < 9999 else v,
                    dt.datetime(v.year, v.month, v.day, 12), v.isoformat()]  # fmt: skip
    return out


def _fits_temporal(value: Any, spark_type: str) -> bool:
    """Values compared in a temporal column's type without doubt: no time of day for a
    date column, no offset for a timestamp_ntz one."""
    if spark_type == "date":
        return not isinstance(value, dt.datetime) and not (
            isinstance(value, str) and len(value) > 10
        )
    if spark_type == "timestamp_ntz":
        if isinstance(value, dt.datetime):
            return value.tzinfo is None
        return not (isinstance(value, str) and value.endswith(("Z", "+00:00")))
    return True


def _comparable(value: Any) -> Any:
    if isinstance(value, str) and _iso(value):
        value = dt.datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", value.strip()))
    if isinstance(value, dt.datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    return value


def _pair(rng: random.Random, values: list[Any]) -> tuple[Any, Any]:
    a, b = rng.choice(values), rng.choice(values)
    return (a, b) if _comparable(a) <= _comparable(b) else (b, a)


# --- regular expressions ------------------------------------------------------------------

_META = set("\\^$.|?*+()[]{}")


def jquote(text: str) -> str:
    """``text`` as a Java regex matching it literally."""
    return "".join("\\" + ch if ch in _META else ch for ch in text)


FIXED_PATTERNS = [
    r"^[a-z]+$", r"\A[a-z]+\z", r"^\s", r"\s$", r"^\p{L}+$", r"\d", r"^$", r".", r"(?i)^y",
    r"\R", r"^[A-Z]", r"[\u2028\u2029\u0085]", r"^.+$", r"^(true|false)$", r"^\S+$", r"a|",
    r"[^a-z]", r"^A|B$", r"A|B$", r"^a|b", r"\z", r"^[[:alpha:]]", r"^\w+$", r"(?s)^.*$",
    r"x*", r"^.$", r"\$", r"\|", r"^\d{1,3}$", r"^[ -~]{2,}$", r"^\w{0,4}$",
]  # fmt: skip


def pattern(rng: random.Random, values: list[str]) -> str:
    """A Java regex: a fixed tricky one, or one built from the column's values
    (prefixes, suffixes) with anchors, top-level alternations and classes."""
    words = [v for v in values if v] or ["a", "b"]
    if rng.random() < 0.35:
        return rng.choice(FIXED_PATTERNS)
    p = jquote(rng.choice(words)[: rng.randint(1, 2)])
    s = jquote(rng.choice(words)[-rng.randint(1, 2) :])
    chars = "".join(sorted({ch for ch in rng.choice(words)[:3] if ch.isalnum()})) or "a"
    form = rng.choice([
        "^{p}", "{s}$", "^{p}|{s}$", "{p}|{s}$", "^{p}|{s}", "^({p}|{s})$", "\\A{p}",
        "{s}\\z", "^{p}.*{s}$", "[{c}]", "[^{c}]", "^[{c}]+$", "(?:{p})|(?:{s})$",
        "^[{c}]{{1,3}}$", "^[{c} 0-9]{{0,2}}$", "^[{c}]{{2,}}$",
    ])  # fmt: skip
    out = form.format(p=p, s=s, c=chars)
    return out if _var_safe(out) else "^a"


# --- base rules ---------------------------------------------------------------------------


EXPRESSIONS = [
    "`i` >= 0",  # null i: unknown, fails
    "`i` < `b` OR `s` IS NULL",
    "`dbl val` > 0.5 AND NOT isnan(`dbl val`)",
    "`dec.38` <= 0.1",
    "length(`fmt``s`) BETWEEN 1 AND 5",
    "`dátum` >= DATE'2000-01-01'",
    "`bo`",
    "coalesce(`f`, 0) <> 1.5",
]
"""Row conditions for ``expression`` rules: nulls, NaN, decimals, odd names."""


def base_rules(table: Table, rng: random.Random, variants: int) -> list[dict[str, Any]]:
    """Rules without tolerance or threshold for every kind and column."""
    rules: list[dict[str, Any]] = []
    add = rules.append
    names = [n for n, _ in COLUMNS]
    # table-level and multi-column rules
    add({"type": "row_count"})
    add({"type": "has_size"})
    for _ in range(variants):
        add({"type": "expression", "expression": rng.choice(EXPRESSIONS)})
    for _ in range(variants):
        cols = rng.sample(names, rng.randint(2, 3))
        for kind in ("not_null", "unique", "duplicate_count", "duplicate_percent",
                     "distinct_count", "has_uniqueness"):  # fmt: skip
            add({"type": kind, "columns": cols})
    for column in names:
        for kind in ("not_null", "unique", "duplicate_count", "duplicate_percent",
                     "distinct_count", "has_uniqueness", "missing_count", "missing_percent"):  # fmt: skip
            add({"type": kind, "column": column})
        for _ in range(variants):
            add(_listed(rng, "accepted_values", "values", column, table))
            add(_listed(rng, "is_contained_in", "allowed_values", column, table))
            missing = {"type": rng.choice(["missing_count", "missing_percent"]), "column": column,
                       "missing_values": _values(rng, column, table)}  # fmt: skip
            add(missing)
        if column in NUMERIC:
            rules += _numeric(rng, column, table, variants)
        elif column in STRINGS:
            rules += _string(rng, column, table, variants)
        elif column in TEMPORAL:
            rules += _temporal(rng, column, table, variants)
        else:
            for _ in range(variants):
                add(
                    {
                        "type": "column_max_check",
                        "column": column,
                        "value": rng.choice([True, False]),
                    }
                )
                add(
                    {
                        "type": rng.choice(["invalid_count", "invalid_percent"]),
                        "column": column,
                        rng.choice(["valid_values", "invalid_values"]): [rng.choice([True, False])],
                    }
                )
    for _ in range(variants):
        rules += _sql(rng, table)
    rules += _references(rng, table, names)
    rules += drift_rules(table)
    rules += _sketches(rng, names)
    # the column's max itself, as a config writes it (worked out here in Python, with
    # Spark's order: NaN above every number), so the oracle's one query measures it too
    for column in names:
        top = spark_max(table.values(column))
        finite = not (isinstance(top, float) and not math.isfinite(top))
        if top is not None and finite:
            rules.append({"type": "column_max_check", "column": column,
                          "value": _max_value(column, top, table)})  # fmt: skip
    return rules


def _sketches(rng: random.Random, names: list[str]) -> list[dict[str, Any]]:
    """deequ's analyzers beyond plain aggregates: an approximate distinct count and a
    non-null count of every column, a compliance, a correlation of two numeric columns,
    and (a scalar subquery each in the oracle: few) an entropy and a mutual information."""
    out: list[dict[str, Any]] = []
    for column in names:
        out.append({"type": "count", "column": column})
        rule: dict[str, Any] = {"type": "approx_distinct_count", "column": column}
        if rng.random() < 0.5:
            rule["rsd"] = rng.choice([0.005, 0.01, 0.1, 0.39])
        out.append(rule)
    out.append({"type": "compliance", "expression": rng.choice(EXPRESSIONS)})
    out.append({"type": "correlation", "columns": rng.sample(NUMERIC, 2)})
    out.append(
        {
            "type": "correlation",
            "columns": [rng.choice([c for c in NUMERIC if c != "dec.38"]), "dec.38"],
        }
    )
    out.append({"type": "entropy", "column": rng.choice(names)})
    out.append({"type": "mutual_information", "columns": rng.sample(names, 2)})
    return out


def spark_max(values: list[Any]) -> Any:
    """Spark's max of non-null values (NaN above every number); None for none."""
    if not values:
        return None
    if any(isinstance(v, float) and math.isnan(v) for v in values):
        return float("nan")
    return max(values)


def _values(rng: random.Random, column: str, table: Table, other: bool = True) -> list[Any]:
    """A list of values of the column's type, sometimes mixed with other types."""
    t = TYPES[column]
    k = rng.randint(1, 4)
    if column in NUMERIC:
        out = rng.sample(rule_numbers(column, table), k=min(k, len(rule_numbers(column, table))))
        if other and rng.random() < 0.2:
            # numeric text, cast to the column's type (no fraction for an integer column:
            # CAST('0.1' AS INT) is an error in ANSI mode)
            integral = t in ("int", "bigint")
            out.append(rng.choice(["1", "-1"] if integral else ["1", "0.1", "-1"]))
    elif column in STRINGS:
        pool = table.values(column) + POOLS[column]
        out = rng.sample(pool, k=min(k, len(pool)))
        if other and rng.random() < 0.35:
            out += rng.sample([1, 2, 0, 2.5, 1.0, -5, True, False, dt.date(2024, 1, 1)], 2)
    elif column in TEMPORAL:
        out = rng.sample(rule_temporals(column, table, rng), k=k)
        out = [v for v in out if _fits_temporal(v, t)] or [dt.date(2024, 1, 1)]
    else:
        out = [rng.choice([True, False])] + (["true"] if other and rng.random() < 0.3 else [])
    deduped: list[Any] = []
    for v in out:
        if not any(type(v) is type(d) and v == d for d in deduped):
            deduped.append(v)
    return deduped


def _listed(rng: random.Random, kind: str, key: str, column: str, table: Table) -> dict[str, Any]:
    return {"type": kind, "column": column, key: _values(rng, column, table)}


def _numeric(rng: random.Random, column: str, table: Table, variants: int) -> list[dict[str, Any]]:
    t = TYPES[column]
    numbers = rule_numbers(column, table)
    others = [c for c in ("i", "b", "f", "dbl val") if c != column]  # no backtick in a reference
    values = table.values(column)
    sum_safe, avg_safe = _aggregate_safe(t, values)
    out: list[dict[str, Any]] = [{"type": "negative_check", "column": column}]
    for kind in ("min", "max", "stddev", "median"):
        out.append({"type": kind, "column": column})
    quantile = rng.choice([0, 0.1, 0.25, 0.5, 0.95, 1])
    out.append({"type": "percentile", "column": column, "quantile": quantile})
    # approximate: a rank error from several rows (1, 3) to none (10,000 and more), and
    # 60 and 90 between the row count and twice it (48 rows by default), where the
    # error is still one rank
    accuracy = rng.choice([1, 3, 60, 90, 10_000, 1_000_000])
    quantile = rng.choice([0, 0.1, 0.33, 0.5, 0.9, 1])
    out.append({"type": "percentile", "column": column, "quantile": quantile, "accuracy": accuracy})
    out.append({"type": "median", "column": column, "accuracy": accuracy})
    if avg_safe:
        out.append({"type": "avg", "column": column})
        out.append({"type": "colstats", "column": column})
    if sum_safe:
        out.append({"type": "sum", "column": column})
        out.append({"type": "column_sum_check", "column": column})
    for _ in range(variants):
        out.append(_range(rng, column, numbers))
        out.append(_range_check(rng, column, numbers, others))
        out.append({"type": "column_max_check", "column": column, "value": rng.choice(numbers)})
        lo, hi = _pair(rng, numbers)
        options: dict[str, Any] = rng.choice([
            {"valid_min": lo}, {"valid_max": hi}, {"valid_min": lo, "valid_max": hi},
            {"valid_values": _values(rng, column, table, other=False)},
            {"invalid_values": _values(rng, column, table, other=False)},
            {"valid_max": hi, "invalid_values": _values(rng, column, table, other=False)},
        ])  # fmt: skip
        rule = {
            "type": rng.choice(["invalid_count", "invalid_percent"]),
            "column": column,
            **options,
        }
        if rng.random() < 0.3:
            rule["missing_values"] = _values(rng, column, table, other=False)
        out.append(rule)
    return out


def _aggregate_safe(spark_type: str, values: list[Any]) -> tuple[bool, bool]:
    """Whether Spark's own sum / avg of these values cannot overflow (ANSI mode makes
    an overflow an error of the whole plan, in assay and the oracle alike): every
    partial sum stays within the type when the positive and the negative values each
    sum within it."""
    if spark_type == "bigint":
        limit = Decimal(2**63 - 1)
    elif spark_type.startswith("decimal"):
        limit = Decimal("1e20") - Decimal("1e-18")
    else:
        return True, True
    with_context = [Decimal(v) for v in values]
    with localcontext() as ctx:
        ctx.prec = 100
        pos = sum((v for v in with_context if v > 0), Decimal(0))
        neg = sum((v for v in with_context if v < 0), Decimal(0))
    sum_ok = pos <= limit and -neg <= limit
    if spark_type == "bigint":
        return sum_ok, True  # avg of a bigint is a double
    # Spark's decimal avg is DECIMAL(38,22): 16 integer digits
    avg_ok = sum_ok and all(abs(v) < Decimal("1e16") for v in with_context)
    return sum_ok, avg_ok


def _range(rng: random.Random, column: str, values: list[Any]) -> dict[str, Any]:
    lo, hi = _pair(rng, values)
    rule: dict[str, Any] = {"type": "range", "column": column}
    shape = rng.choice(["min", "max", "both", "both"])
    if shape in ("min", "both"):
        rule["min"] = lo
    if shape in ("max", "both"):
        rule["max"] = hi
    inclusive = rng.choice([None, True, False])
    if inclusive is not None:
        rule["inclusive"] = inclusive
    return rule


def _range_check(
    rng: random.Random, column: str, values: list[Any], others: list[str]
) -> dict[str, Any]:
    lo, hi = _pair(rng, values)
    inclusive = rng.choice([None, True, False])
    rule: dict[str, Any] = {"type": "range_check", "column": column}
    shape = rng.choice(["min", "max", "both", "both"] + (["ref"] if others else []))
    if shape in ("min", "both"):
        rule["min_value"] = lo
    if shape in ("max", "both"):
        rule["max_value"] = hi
    if shape == "ref":
        other = rng.choice(others)
        ref = rng.choice([f"`{other}", f"`{other}`"])
        rule[rng.choice(["min_value", "max_value"])] = ref
        if rng.random() < 0.5:
            key = "max_value" if "min_value" in rule else "min_value"
            rule[key] = lo if key == "min_value" else hi
    if ("min_value" in rule and "max_value" in rule and not inclusive
            and not any(isinstance(rule[k], str) and rule[k].startswith("`") for k in ("min_value", "max_value"))
            and _comparable(rule["min_value"]) == _comparable(rule["max_value"])):  # fmt: skip
        inclusive = True  # equal bounds need inclusive: true (else a config error)
    if inclusive is not None:
        rule["inclusive"] = inclusive
    return rule


def _string(rng: random.Random, column: str, table: Table, variants: int) -> list[dict[str, Any]]:
    strings = rule_strings(column, table)
    values = table.values(column) or POOLS[column]
    out: list[dict[str, Any]] = []
    for _ in range(variants):
        out.append({"type": "regex", "column": column, "pattern": pattern(rng, values)})
        out.append({"type": "string_regex_check", "column": column, "regex": pattern(rng, values)})
        lo, hi = sorted(rng.sample(range(0, 7), 2))
        out.append(rng.choice([{"type": "length", "column": column, "min": lo, "max": hi},
                               {"type": "length", "column": column, "min": lo},
                               {"type": "length", "column": column, "max": hi}]))  # fmt: skip
        slc: dict[str, Any] = {"type": "string_length_check", "column": column}
        shape = rng.choice(["min", "max", "both", "ref"])
        if shape in ("min", "both"):
            slc["min_length"] = rng.randint(-2, 4)
        if shape in ("max", "both"):
            slc["max_length"] = rng.randint(max(slc.get("min_length", 0), 0), 8)
        if shape == "ref":
            slc[rng.choice(["min_length", "max_length"])] = "`i"
        out.append(slc)
        # a reference cannot name a column with a backtick (`fmt`s): refer to s only
        out.append(
            _range_check(rng, column, strings, [c for c in STRINGS if c != column and "`" not in c])
        )
        out.append(
            {
                "type": "column_max_check",
                "column": column,
                "value": rng.choice(strings + ["2024-01-01"]),
            }
        )
        options = {}
        for key in rng.sample(["valid_format", "valid_format", "valid_regex", "valid_length",
                               "valid_min_length", "valid_max_length", "valid_values",
                               "invalid_values"], rng.randint(1, 2)):  # fmt: skip
            if key == "valid_format":
                options[key] = rng.choice(FORMATS)
            elif key == "valid_regex":
                options[key] = pattern(rng, values)
            elif key in ("valid_values", "invalid_values"):
                options[key] = _values(rng, column, table)
            else:
                options[key] = rng.randint(0, 5)
        low, high = options.get("valid_min_length"), options.get("valid_max_length")
        if low is not None and high is not None and low > high:
            # bounds out of order are a config error (tests/cli/bad_inputs), not a count
            options["valid_min_length"], options["valid_max_length"] = high, low
        rule = {
            "type": rng.choice(["invalid_count", "invalid_percent"]),
            "column": column,
            **options,
        }
        if rng.random() < 0.4:
            rule["missing_values"] = rng.choice(
                [["", " "], ["N/A", "NULL", "null"], _values(rng, column, table)]
            )
        out.append(rule)
    return out


def _temporal(rng: random.Random, column: str, table: Table, variants: int) -> list[dict[str, Any]]:
    values = rule_temporals(column, table, rng)
    out: list[dict[str, Any]] = [{"type": "freshness", "column": column}]
    others = [c for c in TEMPORAL if c != column]
    for _ in range(variants):
        out.append(_range(rng, column, values))
        out.append(_range_check(rng, column, values, others))
        data = table.values(column) or POOLS[column]
        choices = [
            v
            for v in data + [v for v in values if isinstance(v, str)]
            if _fits_temporal(v, TYPES[column])
        ]
        out.append({"type": "column_max_check", "column": column, "value": rng.choice(choices)})
        lo, hi = _pair(rng, values)
        options = rng.choice([{"valid_min": lo}, {"valid_max": hi}, {"valid_min": lo, "valid_max": hi},
                              {"valid_values": _values(rng, column, table, other=False)}])  # fmt: skip
        out.append(
            {"type": rng.choice(["invalid_count", "invalid_percent"]), "column": column, **options}
        )
    return out


def _references(rng: random.Random, table: Table, names: list[str]) -> list[dict[str, Any]]:
    """Foreign keys (and negated ones) and a row count match against a referenced ``sql``
    source: the table's own view, about a third of its values (by a hash, null keys kept)
    left out, so the referenced keys hold duplicates and nulls and some rows have no
    match."""
    view = f"assay_diff_{table.name}"
    one = rng.choice(names)
    two = rng.sample(names, 2)
    hashed = lambda cols: f"xxhash64({', '.join(quote(c) for c in cols)}) % 3 <> 0"  # noqa: E731
    return [
        {
            "type": "foreign_key",
            "column": one,
            "references": {
                "sql": f"SELECT {quote(one)} AS k FROM {view} WHERE {hashed([one])}",
                "columns": ["k"],
            },
        },
        {
            "type": "foreign_key",
            "columns": two,
            "references": {
                "sql": f"SELECT {quote(two[0])} AS k0, {quote(two[1])} AS k1 FROM {view}"
                f" WHERE {hashed(two)}",
                "columns": ["k0", "k1"],
            },
        },
        {
            "type": "row_count_match",
            "references": {"sql": f"SELECT * FROM {view} WHERE {hashed(['id'])}"},
        },
        {  # negated: the keys found fail (the same reference, so both joins share it)
            "type": "foreign_key",
            "column": one,
            "negate": True,
            "references": {
                "sql": f"SELECT {quote(one)} AS k FROM {view} WHERE {hashed([one])}",
                "columns": ["k"],
            },
        },
        {
            "type": "foreign_key",
            "columns": two,
            "negate": True,
            "references": {
                "sql": f"SELECT {quote(two[0])} AS k0, {quote(two[1])} AS k1 FROM {view}"
                f" WHERE {hashed(two)}",
                "columns": ["k0", "k1"],
            },
        },
    ]


def _sql(rng: random.Random, table: Table) -> list[dict[str, Any]]:
    """SQL rules over a predicate on a random column (plain SQL literals)."""
    column = rng.choice(["i", "b", "dbl val", "s", "fmt`s", "dec.38"])
    c = quote(column)
    if column in STRINGS:
        v = (
            rng.choice(rule_strings(column, table) or ["a"])
            .replace("\\", "\\\\")
            .replace("'", "\\'")
        )
        pred = rng.choice([f"{c} = '{v}'", f"{c} > '{v}'", f"{c} IS NULL", f"length({c}) > 2"])
    else:
        number = rng.choice([x for x in rule_numbers(column, table) if _fits_exact(x)] or [0])
        lit = format(Decimal(repr(number)) if isinstance(number, float) else Decimal(number), "f")
        pred = rng.choice([f"{c} > {lit}", f"{c} <= {lit}", f"{c} IS NULL", f"{c} <> {lit}"])
    v = "FROM _validation_df"
    return [
        {
            "type": "sql",
            "query": rng.choice(
                [
                    f"SELECT count(*) = 0 {v} WHERE {pred}",
                    f"SELECT count(*) <= 3 {v} WHERE {pred}",
                    f"SELECT count(*) > 0 {v} WHERE NOT ({pred})",
                ]
            ),
        },  # fmt: skip
        {"type": "sql", "failed_rows": f"SELECT * {v} WHERE {pred}"},
    ]


# --- tolerances and thresholds around the measured values ---------------------------------


def exact_text(value: Any) -> str | None:
    """A number as plain decimal text, exactly; None when it has no finite one."""
    with localcontext() as ctx:
        ctx.prec = 100
        return _exact_text(value)


def _exact_text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return format(Decimal(repr(value)), "f")
    if isinstance(value, Fraction):
        d = Decimal(value.numerator) / Decimal(value.denominator)
        return format(d, "f") if Fraction(d) == value else None
    return format(Decimal(value), "f")


def _near(value: Any) -> list[str]:
    """Numbers just around ``value``: itself (when exact), above and below."""
    with localcontext() as ctx:
        ctx.prec = 100
        return _near_exactly(value)


def _near_exactly(value: Any) -> list[str]:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ["0", "1", "-1", "100"]
    x = (
        Decimal(repr(value))
        if isinstance(value, float)
        else (
            Decimal(value.numerator) / Decimal(value.denominator)
            if isinstance(value, Fraction)
            else Decimal(value)
        )
    )
    exact = exact_text(value)
    step = (
        Decimal("1e-18")
        if isinstance(value, Decimal)
        else (
            abs(x) * Decimal("1e-9") or Decimal("1e-9")
            if isinstance(value, float)
            else Decimal("0.001")
        )
    )
    if isinstance(value, int):
        step = Decimal(1)
    out = [format(x + step, "f"), format(x - step, "f"), format(x + 1, "f"), format(x - 1, "f")]
    return ([exact] * 3 if exact is not None else []) + out


def _threshold(rng: random.Random, value: Any, percent: bool = False) -> str:
    numbers = _near(value)
    a = rng.choice(numbers)
    suffix = "%" if percent and rng.random() < 0.5 else ""
    form = rng.choice(["=", ">=", "<=", ">", "<", "!=", "between", "not between", "bare"])
    if form in ("between", "not between"):
        b = rng.choice(numbers)
        lo, hi = sorted([a, b], key=Decimal)
        return f"{form} {lo}{suffix} and {hi}{suffix}"
    if form == "bare":
        return f"{a}{suffix}"
    return f"{form} {a}{suffix}"


def _tolerances(rng: random.Random, failed: int, n: int, variants: int) -> list[Any]:
    options: list[Any] = [0, 1, "50%", 0.5]
    if failed >= 1:
        options += [failed, failed, max(failed - 1, 1)]
    if 0 < failed < n:
        frac = failed / n
        options += [
            frac,
            frac,
            f"{exact_text(Fraction(100 * failed, n)) or round(100 * failed / n, 6)}%",
        ]
        if failed > 1:
            options.append((failed - 1) / n)
    return [None] + rng.sample(options, k=min(variants - 1, len(options)))


def finish(
    oracle: Oracle, base: list[dict[str, Any]], measured: dict[str, Any], rng: random.Random,
    variants: int, table: Table,
) -> list[dict[str, Any]]:  # fmt: skip
    """The final rules: each base rule with tolerances / thresholds around its value."""
    n = measured["n"]
    out: list[dict[str, Any]] = []
    for rule in base:
        kind = rule["type"]
        if kind in ROW_KINDS:
            failed = oracle.failed(rule, measured)
            for tol in _tolerances(rng, failed, n, variants):
                out.append(rule if tol is None else {**rule, "tolerance": tol})
            continue
        value = oracle.metric(rule, measured)
        if kind in ("colstats", "sql"):
            out.append(rule)
        elif kind == "row_count":
            out += [
                {**rule, "must_be": _threshold(rng, n)},
                {**rule, "must_be": _threshold(rng, n), "warn": _threshold(rng, n)},
                {
                    **rule,
                    "min": (lo := max(n - rng.randint(0, 1), 0)),
                    "max": max(lo, n + rng.randint(-1, 1)),
                },
                {**rule, "min": n + 1},
                {**rule, "min_num_rows": max(n, 1)},
            ]
        elif kind == "has_size":
            for _ in range(variants + 1):
                out.append({**rule, "size": max(0, n + rng.randint(-1, 1)),
                            "operator": rng.choice(["==", "!=", ">=", ">", "<=", "<"])})  # fmt: skip
        elif kind == "has_uniqueness":
            for _ in range(variants):
                fraction: float = rng.choice([1.0, 0.5, 0.0, 0.9])
                if value is not None and rng.random() < 0.6:
                    fraction = float(value)
                r = {**rule, "fraction": fraction}
                if rng.random() < 0.8:
                    r["operator"] = rng.choice(["==", "!=", ">=", ">", "<=", "<"])
                out.append(r)
        elif kind == "freshness":
            if value is None:
                out.append({**rule, "must_be": "< 1d"})
                continue
            days = math.floor(value / 86400)
            for _ in range(variants):
                k = days + rng.choice([-2, -1, 2, 3])
                if k <= 0:
                    out.append({**rule, "must_be": rng.choice(["< 1d", "> 1d"])})
                else:
                    out.append({**rule, "must_be": f"{rng.choice(['<', '>', '<=', '>='])} {k}d"})
        elif kind == "column_sum_check":
            for _ in range(variants):
                texts = _near(value)
                lo, hi = sorted([Decimal(rng.choice(texts)), Decimal(rng.choice(texts))])
                r = {**rule}
                shape = rng.choice(["min", "max", "both", "both"])
                if shape == "both" and _config_number(lo) >= _config_number(hi):
                    shape = rng.choice(["min", "max"])
                if shape in ("min", "both"):
                    r["min_value"] = _config_number(lo)
                if shape in ("max", "both"):
                    r["max_value"] = _config_number(hi)
                inclusive = rng.choice([None, True, False])
                if inclusive is not None:
                    r["inclusive"] = inclusive
                out.append(r)
        elif kind == "column_max_check":
            out.append(rule)
        elif kind == "row_count_match" and value is None:  # an empty referenced side
            out.append({**rule, "must_be": rng.choice([">= 0", "< 100%"])})
        else:
            percent = kind.endswith("_percent") or kind == "row_count_match"
            for k in range(variants):
                r = {**rule, "must_be": _threshold(rng, value, percent)}
                if k == 1 and rng.random() < 0.5:
                    r["warn"] = _threshold(rng, value, percent)
                out.append(r)
    return out


def _config_number(value: Decimal) -> int | float:
    """A decimal as a config number (an int when whole, else the float YAML reads)."""
    return int(value) if value == value.to_integral_value() and abs(value) < 2**63 else float(value)


def _max_value(column: str, value: Any, table: Table) -> Any:
    """The column's max as a config writes it: a DECIMAL max as the float YAML reads, a
    FLOAT max as its shortest text (0.1 for CAST(0.1 AS FLOAT)), a timestamp as the
    table's own value."""
    t = TYPES[column]
    if isinstance(value, float):
        return float(f32_text(value)) if t == "float" else value
    if isinstance(value, Decimal):
        return (
            int(value)
            if value == value.to_integral_value() and abs(value) < 2**63
            else float(value)
        )
    if t in ("timestamp", "timestamp_ntz"):
        return max(table.values(column))
    return value


def capped(rules: list[dict[str, Any]], cap: int, rng: random.Random) -> list[dict[str, Any]]:
    """At most ``cap`` of ``rules`` (in their order), every rule type kept: one of each
    type first, every approximate percentile (few, and each column's own rank error),
    then a random sample of the rest."""
    if len(rules) <= cap:
        return rules
    by_type: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        by_type.setdefault(rule["type"], []).append(i)
    keep = {rng.choice(indices) for indices in by_type.values()}
    keep |= {i for i, rule in enumerate(rules) if "accuracy" in rule}
    rest = [i for i in range(len(rules)) if i not in keep]
    keep |= set(rng.sample(rest, max(0, cap - len(keep))))
    return [rules[i] for i in sorted(keep)]


# The fixed rules of the edge table (tests/differential/tricky.py EDGE_ROWS): each one
# a pitfall the docs settle (the comments give the truth on EDGE_ROWS).
EDGE_RULES: list[dict[str, Any]] = [
    # a top-level alternation is (^A)|(B$): AB, xB, Ax match; '1', 'x\u2028', NULL fail
    {"type": "regex", "column": "s", "pattern": "^A|B$"},
    {"type": "regex", "column": "s", "pattern": "A|B$"},
    {"type": "regex", "column": "s", "pattern": "^(A|B)$"},
    {"type": "string_regex_check", "column": "s", "regex": "^A|B$"},
    {"type": "invalid_count", "column": "s", "valid_regex": "^A|B$", "must_be": "= 2"},
    {"type": "regex", "column": "s", "pattern": "x$"},  # Java $ matches before U+2028
    {"type": "regex", "column": "s", "pattern": "\\Ax\\z"},
    # DECIMAL(38,18) against the YAML float 0.1: the exact decimal 0.1
    {"type": "range", "column": "dec.38", "max": 0.1},  # 0.100000000000000001 fails
    {"type": "range", "column": "dec.38", "max": 0.1, "inclusive": False},  # and 0.1
    {"type": "range", "column": "dec.38", "min": 0.1},
    {"type": "accepted_values", "column": "dec.38", "values": [0.1]},
    {"type": "is_contained_in", "column": "dec.38", "allowed_values": [0.1, -1.5, 0]},
    {"type": "column_max_check", "column": "dec.38", "value": 0.1},  # max is ...001: fails
    {"type": "invalid_count", "column": "dec.38", "valid_max": 0.1, "must_be": "= 0"},
    {"type": "invalid_count", "column": "dec.38", "valid_min": 0.1, "must_be": "= 3"},
    {"type": "range_check", "column": "dec.38", "max_value": 0.1},  # 0.1 and ...001 fail
    {"type": "range_check", "column": "dec.38", "max_value": 0.1, "inclusive": True},
    {"type": "missing_count", "column": "dec.38", "missing_values": [0.1], "must_be": "= 2"},
    # exact decimal metrics (beyond double precision)
    {"type": "max", "column": "dec.38", "must_be": "= 0.100000000000000001"},
    {"type": "min", "column": "dx", "must_be": "= -99999999999999999999.999999999999999999"},
    {"type": "avg", "column": "dec.38", "must_be": "> -0.3"},
    {"type": "sum", "column": "dec.38", "must_be": "= -1.300000000000000001"},
    {"type": "column_sum_check", "column": "dec.38", "min_value": -1.3, "max_value": 0},
    {"type": "colstats", "column": "dec.38"},
    # FLOAT against 0.1: CAST(0.1 AS FLOAT), which is max(f)
    {"type": "column_max_check", "column": "f", "value": 0.1},
    {"type": "range", "column": "f", "max": 0.1},
    {"type": "range", "column": "f", "max": 0.1, "inclusive": False},
    {"type": "accepted_values", "column": "f", "values": [0.1, -2.5]},
    {"type": "max", "column": "f", "must_be": "= 0.10000000149011612"},
    # booleans as Spark casts them: ' true ', 'Y\n', '\ttrue', 'N\r\n', 'yes' valid
    {"type": "invalid_count", "column": "fmt`s", "valid_format": "boolean", "must_be": "= 1"},
    {"type": "invalid_percent", "column": "fmt`s", "valid_format": "boolean", "must_be": "< 20"},
    # numbers in a list for a string column are their text
    {"type": "accepted_values", "column": "s", "values": [1, 2]},
    {"type": "is_contained_in", "column": "s", "allowed_values": [1, "AB"]},
    {"type": "accepted_values", "column": "s", "values": [True, 1]},
    {"type": "missing_count", "column": "s", "missing_values": [1], "must_be": "= 2"},
    # a date in a string column's list is its ISO text (no cast of the column to DATE)
    {"type": "accepted_values", "column": "s", "values": ["AB", dt.date(2024, 1, 1)]},
    {
        "type": "missing_count",
        "column": "s",
        "missing_values": [dt.date(2024, 1, 1)],
        "must_be": "= 1",
    },
    {"type": "invalid_count", "column": "s", "valid_values": [1, "AB"], "must_be": "= 3"},
    # bounds past bigint's range
    {"type": "range", "column": "b", "max": 9223372036854775808},
    {"type": "range", "column": "b", "min": -9223372036854775809},
    {"type": "range_check", "column": "b", "max_value": 9223372036854775808},
    {"type": "range", "column": "i", "min": -2147483649, "max": 2147483648},
    {"type": "accepted_values", "column": "b", "values": [9223372036854775808, 0]},
    # -0.0, NaN, infinities
    {"type": "negative_check", "column": "f"},  # -inf and -2.5; not -0.0
    {"type": "negative_check", "column": "dbl val"},  # none: -0.0 and NaN are not negative
    {"type": "range", "column": "dbl val", "max": 1},  # NaN and +inf fail
    {"type": "range", "column": "dbl val", "min": 0},  # -0.0 = 0 passes
    {"type": "unique", "column": "dbl val"},  # -0.0 and 0.0 are one value
    {"type": "distinct_count", "column": "dbl val", "must_be": "= 4"},
    {"type": "max", "column": "dbl val", "must_be": "> 0"},  # NaN: fails
    {"type": "min", "column": "f", "must_be": "< 0"},  # -inf: judged, metric_value null
    {"type": "has_uniqueness", "columns": ["s", "i"]},
    {"type": "duplicate_percent", "column": "f", "must_be": "between 33 and 34"},
    # dates and timestamps at the ends of their range
    {"type": "range", "column": "dátum", "min": dt.date(1, 1, 1), "max": dt.date(9999, 12, 31)},
    {"type": "range", "column": "ts", "max": "2100-06-15T08:30:00Z", "inclusive": False},
    {"type": "range", "column": "tn", "min": "2023-12-31T23:59:59.999999"},
    {"type": "column_max_check", "column": "dátum", "value": dt.date(9999, 12, 31)},
    {"type": "freshness", "column": "dátum", "must_be": "< 0"},
    {"type": "row_count", "min": 6, "max": 6},
    {"type": "has_size", "size": 6, "operator": "=="},
    {"type": "sql", "query": "SELECT count(*) = 2 FROM _validation_df WHERE `dec.38` >= 0.1"},
    {"type": "sql", "failed_rows": "SELECT * FROM _validation_df WHERE `f` < 0"},
    {"type": "length", "column": "s", "max": 1},  # '1' only; 'x\u2028' is 2
    {"type": "string_length_check", "column": "fmt`s", "min_length": 4, "max_length": "`i"},
    # deequ's analyzers: -0.0 and 0.0 one value, NaN one value, infinities, nulls
    {"type": "entropy", "column": "dbl val", "must_be": "> 1"},
    {"type": "approx_distinct_count", "column": "dbl val", "must_be": "= 4"},
    {"type": "correlation", "columns": ["f", "dbl val"], "must_be": "> 0"},  # NaN: fails
    {"type": "correlation", "columns": ["i", "dec.38"], "must_be": "between -1 and 1"},
    {"type": "compliance", "expression": "`i` >= 0", "must_be": ">= 0.5"},  # null: not
    {"type": "mutual_information", "columns": ["s", "i"], "must_be": "> 0"},
    {"type": "count", "column": "s", "must_be": "= 5"},
]

"""Soda's missing and validity configuration (``missing values``, ``valid format``,
``invalid regex``...) as the conditions its counts read (soda-core 3.x,
``build_missing_condition``, ``build_valid_condition``, ``build_invalid_condition``):
the rows ``missing_count``, ``invalid_count`` and ``valid_count`` count, and the values an
aggregate reads.
"""

from __future__ import annotations

from assay.config.node import Node
from assay.dialects.soda_formats import FORMATS, NUMERIC_FORMATS
from assay.dialects.soda_rule import Entry
from assay.ir.expr import (
    Col,
    Compare,
    Expr,
    InSet,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Scalar,
    all_of,
    any_of,
    is_true,
)
from assay.ir.values import Op

MISSING_KEYS = frozenset({"missing values", "missing format", "missing regex"})
VALID_KEYS = frozenset(
    {
        "valid values",
        "valid format",
        "valid regex",
        "valid min",
        "valid max",
        "valid length",
        "valid min length",
        "valid max length",
        "invalid values",
        "invalid format",
        "invalid regex",
    }
)


COUNTS = frozenset(
    {"missing_count", "missing_percent", "invalid_count", "invalid_percent", "valid_count"}
)


def _values(node: Node, key: str) -> tuple[Scalar, ...]:
    items = node.as_list(f"'{key}' (a list of values)")
    values = tuple(item.value for item in items)
    strings = all(isinstance(v, str) for v in values)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if not (strings or numbers):
        raise node.error(f"only strings or only numbers are allowed in '{key}'")
    return values  # type: ignore[return-value]


def _format(node: Node, key: str) -> str:
    name = node.as_str(f"'{key}' (a format name)")
    if name not in FORMATS:
        raise node.error(
            f"Soda format '{name}' is not supported",
            hint="Soda's formats: " + ", ".join(sorted(FORMATS)),
        )
    return FORMATS[name]


def _missing(name: str, validity: dict[str, Node]) -> Expr:
    """Soda's ``build_missing_condition``: NULL, or a missing value, format or regex."""
    col = Col(name)
    clauses: list[Expr] = [IsNull(col)]
    if "missing values" in validity:
        clauses.append(InSet(col, _values(validity["missing values"], "missing values")))
    if "missing format" in validity:
        clauses.append(Matches(col, _format(validity["missing format"], "missing format")))
    if "missing regex" in validity:
        clauses.append(Matches(col, validity["missing regex"].as_str("a regular expression")))
    return any_of(*clauses)


def _valid(name: str, validity: dict[str, Node]) -> Expr | None:
    """Soda's ``build_valid_condition``: every valid key holds (None: none given)."""
    col = Col(name)
    clauses: list[Expr] = []
    if "valid values" in validity:
        clauses.append(InSet(col, _values(validity["valid values"], "valid values")))
    fmt = validity.get("valid format")
    if fmt is not None:
        clauses.append(Matches(col, _format(fmt, "valid format")))
    if "valid regex" in validity:
        clauses.append(Matches(col, validity["valid regex"].as_str("a regular expression")))
    for key, op in (
        ("valid length", Op.EQ),
        ("valid min length", Op.GE),
        ("valid max length", Op.LE),
    ):
        if key in validity:
            n = validity[key].as_int(f"'{key}' (an integer)")
            clauses.append(Compare(op, Length(col), Lit(n)))
    for key, op in (("valid min", Op.GE), ("valid max", Op.LE)):
        if key in validity:
            if fmt is not None and fmt.value in NUMERIC_FORMATS:
                raise validity[key].error(
                    f"'{key}' with the numeric format '{fmt.value}': Soda compares the text "
                    "cast to a number, which assay does not",
                )
            number = validity[key].as_number(f"'{key}' (a number)")
            clauses.append(Compare(op, col, Lit(float(number))))
    return all_of(*clauses) if clauses else None


def _invalid(name: str, validity: dict[str, Node]) -> Expr | None:
    """Soda's ``build_invalid_condition``: any invalid value, format or regex."""
    col = Col(name)
    clauses: list[Expr] = []
    if "invalid values" in validity:
        clauses.append(InSet(col, _values(validity["invalid values"], "invalid values")))
    if "invalid format" in validity:
        clauses.append(Matches(col, _format(validity["invalid format"], "invalid format")))
    if "invalid regex" in validity:
        clauses.append(Matches(col, validity["invalid regex"].as_str("a regular expression")))
    return any_of(*clauses) if clauses else None


def counted(metric: str, name: str, validity: dict[str, Node], got: Entry) -> Expr:
    """The rows a missing or invalid count counts, as Soda's SQL (a ``COUNT(CASE WHEN``:
    a condition that is NULL is not counted)."""
    missing = _missing(name, validity)
    if metric.startswith("missing"):
        return is_true(missing)
    if metric == "valid_count":
        return kept(name, validity) or is_true(Not(missing))
    valid, invalid = _valid(name, validity), _invalid(name, validity)
    if valid is None and invalid is None:
        raise got.node.error(
            f"{metric}({name}) without a 'valid ...' or 'invalid ...' configuration: Soda "
            "counts nothing (it warns that this makes no sense)",
        )
    bad = (
        any_of(Not(valid), invalid) if valid is not None and invalid is not None
        else Not(valid) if valid is not None else invalid
    )  # fmt: skip
    return is_true(all_of(Not(missing), bad))  # type: ignore[arg-type]


def kept(name: str, validity: dict[str, Node]) -> Expr | None:
    """Soda's ``build_non_missing_and_valid_condition`` (None without a missing or validity
    key: the aggregate reads every value, its nulls ignored)."""
    if not validity:
        return None
    missing = _missing(name, validity)
    valid, invalid = _valid(name, validity), _invalid(name, validity)
    if valid is not None:
        return is_true(all_of(Not(missing), valid))
    if invalid is not None:
        return is_true(all_of(Not(missing), Not(invalid)))
    return is_true(Not(missing))

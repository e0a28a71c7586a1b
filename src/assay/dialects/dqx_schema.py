"""DQX's ``has_valid_schema`` (databricks-labs-dqx 0.17, ``check_funcs.py``): the checked
DataFrame's schema against an expected one (a DDL string, ``id INT, name STRING``, or
``struct<id:int,name:string>``), answered from the schema alone: no scan.

Without ``strict``, every expected column must be among the checked ones (``columns``,
else all, less ``exclude_columns``) with a compatible type: equal, or both numbers, both
strings (``char``, ``varchar``, ``string``), both dates or timestamps, arrays and maps of
compatible types, structs of as many fields with the same names in the same order and
compatible types, or a ``variant`` column; nullability and column order do not matter.
With ``strict``, the checked columns must be the expected ones, in order, with equal
types and nullability. DQX's message lists every difference, in its words; when there
is one, DQX flags every row (of the check's filter).

The schemas are read by Spark as DQX reads them: the checked DataFrame's, and the
expected DDL parsed by the session (``_parse_ddl``, what DQX's
``_parse_datatype_string`` calls on Spark Connect); the DDL's syntax is read when the
file is loaded, so a broken one is an error at its place.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from assay.dialects.dqx_args import Args, Function, Mapped, takes
from assay.dialects.dqx_dataset import plain_columns
from assay.dialects.dqx_json_schema import parse_schema
from assay.dialects.validator_functions import VALIDATORS, Validator, ValidatorResult
from assay.ir.rules import ValidatorCheck

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

VALIDATOR = "dqx:has_valid_schema"
"""The function judging the check (a validator of no Spark plan: schemas only)."""
PREFIX = "Schema validation failed: "
_NUMBERS = frozenset(
    {"ByteType", "ShortType", "IntegerType", "LongType", "DecimalType", "FloatType", "DoubleType"}
)
_STRINGS = frozenset({"CharType", "VarcharType", "StringType"})
_TIMES = frozenset({"DateType", "TimestampNTZType", "TimestampType"})


def _has_valid_schema(a: Args) -> Mapped:
    for key in ("ref_df_name", "ref_table"):
        node = a.get(key)
        if node is not None:
            raise node.error(
                f"DQX: has_valid_schema with {key} is not supported",
                hint="write the expected schema as expected_schema (a DDL string)",
            )
    node = a.require("expected_schema")
    if not isinstance(node.value, str):
        raise node.error("DQX: 'input_schema' must be str or StructType")
    try:
        parse_schema(node.value)
    except ValueError as e:  # what parse_schema raises for a broken DDL
        raise node.error(f"DQX: Invalid schema string '{node.value}'. Error: {e}") from None
    listed = a.get("columns")
    columns = plain_columns(listed, keep_repeats=True) if listed is not None else ()
    excluded = a.get("exclude_columns")
    if excluded is not None:
        plain_columns(excluded)
    check = ValidatorCheck(VALIDATOR, plans=0)
    message = PREFIX + "<the differences DQX lists>"
    return Mapped(check, columns, "has_invalid_schema", message, row_level=False)


def verdict(df: DataFrame, params: dict[str, Any]) -> ValidatorResult:
    """The check's verdict on ``df``: two analysis RPCs (the expected DDL parsed, the
    checked columns' schema), no scan."""
    expected = df.sparkSession._parse_ddl(params["expected_schema"])  # type: ignore[attr-defined]
    if type(expected).__name__ != "StructType":
        text = params["expected_schema"]
        return ValidatorResult(False, f"Invalid schema string '{text}' (not a StructType)")
    names = list(params.get("columns") or df.columns)
    excluded = set(params.get("exclude_columns") or ())
    actual = df.select(*[n for n in names if n not in excluded]).schema
    strict = params.get("strict") is True
    errors = strict_differences(actual, expected) if strict else differences(actual, expected)
    if errors:
        return ValidatorResult(False, PREFIX + "; ".join(errors))
    said = "matches" if strict else "is compatible with"
    return ValidatorResult(True, f"the schema {said} the expected schema")


def strict_differences(actual: Any, expected: Any) -> list[str]:
    """DQX's strict comparison: the same columns in the same order, equal types and
    nullability."""
    if actual == expected:
        return []
    errors = []
    pairs = zip_longest(actual.fields, expected.fields)
    for i, (got, want) in enumerate(pairs):
        if got is None:
            errors.append(f"Column '{want.name}' in expected schema not present in checked data")
            continue
        if want is None:
            errors.append(f"Column '{got.name}' in checked data not present in expected schema")
            continue
        if got.name != want.name:
            errors.append(
                f"Column with index {i} has incorrect name, expected '{want.name}', "
                f"got '{got.name}'"
            )
        if got.dataType != want.dataType:
            errors.append(
                f"Column '{got.name}' has incorrect type, expected "
                f"'{want.dataType.typeName()}', got '{got.dataType.typeName()}'"
            )
        if got.nullable != want.nullable:
            errors.append(
                f"Column '{got.name}' has incorrect nullability, expected "
                f"'{want.nullable}', got '{got.nullable}'"
            )
    return errors


def differences(actual: Any, expected: Any) -> list[str]:
    """DQX's permissive comparison: every expected column present with a compatible
    type (other columns, their order and nullability free)."""
    found = {f.name: f for f in actual.fields}
    errors = []
    for want in expected.fields:
        got = found.get(want.name)
        if got is None:
            errors.append(f"Column '{want.name}' in expected schema not present in checked data")
        elif not compatible(got.dataType, want.dataType):
            errors.append(
                f"Column '{want.name}' has incompatible type, expected "
                f"'{want.dataType.typeName()}', got '{got.dataType.typeName()}'"
            )
    return errors


def compatible(actual: Any, expected: Any) -> bool:
    """Whether a column of type ``actual`` holds what ``expected`` says (DQX's
    ``_is_compatible_type``, widening allowed)."""
    if actual == expected:
        return True
    got, want = type(actual).__name__, type(expected).__name__
    if _atomic(actual) and _atomic(expected):
        return any(got in kinds and want in kinds for kinds in (_NUMBERS, _STRINGS, _TIMES))
    if got == want == "ArrayType":
        return compatible(actual.elementType, expected.elementType)
    if got == want == "MapType":
        keys = compatible(actual.keyType, expected.keyType)
        return keys and compatible(actual.valueType, expected.valueType)
    if got == want == "StructType":
        return len(actual.fields) == len(expected.fields) and all(
            a.name == e.name and compatible(a.dataType, e.dataType)
            for a, e in zip(actual.fields, expected.fields, strict=True)
        )
    return got == "VariantType"


def _atomic(data_type: Any) -> bool:
    return any(c.__name__ == "AtomicType" for c in type(data_type).__mro__)


VALIDATORS[VALIDATOR] = Validator(VALIDATOR, verdict, 0)  # type: ignore[arg-type]

FUNCTIONS: dict[str, Function] = {
    "has_valid_schema": Function(
        _has_valid_schema,
        takes("expected_schema", "ref_df_name", "ref_table", "columns", "strict",
              "exclude_columns"),
    ),
}  # fmt: skip
"""The schema function, by DQX's name."""

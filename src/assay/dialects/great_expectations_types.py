"""The type names of ``expect_column_values_to_be_of_type`` and ``_to_be_in_type_list``
as Great Expectations reads them on Spark (1.x, ``_validate_spark``): a name is a class of
``pyspark.sql.types`` (``getattr(pyspark.types, name)``) and a column matches it when its
type is an instance of that class (``isinstance``), so ``IntegerType`` matches an ``int``
column, ``NumericType`` any number, ``DataType`` anything; GX's ``observed_value`` is the
class name of the column's type. pandas or SQL names (``int``, ``str``, ``STRING``) are
no class of that module: GX raises on them, assay refuses them.

Each class is known here by the Spark type strings (``simpleString``, lowercased, without
spaces) of its instances, so the dialect needs no pyspark: a test holds this table to
pyspark's own classes (docs/dialects.md, "Great Expectations suites")."""

from __future__ import annotations

import fnmatch

CONCRETE: dict[str, tuple[str, ...]] = {
    "NullType": ("void",),
    "StringType": ("string", "stringcollate*"),
    "CharType": ("char(*)",),
    "VarcharType": ("varchar(*)",),
    "BinaryType": ("binary",),
    "BooleanType": ("boolean",),
    "DateType": ("date",),
    "TimeType": ("time(*)",),
    "TimestampType": ("timestamp",),
    "TimestampNTZType": ("timestamp_ntz",),
    "DecimalType": ("decimal(*)",),
    "DoubleType": ("double",),
    "FloatType": ("float",),
    "ByteType": ("tinyint",),
    "ShortType": ("smallint",),
    "IntegerType": ("int",),
    "LongType": ("bigint",),
    "DayTimeIntervalType": ("intervalday*", "intervalhour*", "intervalminute*", "intervalsecond*"),
    "YearMonthIntervalType": ("intervalyear*", "intervalmonth*"),
    "CalendarIntervalType": ("interval",),
    "ArrayType": ("array<*",),
    "MapType": ("map<*",),
    "StructType": ("struct<*",),
    "VariantType": ("variant",),
    "GeographyType": ("geography(*)",),
    "GeometryType": ("geometry(*)",),
    "UserDefinedType": ("udt",),
}
"""Each class a column's type is an instance of, by its type strings (globs)."""

_INTEGRAL = ("ByteType", "ShortType", "IntegerType", "LongType")
_FRACTIONAL = ("DecimalType", "DoubleType", "FloatType")
_DATETIME = ("DateType", "TimeType", "TimestampType", "TimestampNTZType")
_NOT_ATOMIC = ("ArrayType", "MapType", "StructType", "CalendarIntervalType", "NullType",
               "UserDefinedType")  # fmt: skip
ABSTRACT: dict[str, tuple[str, ...]] = {
    "DataType": tuple(CONCRETE),
    "AtomicType": tuple(c for c in CONCRETE if c not in _NOT_ATOMIC),
    "NumericType": _INTEGRAL + _FRACTIONAL,
    "IntegralType": _INTEGRAL,
    "FractionalType": _FRACTIONAL,
    "DatetimeType": _DATETIME,
    "AnyTimeType": ("TimeType",),
    "AnsiIntervalType": ("DayTimeIntervalType", "YearMonthIntervalType"),
    "SpatialType": ("GeographyType", "GeometryType"),
}
"""The classes of ``pyspark.sql.types`` no column's type is itself, by their subclasses."""
NAMES = tuple(sorted({*CONCRETE, *ABSTRACT}))
"""Every name GX on Spark matches a column's type against (``StructField``, also a
``DataType`` there, is no column's type)."""


def pattern(names: tuple[str, ...]) -> str:
    """The type strings matching any of ``names`` (known ones), as
    :func:`assay.judge.own.type_matches` reads alternatives."""
    found: list[str] = []
    for name in names:
        for concrete in ABSTRACT.get(name, (name,)):
            found += [p for p in CONCRETE[concrete] if p not in found]
    return "|".join(found)


def class_name(spark_type: str) -> str | None:
    """The pyspark class of a column of this type (``simpleString``): GX's
    ``observed_value``."""
    actual = spark_type.lower().replace(" ", "")
    for name, globs in CONCRETE.items():
        if any(fnmatch.fnmatchcase(actual, g) for g in globs):
            return name
    return None

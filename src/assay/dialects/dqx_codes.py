"""DQX's ISO code checks (databricks-labs-dqx 0.17, ``check_funcs.py``):
``is_valid_country_code`` (ISO 3166-1), ``is_valid_currency_code`` (ISO 4217),
``is_valid_language_code`` (ISO 639-1/639-3) and ``is_valid_subdivision_code``
(ISO 3166-2), each a membership test of the value in the standard's codes, as DQX's
``isin`` is: a NULL value passes, the comparison is exact unless ``case_sensitive: false``
(both sides lower-cased), a numeric code is compared as text (``'004'``, never ``4``).

The code lists are the files under ``dqx_iso/`` (one code a line), read once. They are
not DQX's files (distributed under the Databricks License): they were generated from
pycountry 26.2.16 (the Debian iso-codes data, LGPL-2.1), which holds the same codes as
DQX 0.17's lists except seven ISO 639-3 codes the registration authority has since added
(dyl, lfb, olb, osd, scz, tvg, zhk) and three it retired (mrd, shl, yol), reconciled by
hand; tests/dialects/dqx/test_codes.py compares them with DQX's.

The codes are one ``IN`` list of literals: Spark turns a list of more than ten literals
into a hash-set lookup (``InSet``), and the ~8,000 codes of ISO 639-3 plan and run about
as fast as a join against an inline table of them (docs/dialects.md, "DQX checks files").
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from assay.dialects.dqx_args import Args, Function, Mapped, row, sql_string, takes

_STANDARDS: dict[str, tuple[str, dict[str, str]]] = {
    "ISO 3166-1": (
        "country",
        {
            "alpha-2": "iso_3166_1_alpha_2.txt",
            "alpha-3": "iso_3166_1_alpha_3.txt",
            "numeric": "iso_3166_1_numeric.txt",
        },
    ),
    "ISO 4217": (
        "currency",
        {"alphabetic": "iso_4217_alphabetic.txt", "numeric": "iso_4217_numeric.txt"},
    ),
    "ISO 639": (
        "language",
        {"alpha-2": "iso_639_1_alpha_2.txt", "alpha-3": "iso_639_3_alpha_3.txt"},
    ),
}
"""Each standard DQX checks: the noun of its messages, its code formats and their files."""

SUBDIVISIONS = "iso_3166_2.txt"


@cache
def codes(resource: str) -> tuple[str, ...]:
    """The codes of one list (read once), sorted."""
    text = (files("assay.dialects") / "dqx_iso" / resource).read_text(encoding="utf-8")
    return tuple(sorted(set(text.split())))


@cache
def _in_list(resource: str, lower: bool) -> str:
    """The codes as the SQL of an ``IN`` list (built once per list and case)."""
    return ", ".join(sql_string(c.lower() if lower else c) for c in codes(resource))


def _not_in(x: str, resource: str, lower: bool) -> str:
    return f"NOT ({x} IN ({_in_list(resource, lower)}))"


def _code_format(a: Args, default: str, kind: str, formats: dict[str, str]) -> str:
    """The ``code_format`` argument (any case), DQX's messages for a missing or
    unsupported one."""
    node = a.values.get("code_format")
    if node is None:
        return default
    if node.value is None:
        raise node.error("DQX: 'code_format' is not provided.", hint="DQX: MissingParameterError")
    if not isinstance(node.value, str):
        raise node.error(
            f"DQX: 'code_format' must be a string, got {type(node.value)} instead.",
            hint="DQX: InvalidParameterError",
        )
    text: str = node.value
    if text.lower() not in formats:
        supported = ", ".join(sorted(formats))
        raise node.error(
            f"DQX: Unsupported code_format for {kind} code validation: '{text}'. "
            f"Supported: [{supported}].",
            hint="DQX: InvalidParameterError",
        )
    return text.lower()


def _iso_code(standard: str, default: str) -> Function:
    kind, formats = _STANDARDS[standard]

    def build(a: Args) -> Mapped:
        fmt = _code_format(a, default, kind, formats)
        t = a.target()
        if fmt == "numeric":
            # DQX casts to text: an integer 4 is not the code '004'
            condition = _not_in(f"CAST({t.sql} AS STRING)", formats[fmt], False)
        elif a.flag("case_sensitive", default=True):
            condition = _not_in(t.sql, formats[fmt], False)
        else:
            condition = _not_in(f"lower({t.sql})", formats[fmt], True)
        message = f"Value '{{value}}' in Column '{t.shown}' is not a valid {standard} {kind} code"
        return row(condition, (t,), f"{t.norm}_is_not_a_valid_{kind}_code", message)

    return Function(build, takes("column", "code_format", "case_sensitive"))


def _subdivision(a: Args) -> Mapped:
    """DQX's ``is_valid_subdivision_code``: the value is an ISO 3166-2 code; with
    ``country_column``, its country prefix (before the first ``-``) is also that
    column's value (a NULL country passes)."""
    t = a.target()
    sensitive = a.flag("case_sensitive", default=True)
    x = t.sql if sensitive else f"lower({t.sql})"
    invalid = _not_in(x, SUBDIVISIONS, not sensitive)
    name = f"{t.norm}_is_not_a_valid_subdivision_code"
    what = f"Value '{{value}}' in Column '{t.shown}' is not a valid ISO 3166-2 subdivision code"
    if a.get("country_column") is None:
        return row(invalid, (t,), name, what)
    c = a.target("country_column")
    country = c.sql if sensitive else f"lower({c.sql})"
    condition = f"({invalid}) OR (split({x}, '-')[0] != {country})"
    message = f"{what} for country '{{value2}}' in Column '{c.shown}'"
    return row(condition, (t, c), name, message)


FUNCTIONS: dict[str, Function] = {
    "is_valid_country_code": _iso_code("ISO 3166-1", "alpha-2"),
    "is_valid_currency_code": _iso_code("ISO 4217", "alphabetic"),
    "is_valid_language_code": _iso_code("ISO 639", "alpha-2"),
    "is_valid_subdivision_code": Function(
        _subdivision, takes("column", "case_sensitive", "country_column")
    ),
}
"""The ISO code functions, by DQX's name."""

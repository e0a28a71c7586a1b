"""Named value formats for ``valid_format`` (``invalid_count``/``invalid_percent``).

Each format is a Java regular expression, anchored with ``\\A...\\z`` so a value with a
trailing newline does not match (Java's ``$`` also matches before a final line
terminator), and for some formats an extra Spark SQL test that a regex cannot express:
check digits (``cpf``, ``cnpj``, ``credit_card``) and calendar validity (dates).
The extra tests never raise on any input, so they are safe on values that fail the regex.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assay.ir.expr import And, Col, Expr, Matches, Sql


@dataclass(frozen=True, slots=True)
class Format:
    """A named format: what it accepts, and how it is tested."""

    pattern: str
    """The Java regex a valid value matches (empty: the format is its ``extra`` test alone)."""
    description: str
    extra: Callable[[str], str] | None = None
    """SQL text true exactly for valid values, given the backticked column name."""


def _digit(text: str, i: int) -> str:
    """The value of the i-th (1-based) character of ``text`` as ``ascii(c) - 48``
    (0-9 for digits; letters A-Z give 17-42, as CNPJ check digits count them)."""
    return f"(ascii(substring({text}, {i}, 1)) - 48)"


def _cpf(column: str) -> str:
    d = f"translate({column}, '.-', '')"
    s1 = " + ".join(f"{_digit(d, i)} * {11 - i}" for i in range(1, 10))
    s2 = " + ".join(f"{_digit(d, i)} * {12 - i}" for i in range(1, 11))
    return (
        f"((({s1}) * 10) % 11) % 10 = {_digit(d, 10)}"
        f" AND ((({s2}) * 10) % 11) % 10 = {_digit(d, 11)}"
        f" AND {d} <> repeat(substring({d}, 1, 1), 11)"
    )


def _cnpj_check(d: str, weights: list[int], position: int) -> str:
    total = " + ".join(f"{_digit(d, i + 1)} * {w}" for i, w in enumerate(weights))
    return (
        f"(CASE WHEN ({total}) % 11 < 2 THEN 0 ELSE 11 - ({total}) % 11 END)"
        f" = {_digit(d, position)}"
    )


def _cnpj(column: str) -> str:
    d = f"translate({column}, './-', '')"
    first = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    return (
        f"{_cnpj_check(d, first, 13)} AND {_cnpj_check(d, [6, *first], 14)}"
        f" AND {d} <> repeat(substring({d}, 1, 1), 14)"
    )


def _luhn(column: str) -> str:
    r = f"reverse(translate({column}, ' -', ''))"
    terms = []
    for i in range(1, 20):
        c = f"ascii(substring({r}, {i}, 1))"
        value = f"({c} - 48)" if i % 2 else f"(({c} - 48) * 2 - IF({c} > 52, 9, 0))"
        terms.append(f"IF(length({r}) >= {i}, {value}, 0)")
    return f"({' + '.join(terms)}) % 10 = 0"


def _calendar(pattern: str, prefix: int | None = None) -> Callable[[str], str]:
    def test(column: str) -> str:
        text = column if prefix is None else f"substring({column}, 1, {prefix})"
        return f"try_to_date({text}, '{pattern}') IS NOT NULL"

    return test


_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = rf"(?:{_OCTET}\.){{3}}{_OCTET}"
_H = "[0-9A-Fa-f]{1,4}"
_IPV6 = (
    rf"(?:(?:{_H}:){{7}}{_H}"
    rf"|(?:{_H}:){{1,7}}:"
    rf"|(?:{_H}:){{1,6}}:{_H}"
    rf"|(?:{_H}:){{1,5}}(?::{_H}){{1,2}}"
    rf"|(?:{_H}:){{1,4}}(?::{_H}){{1,3}}"
    rf"|(?:{_H}:){{1,3}}(?::{_H}){{1,4}}"
    rf"|(?:{_H}:){{1,2}}(?::{_H}){{1,5}}"
    rf"|{_H}:(?::{_H}){{1,6}}"
    rf"|:(?:(?::{_H}){{1,7}}|:)"
    rf"|(?:{_H}:){{6}}{_IPV4}"
    rf"|(?:{_H}:){{1,5}}:{_IPV4}"
    rf"|(?:{_H}:){{1,4}}:(?:{_H}:){{1}}{_IPV4}"
    rf"|(?:{_H}:){{1,3}}:(?:{_H}:){{1,2}}{_IPV4}"
    rf"|(?:{_H}:){{1,2}}:(?:{_H}:){{1,3}}{_IPV4}"
    rf"|{_H}::(?:{_H}:){{1,4}}{_IPV4}"
    rf"|::(?:{_H}:){{0,5}}{_IPV4})"
)
_NUMBER = r"(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{1,9})?)?"
_EMAIL_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"


def _anchored(body: str) -> str:
    return rf"\A(?:{body})\z"


FORMATS: dict[str, Format] = {
    "email": Format(
        _anchored(rf"{_EMAIL_LOCAL}@(?:{_LABEL}\.)+[A-Za-z]{{2,}}"),
        "local@domain.tld: dot-separated atoms, then DNS labels and a 2+ letter TLD",
    ),
    "uuid": Format(
        _anchored(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"),
        "8-4-4-4-12 hex digits, any version, either case",
    ),
    "cpf": Format(
        _anchored(r"[0-9]{11}|[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}"),
        "Brazilian CPF, 11 digits or 000.000.000-00, with valid check digits"
        " (all-equal digits such as 111.111.111-11 are invalid)",
        _cpf,
    ),
    "cnpj": Format(
        _anchored(
            r"[0-9A-Z]{12}[0-9]{2}|[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}/[0-9A-Z]{4}-[0-9]{2}"
        ),
        "Brazilian CNPJ, 14 characters or 00.000.000/0000-00, numeric or the 2026"
        " alphanumeric form (upper-case letters in the first 12), with valid check digits",
        _cnpj,
    ),
    "credit_card": Format(
        _anchored(r"(?:[0-9][ -]?){12,18}[0-9]"),
        "13 to 19 digits, optionally grouped by spaces or dashes, passing the Luhn check",
        _luhn,
    ),
    "date": Format(
        _anchored(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"),
        "ISO 8601 calendar date yyyy-MM-dd that exists (2023-02-29 is invalid)",
        _calendar("yyyy-MM-dd"),
    ),
    "date_us": Format(
        _anchored(r"[0-9]{2}/[0-9]{2}/[0-9]{4}"),
        "MM/dd/yyyy that exists",
        _calendar("MM/dd/yyyy"),
    ),
    "date_eu": Format(
        _anchored(r"[0-9]{2}/[0-9]{2}/[0-9]{4}"),
        "dd/MM/yyyy that exists (also the Brazilian format)",
        _calendar("dd/MM/yyyy"),
    ),
    "time": Format(_anchored(_TIME), "24-hour HH:mm, HH:mm:ss or HH:mm:ss.fraction"),
    "timestamp": Format(
        _anchored(
            rf"[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}[T ]{_TIME}(?:Z|[+-][0-9]{{2}}(?::?[0-9]{{2}})?)?"
        ),
        "ISO 8601 date and time (T or space), optional fraction and Z or +hh:mm offset;"
        " the date must exist",
        _calendar("yyyy-MM-dd", prefix=10),
    ),
    "phone": Format(
        _anchored(r"\+?[ .()-]*(?:[0-9][ .()-]*){7,15}"),
        "7 to 15 digits, optional leading +, separated by spaces, dots, dashes or parentheses",
    ),
    "url": Format(
        _anchored(r"(?i:https?|ftp)://[^\s/?#@]+(?:@[^\s/?#@]+)?(?:[/?#]\S*)?"),
        "http, https or ftp URL with a host and no whitespace",
    ),
    "ipv4": Format(_anchored(_IPV4), "dotted quad, each part 0-255, no leading zeros"),
    "ipv6": Format(_anchored(_IPV6), "IPv6 in full, compressed (::) or IPv4-suffixed form"),
    "ip": Format(_anchored(f"{_IPV4}|{_IPV6}"), "ipv4 or ipv6"),
    "integer": Format(_anchored(r"[+-]?[0-9]+"), "optional sign and digits"),
    "positive_integer": Format(_anchored(r"\+?0*[1-9][0-9]*"), "an integer > 0"),
    "negative_integer": Format(_anchored(r"-0*[1-9][0-9]*"), "an integer < 0"),
    "decimal": Format(
        _anchored(rf"[+-]?{_NUMBER}"), "optional sign, digits with an optional decimal point"
    ),
    "percentage": Format(_anchored(rf"[+-]?{_NUMBER} ?%"), "a decimal followed by %"),
    # Spark's own cast is the definition (it trims spaces and control characters, so
    # ' true ' and 'Y\n' are booleans): no regex, which would be a second reading of it.
    "boolean": Format(
        "",
        "what Spark casts to a boolean: true/false, t/f, yes/no, y/n, 1/0, any case,"
        " surrounding whitespace ignored",
        lambda column: f"try_cast({column} AS BOOLEAN) IS NOT NULL",
    ),
    "alphanumeric": Format(_anchored("[A-Za-z0-9]+"), "ASCII letters and digits only"),
    "alpha": Format(_anchored("[A-Za-z]+"), "ASCII letters only"),
    "hex": Format(_anchored("(?:0[xX])?[0-9A-Fa-f]+"), "hex digits, optional 0x"),
    "cep": Format(_anchored("[0-9]{5}-?[0-9]{3}"), "Brazilian postal code 00000-000"),
    "zip": Format(_anchored("[0-9]{5}(?:-[0-9]{4})?"), "US ZIP code 00000 or 00000-0000"),
}
"""Named formats (docs/rules.md lists them with what each accepts)."""


def sql_name(column: str) -> str:
    """A column name as a backticked SQL identifier."""
    return "`" + column.replace("`", "``") + "`"


def format_valid(column: str, name: str) -> Expr:
    """True exactly when a (non-null) value of ``column`` has the format ``name``."""
    fmt = FORMATS[name]
    tests: list[Expr] = [Matches(Col(column), fmt.pattern)] if fmt.pattern else []
    if fmt.extra is not None:
        tests.append(Sql(fmt.extra(sql_name(column))))
    return tests[0] if len(tests) == 1 else And(tuple(tests))

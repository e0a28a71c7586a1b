"""``expect_column_values_to_match_strftime_format`` as Spark can run it: GX on Spark
calls Python's ``datetime.strptime(value, format)`` in a UDF, so a value is expected when
strptime accepts it. Python's strptime is a regex (``_strptime.TimeRE``: one pattern per
directive, the format's other characters literal, a run of whitespace ``\\s+``, matched
case-insensitively from the value's start, which must then be consumed) and a date
(``datetime(...)``: a year from 1, a day the month has, a second below 60). Here that
regex is written for Java, the first match kept as Python keeps it (an atomic group, then
the value's end), Python's classes spelled out (its ``\\d`` is any Unicode decimal digit,
``\\p{Nd}``; its ``\\s`` and a letter's case-insensitive matches are listed from Python's
own ``re``), and the date checked in Spark SQL from the digits the regex captured.

The directives read are those GX's tests use and the ones beside them that need no locale:
``%Y %y %m %d %H %M %S %f %%``. Any other is refused at its line, naming it (``%b``,
``%p``, ``%a`` read the locale's names; ``%j``, ``%U``, ``%W``, ``%z`` change the date
computed), as is a directive given twice (Python's regex refuses it) or ``%Y`` with ``%y``.
"""

from __future__ import annotations

import functools
import re
import sys
from array import array
from dataclasses import dataclass

DIRECTIVES: dict[str, str] = {
    "d": r"(?P<d>3[0-1]|[1-2]\d|0[1-9]|[1-9]| [1-9])",
    "f": r"(?P<f>[0-9]{1,6})",
    "H": r"(?P<H>2[0-3]|[0-1]\d|\d)",
    "m": r"(?P<m>1[0-2]|0[1-9]|[1-9])",
    "M": r"(?P<M>[0-5]\d|\d)",
    "S": r"(?P<S>6[0-1]|[0-5]\d|\d)",
    "y": r"(?P<y>\d\d)",
    "Y": r"(?P<Y>\d\d\d\d)",
}
"""Python's own patterns (``_strptime.TimeRE()[directive]``, Python 3.11; a test checks
them against the running Python's)."""
_DIGIT = r"\p{Nd}"


class FormatError(ValueError):
    """A format assay does not translate (the message names the directive)."""


@dataclass(frozen=True, slots=True)
class Translated:
    """A strftime format as a Java regex (anchored, the first match kept) and the group
    of each directive captured (1-based, for ``regexp_extract``)."""

    regex: str
    groups: dict[str, int]


def translate(fmt: str) -> Translated:
    """The Java regex accepting what Python's strptime's regex accepts for ``fmt``."""
    parts: list[str] = []
    groups: dict[str, int] = {}
    i = 0
    while i < len(fmt):
        char = fmt[i]
        if char == "%":
            if i + 1 == len(fmt):
                raise FormatError("a stray % ends the format")
            directive = fmt[i + 1]
            parts.append(_directive(directive, groups))
            i += 2
        elif _space(char):
            while i < len(fmt) and _space(fmt[i]):
                i += 1
            parts.append("[" + _class(_matching(r"\s")) + "]+")
        else:
            parts.append(_literal(char))
            i += 1
    if "Y" in groups and "y" in groups:
        raise FormatError("%Y and %y both give the year")
    return Translated(r"\A(?>" + "".join(parts) + r")\z", groups)


def _directive(directive: str, groups: dict[str, int]) -> str:
    if directive == "%":
        return _literal("%")
    if directive not in DIRECTIVES:
        raise FormatError(f"%{directive} is not supported")
    if directive in groups:
        raise FormatError(f"%{directive} is given twice (Python's strptime refuses it)")
    groups[directive] = len(groups) + 1
    body = DIRECTIVES[directive].split(">", 1)[1]
    return "(" + body.replace(r"\d", _DIGIT)


def _space(char: str) -> bool:
    return re.fullmatch(r"\s", char) is not None


def _literal(char: str) -> str:
    """A literal character of the format as Python matches it (case-insensitively)."""
    found = _matching("(?i)" + re.escape(char))
    return f"[{_class(found)}]" if len(found) > 1 else _class(found)


@functools.cache
def _matching(pattern: str) -> str:
    """Every character Python's ``re`` matches with ``pattern`` (one character)."""
    return "".join(re.findall(pattern, _every()))


@functools.cache
def _every() -> str:
    """Every character but the surrogates, once."""
    points = (
        array("I", range(0xD800)).tobytes()
        + array("I", range(0xE000, sys.maxunicode + 1)).tobytes()
    )
    return points.decode("utf-32-le")


def _class(chars: str) -> str:
    """``chars`` as the inside of a Java character class, in ranges of code points."""
    points = sorted({ord(c) for c in chars})
    out: list[str] = []
    start = prev = points[0]
    for point in [*points[1:], -1]:
        if point == prev + 1:
            prev = point
            continue
        low, high = _code(start), _code(prev)
        out.append(low if start == prev else f"{low}-{high}")
        start = prev = point
    return "".join(out)


def _code(point: int) -> str:
    char = chr(point)
    if char.isascii() and char.isalnum():
        return char
    return f"\\x{{{point:X}}}"


@functools.cache
def decimal_digits() -> tuple[str, str]:
    """Python's decimal digits but ASCII's, and the ASCII digit of each (for Spark's
    ``translate``): the digits strptime reads as numbers."""
    found = [c for c in _matching(r"\d") if not c.isascii()]
    return "".join(found), "".join(str(int(c)) for c in found)


def invalid_date_sql(column: str, found: Translated) -> str | None:
    """Spark SQL true when a value the regex matched is no date Python builds (a year 0,
    a day past its month's end, a second of 60 or 61); None when no value can be. The
    digits captured are extracted from the value as written (so the regex's first match
    is Python's), joined, turned into ASCII digits at once and read as numbers by a
    lambda (``transform``), so that each is written once."""
    groups = found.groups
    day_checked = "d" in groups and "m" in groups
    wanted: list[str] = [d for d in ("S", "Y") if d in groups]
    if day_checked:
        wanted += [d for d in ("y", "m", "d") if d in groups and d not in wanted]
    if not wanted:
        return None
    regex = _sql_string(found.regex)
    parts = ", ".join(f"regexp_extract({column}, {regex}, {groups[d]})" for d in wanted)
    source, target = (_sql_string(t) for t in decimal_digits())
    digits = f"split(translate(concat_ws(',', {parts}), {source}, {target}), ',')"

    def number(directive: str) -> str:
        return f"try_cast(gx_digits[{wanted.index(directive)}] AS INT)"

    tests: list[str] = []
    if "S" in groups:
        tests.append(f"{number('S')} > 59")
    if "Y" in groups:
        tests.append(f"{number('Y')} = 0")
    if day_checked:
        year = number("Y") if "Y" in groups else number("y") if "y" in groups else None
        if year is None:  # 1900
            leap = "false"
        elif "Y" in groups:
            leap = f"({year} % 4 = 0 AND ({year} % 100 <> 0 OR {year} % 400 = 0))"
        else:  # 1969-2068
            leap = f"{year} % 4 = 0"
        month, day = number("m"), number("d")
        days = (
            f"CASE WHEN {month} = 2 THEN IF({leap}, 29, 28) "
            f"WHEN {month} IN (4, 6, 9, 11) THEN 30 ELSE 31 END"
        )
        tests.append(f"{day} > {days}")
    judged = " OR ".join(tests)
    return f"coalesce(transform(array({digits}), gx_digits -> {judged})[0], false)"


def _sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal (backslashes and quotes escaped)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"

"""sparquet-cola's threshold language (``must_be``/``warn`` of a sparquet validations
block), read exactly as sparquet-cola 0.4.0's ``thresholds.py`` reads it.

It is not the native grammar (:mod:`assay.grammar.parser`): sparquet-cola matches three
regular expressions and hands each number to Python's ``float``, so it accepts more than
native thresholds do, and compares doubles:

- ``between A and B`` / ``not between A and B``: keywords in any case, ``A > B`` allowed
  (never satisfied), each bound read like a number below;
- an operator ``>= <= <> != == = > <`` (``<>`` is ``!=``, ``==`` is ``=``), spaces optional;
- else a bare number, meaning ``=``.

A number is ``[+-]digits[.digits]`` followed by a duration unit ``s m h d w`` in any
case (spaces allowed before it; converted to seconds), or anything Python's ``float``
reads once trailing ``%`` signs are removed: ``5``, ``+5``, ``.5``, ``1e3``, ``1_000``,
``5 %``, ``inf``, ``nan``.

What sparquet-cola would raise on (when the rule runs) is a config error here, with the
same reading; a threshold that is not a string (``"must_be": 0``) is refused too:
sparquet-cola raises on it, or, for a ``warn`` of ``0``/``false``/``""``, silently has no
warn threshold.
"""

from __future__ import annotations

import re
from decimal import Decimal

from assay.errors import ThresholdSyntaxError
from assay.ir.origin import Origin
from assay.ir.values import Between, Comparison, Op, Threshold, Unit

_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_NUM = r"[-+]?\d+(?:\.\d+)?"
_DURATION_RE = re.compile(rf"^({_NUM})\s*([smhdw])$", re.IGNORECASE)
_OP_RE = re.compile(r"^(>=|<=|<>|!=|==|=|>|<)\s*(.+)$")
_BETWEEN_RE = re.compile(r"^(not\s+between|between)\s+(.+?)\s+and\s+(.+)$", re.IGNORECASE)
_OPS = {">=": Op.GE, "<=": Op.LE, "<>": Op.NE, "!=": Op.NE, "==": Op.EQ, "=": Op.EQ}
_OPS.update({">": Op.GT, "<": Op.LT})

HINT = (
    'write e.g. "> 0", "<= 10", "<> 0", "< 5%", "<= 2h" or "between 10 and 20" '
    "(sparquet-cola's threshold language)"
)


def _number(token: str, text: str, origin: Origin) -> tuple[Decimal, Unit]:
    """sparquet-cola's ``parse_number``: the value as the double it reads, and its unit."""
    token = token.strip()
    m = _DURATION_RE.match(token)
    if m:
        seconds = float(m.group(1)) * _DURATION_UNITS[m.group(2).lower()]
        return Decimal(seconds), "seconds"
    bare = token.rstrip("%").strip()
    try:
        value = float(bare)
    except ValueError:
        raise ThresholdSyntaxError(
            f"invalid threshold \"{text}\": '{token}' is not a number", origin=origin, hint=HINT
        ) from None
    return Decimal(value), ("percent" if token.endswith("%") else "number")


def parse_sparquet_threshold(text: str, origin: Origin) -> Threshold:
    """The threshold ``text`` as sparquet-cola reads it (comparisons are on doubles).

    >>> parse_sparquet_threshold("<> 0", Origin("v.json")).op
    <Op.NE: '!='>
    >>> parse_sparquet_threshold("BETWEEN 1H AND +2d", Origin("v.json")).high
    Decimal('172800')

    Raises:
        ThresholdSyntaxError: what sparquet-cola would raise on.
    """
    s = text.strip()
    if not s:
        raise ThresholdSyntaxError("the threshold is empty", origin=origin, hint=HINT)
    m = _BETWEEN_RE.match(s)
    if m:
        low, unit = _number(m.group(2), text, origin)
        high, _ = _number(m.group(3), text, origin)
        negate = m.group(1).lower().startswith("not")
        return Between(low, high, s, negate=negate, unit=unit, floats=True)
    m = _OP_RE.match(s)
    if m:
        value, unit = _number(m.group(2), text, origin)
        return Comparison(_OPS[m.group(1)], value, s, unit, floats=True)
    value, unit = _number(s, text, origin)
    return Comparison(Op.EQ, value, s, unit, floats=True)

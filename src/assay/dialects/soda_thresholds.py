"""SodaCL's thresholds (soda-core 3.x, ``soda/sodacl/threshold_cfg.py`` and the
``threshold`` rule of ``SodaCLAntlr.g4``) and their reading as assay thresholds.

A Soda check has a fail zone and a warn zone, each a :class:`Zone` (Soda's
``ThresholdCfg``: bounds that are all true in the zone, or with ``split`` a value beyond
either side). An inline threshold (``row_count > 0``) is the passing zone: its inverse is
the fail zone, as Soda's parser makes it. assay judges the complement of a zone (the
``must``/``warn`` of a :class:`~assay.ir.rules.MetricCheck`).

Soda rounds the percentages it derives (``missing_percent``, ``invalid_percent``) to two
decimals before judging them (``round(count * 100 / rows, 2)``, in doubles): their zones
are moved onto the unrounded percentage the planner measures, bound by bound, to the
first double whose rounding crosses the bound (:func:`rounded_cut`), so the verdict is
the one Soda gives on its rounded value.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, replace
from decimal import Decimal

from assay.ir.values import Between, Comparison, Op, Threshold, Unit

NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
DURATION = r"(?:\d+[dhms])+"
_VALUE = rf"(?:{NUMBER}(?: ?%)?|{DURATION})"
_COMPARATOR = re.compile(rf"^(<=|>=|!=|<>|<|>|=) ({_VALUE})$")
_BETWEEN = re.compile(rf"^(not )?between ([\[(]?)({_VALUE}) and ({_VALUE})([\])]?)$")


class ThresholdError(ValueError):
    """A threshold Soda's grammar does not read (the message says what was expected)."""


@dataclass(frozen=True, slots=True)
class Zone:
    """Soda's ``ThresholdCfg``: the values in the zone satisfy every bound, or with
    ``split`` either the lower (``gte``/``gt``) or the upper (``lt``/``lte``) side."""

    gte: float | None = None
    gt: float | None = None
    lt: float | None = None
    lte: float | None = None
    split: bool = False

    def inverse(self) -> Zone:
        """Soda's ``get_inverse``."""
        lower = self.gt is not None or self.gte is not None
        upper = self.lt is not None or self.lte is not None
        split = not self.split if lower and upper else self.split
        return Zone(gte=self.lt, gt=self.lte, lt=self.gte, lte=self.gt, split=split)

    def is_bad(self, value: float) -> bool:
        """Soda's ``is_bad``, in Python's number comparisons (NaN is in no bounded zone)."""
        above = (self.gte is None or value >= self.gte) and (self.gt is None or value > self.gt)
        below = (self.lt is None or value < self.lt) and (self.lte is None or value <= self.lte)
        return (above or below) if self.split else (above and below)

    def seconds(self) -> float | None:
        """Soda's ``get_freshness_threshold``: the lower bound of a fail or warn zone."""
        return self.gte if self.gte is not None else self.gt


def parse(text: str, *, durations: bool = False) -> Zone:
    """The zone a threshold text describes (``> 10``, ``between 1 and 5``,
    ``not between (0 and 5]``, ``< 1d``): the values that satisfy it. A ``%`` after a
    number is read and ignored, as Soda does.

    Raises:
        ThresholdError: not a threshold of Soda's grammar.
    """
    found = _COMPARATOR.match(text)
    if found:
        op, value = found.group(1), _value(found.group(2), durations)
        if op == "<":
            return Zone(lt=value)
        if op == "<=":
            return Zone(lte=value)
        if op == ">":
            return Zone(gt=value)
        if op == ">=":
            return Zone(gte=value)
        if op == "=":
            return Zone(lte=value, gte=value)
        return Zone(lt=value, gt=value, split=True)
    found = _BETWEEN.match(text)
    if found:
        negate, left, low_text, high_text, right = found.groups()
        low, high = _value(low_text, durations), _value(high_text, durations)
        if low > high:
            raise ThresholdError(f"the lower bound {low_text} is above the upper bound {high_text}")
        low_in, high_in = left != "(", right != ")"
        zone = Zone(
            gte=low if low_in else None,
            gt=None if low_in else low,
            lte=high if high_in else None,
            lt=None if high_in else high,
        )
        return zone.inverse() if negate else zone
    raise ThresholdError(
        f"'{text}' is not a threshold: expected '<op> <value>' (<, <=, =, !=, <>, >=, >) "
        "or '[not] between <low> and <high>'"
    )


def _value(text: str, durations: bool) -> float:
    text = text.replace(" ", "").rstrip("%")
    if re.fullmatch(DURATION, text):
        if not durations:
            raise ThresholdError(f"'{text}' is a duration: only freshness reads one")
        units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
        return float(sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([dhms])", text)))
    if durations:
        raise ThresholdError(f"'{text}' is not a duration such as 1d, 6h, 30m or 1d12h")
    return float(text)


# --- the complement of a zone, as assay's thresholds -------------------------------------


def passing(zone: Zone, text: str, *, rounded: bool = False, unit: Unit = "number") -> Threshold:
    """The values outside ``zone`` (those Soda does not put in it) as an assay threshold
    shown as ``text``; with ``rounded``, of a percentage Soda rounds to two decimals."""
    if rounded:
        zone = _unrounded(zone)
    if zone.split:
        low = zone.lt if zone.lt is not None else zone.lte
        high = zone.gt if zone.gt is not None else zone.gte
        return Between(
            _dec(low),
            _dec(high),
            text,
            low_inclusive=zone.lt is not None,
            high_inclusive=zone.gt is not None,
            unit=unit,
        )
    low = zone.gte if zone.gte is not None else zone.gt
    high = zone.lte if zone.lte is not None else zone.lt
    if low is not None and high is None:
        op = Op.LT if zone.gte is not None else Op.LE
        return Comparison(op, _dec(low), text, unit=unit)  # type: ignore[arg-type]
    if high is not None and low is None:
        op = Op.GE if zone.lt is not None else Op.GT
        return Comparison(op, _dec(high), text, unit=unit)  # type: ignore[arg-type]
    return Between(
        _dec(low),
        _dec(high),
        text,
        negate=True,
        low_inclusive=zone.gte is not None,
        high_inclusive=zone.lte is not None,
        unit=unit,
    )


def describe(zone: Zone) -> str:
    """The values outside ``zone`` in Soda's threshold syntax (``<= 10``, ``between 1 and
    5``, ``not between (0 and 5]``).

    >>> describe(parse("> 10")), describe(parse("between 1 and 5").inverse())
    ('<= 10', 'between 1 and 5')
    """
    low = zone.gte if zone.gte is not None else zone.gt
    high = zone.lte if zone.lte is not None else zone.lt
    if zone.split:
        low, high = (
            (zone.lt if zone.lt is not None else zone.lte),
            (zone.gt if zone.gt is not None else zone.gte),
        )
        if low is None or high is None:
            one = zone.lt is not None if low is not None else zone.gt is not None
            op = (">=" if one else ">") if low is not None else ("<=" if one else "<")
            return f"{op} {_num(low if low is not None else high)}"
        if low == high and zone.lt is not None and zone.gt is not None:
            return f"= {_num(low)}"
        return f"between {_range(low, high, zone.lt is not None, zone.gt is not None)}"
    if low is not None and high is None:
        return f"{'<' if zone.gte is not None else '<='} {_num(low)}"
    if high is not None and low is None:
        return f"{'>=' if zone.lt is not None else '>'} {_num(high)}"
    if low == high and zone.gte is not None and zone.lte is not None:
        return f"!= {_num(low)}"
    return f"not between {_range(low, high, zone.gte is not None, zone.lte is not None)}"


def _range(low: float | None, high: float | None, low_in: bool, high_in: bool) -> str:
    if low_in and high_in:
        return f"{_num(low)} and {_num(high)}"
    return f"{'[' if low_in else '('}{_num(low)} and {_num(high)}{']' if high_in else ')'}"


def _num(value: float | None) -> str:
    return str(int(value)) if value is not None and value.is_integer() else repr(value)


ANY_VALUE = Between(None, None, "")
"""No fail zone: every value passes (a check with only a warn zone)."""


def _dec(value: float | None) -> Decimal | None:
    # repr: the shortest text of the double, the one assay's judge compares a measured
    # double by (ir.values.to_decimal), so the order of doubles is kept
    return None if value is None else Decimal(repr(float(value)))


def _unrounded(zone: Zone) -> Zone:
    """The zone of ``round(p, 2)`` as a zone of ``p``: every bound becomes ``p >= cut``
    or ``p < cut`` (the first double whose rounding is in, or beyond, the bound)."""
    gte = gt = lt = lte = None
    if zone.gte is not None:
        gte = rounded_cut(lambda r: r >= zone.gte)  # type: ignore[operator]
    if zone.gt is not None:
        gte = rounded_cut(lambda r: r > zone.gt)  # type: ignore[operator]
    if zone.lt is not None:
        lt = rounded_cut(lambda r: not r < zone.lt)  # type: ignore[operator]
    if zone.lte is not None:
        lt = rounded_cut(lambda r: not r <= zone.lte)  # type: ignore[operator]
    return replace(zone, gte=gte, gt=gt, lt=lt, lte=lte)


def rounded_cut(holds: object) -> float:
    """The least double ``d`` in [-1e6, 1e6] for which ``holds(round(d, 2))`` (a property
    that, once true, stays true for every greater double); -inf when it holds for every
    one, +inf for none.

    >>> cut = rounded_cut(lambda r: r >= 5.0)
    >>> cut, round(cut, 2), round(math.nextafter(cut, 0), 2)
    (4.995, 5.0, 4.99)
    """
    test = holds  # a callable; typed loosely for the lambdas above
    low, high = _bits(-1e6), _bits(1e6)
    if test(round(_float(low), 2)):  # type: ignore[operator]
        return -math.inf
    if not test(round(_float(high), 2)):  # type: ignore[operator]
        return math.inf
    while high - low > 1:
        mid = (low + high) // 2
        if test(round(_float(mid), 2)):  # type: ignore[operator]
            high = mid
        else:
            low = mid
    return _float(high)


def _bits(value: float) -> int:
    """A double as an integer that orders as the doubles do."""
    (raw,) = struct.unpack("<q", struct.pack("<d", value))
    return raw if raw >= 0 else -(raw & 0x7FFFFFFFFFFFFFFF)


def _float(bits: int) -> float:
    raw = bits if bits >= 0 else (-bits) | -0x8000000000000000
    (value,) = struct.unpack("<d", struct.pack("<q", raw))
    return float(value)

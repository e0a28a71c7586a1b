"""How long a Java look-behind can be (pure): ``java.util.regex.Pattern`` refuses a
look-behind whose longest match it cannot bound ("Look-behind group does not have an
obvious maximum length"), and decides it by walking the parsed pieces with 32-bit
arithmetic, where an unbounded quantifier of one character adds ``2**31 - 1`` and an
overflow is only noticed inside a counted repetition. This module reproduces that walk
over the pieces :mod:`assay.grammar.java_regex` reads, so ``(?<=a*)`` and ``(?<=(a)*)``
are accepted (as Java does) and ``(?<=(ab)*)``, ``(?<=(a|b)+)`` or ``(?<=\\1)`` refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_REPS = 0x7FFFFFFF


@dataclass(frozen=True, slots=True)
class Fixed:
    """A piece of ``longest`` characters (a character, a literal run, ``\\R`` (2), an
    assertion (0)); ``exact`` is false when Java studies it as not deterministic."""

    longest: int
    exact: bool = True


@dataclass(frozen=True, slots=True)
class BackRef:
    """A back reference: its length is unknown."""


@dataclass(frozen=True, slots=True)
class Greedy:
    """A one-character piece under a greedy ``*``, ``+`` or ``{n,}``."""


@dataclass(frozen=True, slots=True)
class Counted:
    """``atom{cmin,cmax}`` (a repetition Java studies through its atom)."""

    atom: tuple[Piece, ...]
    cmin: int
    cmax: int


@dataclass(frozen=True, slots=True)
class Optional:
    """``atom?`` of one piece, or a possessive or atomic group (``independent``)."""

    atom: tuple[Piece, ...]
    independent: bool = False


@dataclass(frozen=True, slots=True)
class Branch:
    """Alternatives (a group's ``|``, or a group under ``?``: itself or nothing)."""

    alternatives: tuple[tuple[Piece, ...], ...]


@dataclass(frozen=True, slots=True)
class Loop:
    """A repeated group Java does not find deterministic: never bounded."""


Piece = Fixed | BackRef | Greedy | Counted | Optional | Branch | Loop


def _i32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


@dataclass(slots=True)
class _Info:
    longest: int = 0
    bounded: bool = True
    exact: bool = True


def _study(chain: Sequence[Piece], info: _Info) -> None:
    for index, piece in enumerate(chain):
        if isinstance(piece, Branch):
            _branch(piece, chain[index + 1 :], info)
            return
        if isinstance(piece, Loop):
            info.bounded = info.exact = False
            return
        if isinstance(piece, Fixed):
            info.longest = _i32(info.longest + piece.longest)
            info.exact = info.exact and piece.exact
        elif isinstance(piece, BackRef):
            info.bounded = False
        elif isinstance(piece, Greedy):
            if info.bounded:
                info.longest = _i32(info.longest + MAX_REPS)
            info.exact = False
        elif isinstance(piece, Counted):
            _counted(piece, info)
        else:
            if not piece.independent:
                info.exact = False
            _study(piece.atom, info)
            if not piece.independent:
                info.exact = False


def _counted(piece: Counted, info: _Info) -> None:
    before, bounded, exact = info.longest, info.bounded, info.exact
    inner = _Info()
    _study(piece.atom, inner)
    if bounded and inner.bounded:
        info.longest = _i32(inner.longest * piece.cmax + before)
        info.bounded = info.longest >= before
    else:
        info.longest, info.bounded = inner.longest, False
    info.exact = exact if inner.exact and piece.cmin == piece.cmax else False


def _branch(piece: Branch, rest: Sequence[Piece], info: _Info) -> None:
    longest, bounded = info.longest, info.bounded
    widest = -1
    for alternative in piece.alternatives:
        inner = _Info()
        _study(alternative, inner)
        widest = max(widest, inner.longest)
        bounded = bounded and inner.bounded
    longest = _i32(longest + widest)
    after = _Info()
    _study(rest, after)
    info.longest = _i32(after.longest + longest)
    info.bounded = after.bounded and bounded
    info.exact = False


def deterministic(chain: Sequence[Piece]) -> bool:
    """Whether Java repeats a group of ``chain`` without backtracking into it (a
    ``GroupCurly``); else it is a ``Loop``, whose length is never bounded."""
    info = _Info()
    _study(chain, info)
    return info.exact


def bounded(chain: Sequence[Piece]) -> bool:
    """Whether Java finds an obvious maximum length for a look-behind of ``chain``.

    >>> bounded([Fixed(1), Greedy()]), bounded([Counted((Fixed(2),), 0, MAX_REPS)])
    (True, False)
    """
    info = _Info()
    _study(chain, info)
    return info.bounded

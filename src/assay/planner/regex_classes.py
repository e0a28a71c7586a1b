"""Character classes of Java regexes as Java reads them (pure): their members, and a
class of several ranges rewritten as the one bit set Java gathers it into
(:func:`one_bit_set`). Read by :mod:`assay.planner.regex` (finite languages) and
:mod:`assay.planner.regex_runs` (runs of one class)."""

from __future__ import annotations

import re
from dataclasses import dataclass


class NotFinite(Exception):
    """The pattern is outside the recognised subset, or its language is too large."""


def one_bit_set(pattern: str) -> str:
    """``pattern`` with every character class of two or more ranges, or ranges and single
    characters, all below U+0100, written as the list of its members: the same set, which
    Java's parser gathers into one bit set (one lookup per character) instead of a test
    per range chained after it. ``[A-Za-z0-9 ,.]`` is a bit set of the two singles and
    three range tests ORed per character; on TPC-H's comments the benchmark's class
    ``[A-Za-z0-9 ,.;:!?'-]`` ran 1.44 s per 6 million rows as written, 0.95 s as one bit
    set.

    Exact by construction: Java reads a class of literal characters, escaped
    punctuation and ranges as the union of their characters, and puts each single
    member below U+0100 into one ``BitClass`` (``Pattern.bitsOrSingle``). Left as it is:
    a pattern with flags (``(?i)`` changes how members match, ``(?x)`` how a class reads),
    ``\\Q`` quoting or ``\\c`` (which can swallow a ``[``); a class with nesting, an
    intersection, an escape like ``\\d``, ``\\x41`` or ``\\p{..}``,
    a member at or above U+0100 or an ambiguous ``-``: then the whole pattern, so an
    invalid one still fails in Spark with its own message.

    >>> one_bit_set("^[A-C0-2]{1,9}$")
    '^[012ABC]{1,9}$'
    >>> one_bit_set("^[0-9]{5}$")  # one range: one test already
    '^[0-9]{5}$'
    >>> one_bit_set("(?i)[a-c]")  # a flag: left alone
    '(?i)[a-c]'
    """
    if "\\Q" in pattern or "\\c" in pattern or re.search(r"\(\?[A-Za-z-]", pattern):
        return pattern
    out: list[str] = []
    i = 0
    try:
        while i < len(pattern):
            ch = pattern[i]
            if ch == "\\":
                out.append(pattern[i : i + 2])
                i += 2
            elif ch == "[":
                text, i = _class_as_bit_set(pattern, i)
                out.append(text)
            else:
                out.append(ch)
                i += 1
    except (NotFinite, IndexError):
        return pattern
    return "".join(out)


@dataclass(frozen=True)
class CharClass:
    """A character class as Java reads it: its members' code points, whether negated, how
    many tests Java chains for it (one per range, one for all the single characters) and
    the index after its closing bracket."""

    members: frozenset[int]
    negated: bool
    tests: int
    end: int


def read_class(pattern: str, start: int) -> CharClass:
    """The class opening at ``start``: literal characters, backslash-escaped ASCII
    punctuation and ranges, negated or not. Raises ``NotFinite`` for anything else
    (nesting, ``&&``, ``\\d``-style escapes, an ambiguous ``-``, a leading ``]``, an illegal
    range: Spark then reports it) and ``IndexError`` for an unclosed class."""
    i = start + 1
    negated = pattern[i] == "^"
    i += negated
    if pattern[i] == "]":
        raise NotFinite  # a leading ']' (Java's reading differs by version)
    members: set[int] = set()
    ranges = singles = 0
    first = True
    while pattern[i] != "]":
        if pattern[i] == "[" or pattern.startswith("&&", i):
            raise NotFinite  # nesting, intersection
        if pattern[i] == "-" and not first and pattern[i + 1] != "]":
            raise NotFinite  # a '-' that is neither first, last nor a range
        low, i = _class_member(pattern, i)
        if pattern[i] == "-" and pattern[i + 1] not in "][":
            high, i = _class_member(pattern, i + 1)
            if high < low:
                raise NotFinite
            members.update(range(low, high + 1))
            ranges += 1
        else:
            members.add(low)
            singles = 1
        first = False
    return CharClass(frozenset(members), negated, ranges + singles, i + 1)


def _class_as_bit_set(pattern: str, start: int) -> tuple[str, int]:
    """The class opening at ``start`` (rewritten when Java would test it as a chain of
    two or more predicates, all its members below U+0100; else as written) and the index
    after it."""
    read = read_class(pattern, start)
    if read.tests < 2 or max(read.members) >= 0x100:
        return pattern[start : read.end], read.end  # one test already, or beyond a bit set
    listed = "".join(class_literal(m) for m in sorted(read.members))
    return f"[{'^' if read.negated else ''}{listed}]", read.end


def _class_member(pattern: str, i: int) -> tuple[int, int]:
    """The code point of the member at ``i`` (a character or a backslash-escaped ASCII
    punctuation character) and the index after it."""
    ch = pattern[i]
    if ch == "\\":
        ch = pattern[i + 1]
        if ch.isalnum() or not ch.isascii():
            raise NotFinite  # \d, \x41, \u0041, \p{..}, \0: not read here
        return ord(ch), i + 2
    return ord(ch), i + 1


def class_literal(code: int) -> str:
    """A class member as Java reads it literally: ASCII punctuation and space escaped."""
    ch = chr(code)
    return "\\" + ch if ch.isascii() and not ch.isalnum() and 32 <= code < 127 else ch

"""Cheaper exact forms of regexes (pure): those matching a small, finite set of strings,
and the other regexes' classes as one bit set (:mod:`assay.planner.regex_classes`); runs
of one ASCII class are :mod:`assay.planner.regex_runs`'s.

``rlike`` runs Java's regex engine on every row (a ``String`` copy and a ``Matcher`` per
row and pattern). A pattern whose language is a few strings -- literal text, or the
enum-like patterns users write for codes and flags (``^[ANR]$``, ``^(Y|N)$``,
``^(AIR|RAIL|SHIP)$``, ``^[A-C]{1,2}$``) -- asks a plain string question that Spark
answers on the UTF-8 bytes directly, with no regex at all:

=================  ==========================================================
``L``              ``contains(x, s)`` for any ``s`` in L (``find`` = substring)
``^L``             ``startswith(x, s)`` (``^`` without MULTILINE: position 0)
``L$``             ``endswith(x, s)`` or ``endswith(x, s + terminator)``
``^L$``            ``x IN (every s, and s + each terminator)``
=================  ==========================================================

``$`` (without MULTILINE) also matches before a line terminator that ends the input, so
the forms with ``$`` list each terminator Java accepts there: ``\\n``, ``\\r\\n``, ``\\r``,
``\\u0085``, ``\\u2028``, ``\\u2029`` -- except ``\\n`` right after a ``\\r`` (Java never
matches ``$`` between the two halves of ``\\r\\n``).

The recognised subset of Java's syntax is small and every piece of it is exact: literal
characters (any outside Java's metacharacters, or a backslash-escaped non-alphanumeric
ASCII character), character classes of literal characters and ranges (``[A-Za-z0-9_-]``;
no negation, intersection, nesting or ``\\d``-style escapes), groups ``(...)`` and
``(?:...)`` with ``|``, and the bounded greedy quantifiers ``?``, ``{n}`` and ``{m,n}``.
``^`` may only open and ``$`` only close a top-level alternative (alternation binds
loosest: ``^A|B$`` is "starts with A, or ends with B"; the alternatives' tests are
ORed). Anything else (``.``, ``*``, ``+``, ``{m,}``, lazy or possessive quantifiers,
flags, ``\\Q``, back references, lookaround) or a language over the size limits keeps
``rlike``. An invalid pattern never reaches the planner: the config is refused when it
loads (``assay.grammar.java_regex``), and the server compiles every pattern before a scan.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from assay.ir.expr import (
    LINE_TERMINATORS,
    Expr,
    HasText,
    InSet,
    Matches,
    any_of,
    rebuild,
    walk,
)
from assay.planner.regex_classes import NotFinite, one_bit_set, read_class

_META = set("\\^$.|?*+()[]{}")

# Size limits: an IN set is one hash lookup whatever its size; every string of the other
# forms is a comparison of its own per row (and ``$`` multiplies them by 7).
MAX_IN_SET = 256
MAX_TESTS = 8
MAX_END_TESTS = 4
MAX_TEXT = 10_000  # characters over the whole language: no runaway ``a{1000}{1000}``


class _Language:
    """Recursive-descent reader of the recognised subset; each rule returns the set of
    strings the piece matches."""

    def __init__(self, body: str, limit: int) -> None:
        self.text = body
        self.i = 0
        self.limit = limit

    def read(self) -> frozenset[str]:
        out = self.alternation()
        if self.i != len(self.text):
            raise NotFinite  # an unbalanced ')'
        return out

    def _peek(self) -> str | None:
        return self.text[self.i] if self.i < len(self.text) else None

    def _checked(self, strings: Iterable[str]) -> frozenset[str]:
        out = frozenset(strings)
        if len(out) > self.limit or sum(map(len, out)) > MAX_TEXT:
            raise NotFinite
        return out

    def alternation(self) -> frozenset[str]:
        out = set(self.sequence())
        while self._peek() == "|":
            self.i += 1
            out |= self.sequence()
        return self._checked(out)

    def sequence(self, top: bool = False) -> frozenset[str]:
        """One alternative; at the ``top`` level it stops before a ``$`` that ends it."""
        out = frozenset({""})
        while self._peek() not in (None, "|", ")"):
            if top and self._peek() == "$" and self.text[self.i + 1 : self.i + 2] in ("", "|"):
                break
            piece = self.repeat(self.atom())
            if len(out) * len(piece) > self.limit:
                raise NotFinite
            out = self._checked(a + b for a in out for b in piece)
        return out

    def atom(self) -> frozenset[str]:
        ch = self.text[self.i]
        if ch == "(":
            self.i += 1
            if self.text.startswith("?:", self.i):
                self.i += 2
            elif self._peek() == "?":
                raise NotFinite  # flags, lookaround, named groups
            inner = self.alternation()
            if self._peek() != ")":
                raise NotFinite
            self.i += 1
            return inner
        if ch == "[":
            return self._checked(self.char_class())
        if ch == "\\":
            return frozenset({self.escaped()})
        if ch in _META:
            raise NotFinite
        self.i += 1
        return frozenset({_plain(ch)})

    def escaped(self) -> str:
        nxt = self.text[self.i + 1] if self.i + 1 < len(self.text) else ""
        if not nxt or nxt.isalnum() or ord(nxt) > 127:
            raise NotFinite  # \d, \Q, \1, \u0041 ...: not handled here
        self.i += 2
        return nxt

    def char_class(self) -> set[str]:
        read = read_class(self.text, self.i)
        if read.negated or len(read.members) > self.limit:
            raise NotFinite
        self.i = read.end
        return {_plain(chr(m)) for m in read.members}

    def repeat(self, piece: frozenset[str]) -> frozenset[str]:
        ch = self._peek()
        if ch in ("*", "+"):
            raise NotFinite
        if ch == "?":
            self.i += 1
            low, high = 0, 1
        elif ch == "{":
            low, high = self._bounds()
        else:
            return piece
        if self._peek() in ("?", "+", "*", "{"):
            raise NotFinite  # lazy / possessive / stacked quantifiers
        out: set[str] = {""} if low == 0 else set()
        power = frozenset({""})
        for n in range(1, high + 1):
            if len(power) * len(piece) > self.limit:
                raise NotFinite
            power = self._checked(a + b for a in power for b in piece)
            if n >= low:
                out |= power
        return self._checked(out)

    def _bounds(self) -> tuple[int, int]:
        close = self.text.find("}", self.i)
        if close < 0:
            raise NotFinite
        low_text, comma, high_text = self.text[self.i + 1 : close].partition(",")
        if not low_text.isascii() or not low_text.isdigit():
            raise NotFinite
        if comma and (not high_text.isascii() or not high_text.isdigit()):
            raise NotFinite  # {m,} is unbounded
        low = int(low_text)
        high = int(high_text) if comma else low
        if high < low or high > 64:
            raise NotFinite
        self.i = close + 1
        return low, high


def _plain(ch: str) -> str:
    if ord(ch) > 0xFFFF or 0xD800 <= ord(ch) <= 0xDFFF:
        raise NotFinite  # Java counts UTF-16 units in places: keep it out of scope
    return ch


def language(pattern: str, limit: int = MAX_IN_SET) -> frozenset[str] | None:
    """The strings an unanchored pattern matches in full, or None when the pattern is
    outside the recognised subset or matches more than ``limit`` strings.

    >>> sorted(language(r"(AIR|RAIL)\\.?"))
    ['AIR', 'AIR.', 'RAIL', 'RAIL.']
    >>> language("[A-Z]+") is None
    True
    """
    try:
        return _Language(pattern, limit).read()
    except (NotFinite, IndexError):
        return None


def _with_terminators(text: str) -> tuple[str, ...]:
    """``text`` and ``text`` followed by each line terminator Java's ``$`` accepts after it."""
    return (text, *(text + t for t in LINE_TERMINATORS if not (t == "\n" and text.endswith("\r"))))


def _minimal(strings: frozenset[str], covers: str) -> list[str]:
    """The strings no shorter one already answers for (a prefix, or a substring)."""
    kept: list[str] = []
    for s in sorted(strings, key=lambda s: (len(s), s)):
        if not any(s.startswith(k) if covers == "start" else k in s for k in kept):
            kept.append(s)
    return kept


@functools.lru_cache(maxsize=1024)
def _alternatives(pattern: str) -> tuple[tuple[bool, frozenset[str], bool], ...] | None:
    """The top-level alternatives of ``pattern``, each as (anchored at the start, its
    strings, anchored at the end), or None outside the recognised subset (remembered by
    pattern: a rule's regex is read by its measure and again by its samples).

    Alternation binds loosest in Java, so ``^A|B$`` is ``(^A)|(B$)``: each alternative
    carries its own anchors.

    >>> [(s, sorted(t), e) for s, t, e in _alternatives("^A|B$")]
    [(True, ['A'], False), (False, ['B'], True)]
    """
    reader = _Language(pattern, MAX_IN_SET)
    out = []
    try:
        while True:
            start = reader._peek() == "^"
            reader.i += start
            strings = reader.sequence(top=True)
            end = reader._peek() == "$"
            reader.i += end
            out.append((start, strings, end))
            if reader._peek() != "|":
                break
            reader.i += 1
    except (NotFinite, IndexError):
        return None
    return tuple(out) if reader.i == len(pattern) else None


def finite_form(item: Expr, pattern: str) -> Expr | None:
    """``item RLIKE pattern`` as an equivalent plain string test, or None.

    A find of ``a|b`` succeeds exactly when a find of ``a`` or of ``b`` does, so the
    test is the OR of each alternative's test, alternatives of one anchoring pooled.

    >>> from assay.ir.expr import Col
    >>> finite_form(Col("s"), "^A|B$") == any_of(HasText(Col("s"), "A", "start"),
    ...     *(HasText(Col("s"), v, "end") for v in _with_terminators("B")))
    True
    """
    alternatives = _alternatives(pattern)
    if alternatives is None:
        return None
    pooled: dict[tuple[bool, bool], frozenset[str]] = {}
    for start, strings, end in alternatives:
        pooled[start, end] = pooled.get((start, end), frozenset()) | strings
    tests: list[Expr] = []
    for (start, end), strings in pooled.items():
        limit = MAX_IN_SET if start and end else MAX_END_TESTS if end else MAX_TESTS
        if len(strings) > limit:
            return None
        if start and end:
            values = tuple(v for s in sorted(strings) for v in _with_terminators(s))
            tests.append(InSet(item, values))
        elif end:
            ends = (HasText(item, v, "end") for s in sorted(strings) for v in _with_terminators(s))
            tests.extend(ends)
        elif start:
            tests.extend(HasText(item, s, "start") for s in _minimal(strings, "start"))
        else:
            tests.extend(HasText(item, s) for s in _minimal(strings, "anywhere"))
    if sum(isinstance(t, HasText) for t in tests) > MAX_TESTS * len(LINE_TERMINATORS):
        return None
    return any_of(*tests)


def cheaper(expr: Expr) -> Expr:
    """``expr`` with every finite-language regex replaced by its plain string form, and
    the character classes of the other regexes as one bit set each (:func:`one_bit_set`).

    >>> from assay.ir.expr import Col, Not
    >>> cheaper(Not(Matches(Col("s"), "^(Y|N)$"))) == Not(finite_form(Col("s"), "^(Y|N)$"))
    True

    An expression without a regex is its own cheaper form (the rebuilding would copy it
    node by node; most rule predicates have none).
    """
    if not any(isinstance(node, Matches) for node in walk(expr)):
        return expr
    return rebuild(expr, _cheaper_node)


def _cheaper_node(node: Expr) -> Expr:
    if isinstance(node, Matches):
        finite = finite_form(node.item, node.pattern)
        if finite is not None:
            return finite
        pattern = one_bit_set(node.pattern)
        return node if pattern == node.pattern else Matches(node.item, pattern)
    return node

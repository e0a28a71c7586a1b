"""Whether Java's regex engine compiles a pattern, without a JVM (pure).

Spark's ``rlike`` compiles patterns with ``java.util.regex.Pattern``, whose syntax is not
Python's: possessive quantifiers (``a*+``), ``\\p{javaLowerCase}``, ``\\Q...\\E``,
``\\h``, ``\\R``, class intersections (``[a-z&&[^b]]``) and ``\\k<name>`` compile there;
``a**``, ``\\Z`` in a class, ``(?<=(ab)*)`` or an undefined ``\\k<n>`` do not. This module
reads a pattern as ``Pattern.compile`` does (Java 17; the property names Java 21 added are
accepted too) and says what Java says: nothing, or its error's description and index.
``assay check`` refuses a config by it with no Spark at all; a run still asks the server.

A pattern this checker cannot decide (nested deeper than Python's recursion allows) is
accepted: refusing a pattern Java compiles would block a valid config, so in doubt the
server decides. ``tests/grammar/test_java_regex.py`` compares it with the JVM's verdict
on a corpus of valid and invalid patterns.

>>> java_regex_error("a{2,1}").text
'Illegal repetition range near index 5'
>>> java_regex_error("(?<name>[a-z&&[^q]]++)\\\\k<name>\\\\p{javaLowerCase}") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.grammar.java_regex_class import char_class, property_escape
from assay.grammar.java_regex_length import (
    MAX_REPS,
    Branch,
    Counted,
    Fixed,
    Greedy,
    Loop,
    Optional,
    Piece,
    bounded,
    deterministic,
)
from assay.grammar.java_regex_reader import (
    CANON_EQ,
    CHAR,
    FLAG_LETTERS,
    ZERO_WIDTH,
    Atom,
    Reader,
    Refused,
    escape,
    group_name,
    is_alpha,
    is_digit,
)

Chain = list[Piece]


@dataclass(frozen=True, slots=True)
class JavaRegexError:
    """Java's refusal of a pattern: its description and the index it points at."""

    description: str
    index: int

    @property
    def text(self) -> str:
        return f"{self.description} near index {self.index}"


def java_regex_error(pattern: str) -> JavaRegexError | None:
    """What ``java.util.regex.Pattern.compile(pattern)`` refuses the pattern for
    (``None``: it compiles, or this checker cannot tell)."""
    r = Reader(_unquoted([ord(c) for c in pattern]))
    try:
        _expr(r)
        if r.cursor != r.length:
            raise r.fail(
                "Unmatched closing ')'" if r.peek() == 0x29 else "Unexpected internal error"
            )
    except Refused as refused:
        return JavaRegexError(refused.description, refused.index)
    except IndexError:
        return JavaRegexError("the pattern ends inside a construct", len(pattern))
    except RecursionError:
        return None
    return None


def _unquoted(points: list[int]) -> list[int]:
    """``\\Q...\\E`` quoting removed as Java does before parsing: quoted characters that
    are neither ASCII letters nor beyond ASCII are escaped, a quoted leading digit is
    written ``\\x3<digit>`` (so an escape before the quote does not take it)."""
    n, i = len(points), 0
    while i < n - 1 and not (points[i] == 0x5C and points[i + 1] == 0x51):
        i += 2 if points[i] == 0x5C else 1
    if i >= n - 1:
        return points
    out, i = points[:i], i + 2
    quoted = begin = True

    def at(k: int) -> int:
        return points[k] if k < n else 0

    while i < n:
        c = points[i]
        i += 1
        if c > 0x7F or is_alpha(c):
            out.append(c)
        elif is_digit(c):
            out += [0x5C, 0x78, 0x33, c] if begin else [c]
        elif c != 0x5C:
            out += [0x5C, c] if quoted else [c]
        elif quoted:
            if at(i) == 0x45:
                i, quoted = i + 1, False
            else:
                out += [0x5C, 0x5C]
        elif at(i) == 0x51:
            i, quoted, begin = i + 1, True, True
            continue
        else:
            out.append(c)
            if i != n:
                out.append(points[i])
                i += 1
        begin = False
    return out


def _expr(r: Reader) -> Chain:
    alternatives = [_sequence(r)]
    while r.peek() == 0x7C:
        r.next()
        alternatives.append(_sequence(r))
    if len(alternatives) == 1:
        return alternatives[0]
    return [Branch(tuple(tuple(a) for a in alternatives))]


def _sequence(r: Reader) -> Chain:
    chain: Chain = []
    while True:
        ch = r.peek()
        if ch == 0x28:
            chain += _group(r)
            continue
        if ch in (0x7C, 0x29) or (ch == 0 and r.cursor >= r.length):
            return chain
        if ch in (0x3F, 0x2A, 0x2B):
            r.next()
            raise r.fail(f"Dangling meta character '{chr(ch)}'")
        chain += _closure(r, _piece(r, ch))


def _piece(r: Reader, ch: int) -> Atom:
    """The piece at the cursor (not a group), before its quantifier."""
    if ch == 0x5B:
        char_class(r)
        return _property_atom(r)
    if ch == 0x5C:
        letter = r.next_escaped()
        if letter in (0x70, 0x50):
            property_escape(r)
            return _property_atom(r)
        r.unread()
    elif ch in (0x5E, 0x24):
        r.next()
        return ZERO_WIDTH
    elif ch == 0x2E:
        r.next()
        return CHAR
    return _atom(r)


def _property_atom(r: Reader) -> Atom:
    """A class or property: one character, or Java's canonical-equivalence node."""
    return Atom(Fixed(0, exact=False)) if r.flags & CANON_EQ else CHAR


def _atom(r: Reader) -> Atom:
    """Literal characters and escapes up to the next metacharacter (the last one alone
    when a quantifier follows), or one escape that is not a character."""
    first, prev = 0, -1
    ch = r.peek()
    while True:
        if ch in (0x2A, 0x2B, 0x3F, 0x7B):
            if first > 1:
                r.cursor, first = prev, first - 1
            break
        if ch in (0x24, 0x2E, 0x5E, 0x28, 0x5B, 0x7C, 0x29):
            break
        if ch == 0x5C:
            letter = r.next_escaped()
            if letter in (0x70, 0x50):
                if first > 0:
                    r.unread()
                    break
                property_escape(r)
                return _property_atom(r)
            r.unread()
            prev = r.cursor
            value, node = escape(r, inclass=False)
            if value >= 0:
                first += 1
                ch = r.peek()
                continue
            if first == 0:
                assert node is not None
                return node
            r.cursor = prev
            break
        if ch == 0 and r.cursor >= r.length:
            break
        prev = r.cursor
        first += 1
        ch = r.next()
    return CHAR if first == 1 else Atom(Fixed(first))


@dataclass(frozen=True, slots=True)
class _Quantifier:
    cmin: int
    cmax: int
    kind: str  # "greedy", "lazy" or "possessive"
    open_ended: bool = False  # *, + or {n,}: Java's one-node loop over a character

    @property
    def optional(self) -> bool:
        return self.cmin == 0 and self.cmax == 1 and not self.open_ended


def _kind(r: Reader) -> str:
    ch = r.next()
    if ch in (0x3F, 0x2B):
        r.next()
        return "lazy" if ch == 0x3F else "possessive"
    return "greedy"


def _number(r: Reader, ch: int, value: int = 0) -> tuple[int, int]:
    """Digits from ``ch`` on (Java's int: beyond it, the range is illegal); the value
    and the character after them."""
    while is_digit(ch):
        value = value * 10 + ch - 0x30
        if value > MAX_REPS:
            raise r.fail("Illegal repetition range")
        ch = r.read()
    return value, ch


def _quantifier(r: Reader) -> _Quantifier | None:
    """The quantifier at the cursor, read (``None``: there is none)."""
    ch = r.peek()
    if ch == 0x3F:
        return _Quantifier(0, 1, _kind(r))
    if ch in (0x2A, 0x2B):
        return _Quantifier(0 if ch == 0x2A else 1, MAX_REPS, _kind(r), open_ended=True)
    if ch != 0x7B:
        return None
    ch = r.skip()
    if not is_digit(ch):
        raise r.fail("Illegal repetition")
    cmin, ch = _number(r, r.read(), ch - 0x30)
    cmax = cmin
    if ch == 0x2C:
        ch = r.read()
        if ch == 0x7D:
            r.unread()
            return _Quantifier(cmin, MAX_REPS, _kind(r), open_ended=True)
        cmax, ch = _number(r, ch)
    if ch != 0x7D:
        raise r.fail("Unclosed counted closure")
    if cmax < cmin:
        raise r.fail("Illegal repetition range")
    r.unread()
    return _Quantifier(cmin, cmax, _kind(r))


def _closure(r: Reader, atom: Atom) -> Chain:
    q = _quantifier(r)
    if q is None:
        return [atom.piece]
    if q.optional:
        return [Optional((atom.piece,))]
    if q.open_ended and q.kind == "greedy" and atom.char_property:
        return [Greedy()]
    return [Counted((atom.piece,), q.cmin, q.cmax)]


def _group(r: Reader) -> Chain:
    """A group and its quantifier (the cursor on its ``(``); nothing for ``(?i)``."""
    saved = r.flags
    ch = r.next()
    if ch != 0x3F:
        r.groups += 1
        return _closed_group(r, saved, _expr(r))
    ch = r.skip()
    if ch == 0x3A:
        return _closed_group(r, saved, _expr(r))
    if ch in (0x3D, 0x21):
        _expr(r)
        return _closed_assertion(r, saved, ZERO_WIDTH)
    if ch == 0x3E:
        return _closed_assertion(r, saved, Atom(Optional(tuple(_expr(r)), True)))
    if ch == 0x3C:
        return _angle_group(r, saved)
    if ch in (0x24, 0x40):
        raise r.fail("Unknown group type")
    r.unread()
    _flags(r)
    ch = r.read()
    if ch == 0x29:
        return []
    if ch != 0x3A:
        raise r.fail("Unknown inline modifier")
    return _closed_group(r, saved, _expr(r))


def _angle_group(r: Reader, saved: int) -> Chain:
    """``(?<name>...)``, ``(?<=...)`` or ``(?<!...)`` (the cursor after ``<``)."""
    ch = r.read()
    if ch not in (0x3D, 0x21):
        name = group_name(r, ch)
        if name in r.names:
            raise r.fail(f"Named capturing group <{name}> is already defined")
        r.groups += 1
        r.names.add(name)
        return _closed_group(r, saved, _expr(r))
    content = _expr(r)
    if not bounded(content):
        raise r.fail("Look-behind group does not have an obvious maximum length")
    return _closed_assertion(r, saved, ZERO_WIDTH)


def _closed_assertion(r: Reader, saved: int, atom: Atom) -> Chain:
    """A look-around or atomic group: its ``)``, then a quantifier of it as of a piece."""
    r.accept(0x29, "Unclosed group")
    r.flags = saved
    return _closure(r, atom)


def _closed_group(r: Reader, saved: int, content: Chain) -> Chain:
    """A group's ``)`` and quantifier: its content in place, or repeated (Java's loop of
    a group it does not find deterministic has no bounded length)."""
    r.accept(0x29, "Unclosed group")
    r.flags = saved
    q = _quantifier(r)
    if q is None:
        return content
    if q.optional:
        return (
            [Optional(tuple(content))] if q.kind == "possessive" else [Branch((tuple(content), ()))]
        )
    if q.kind == "possessive" or deterministic(content):
        return [Counted(tuple(content), q.cmin, q.cmax)]
    return [Loop()]


def _flags(r: Reader) -> None:
    """``(?idmsuxU-idmsuxU`` flags (the cursor on the first): set, then cleared."""
    ch = r.peek()
    while chr(ch) in FLAG_LETTERS:
        r.flags |= FLAG_LETTERS[chr(ch)]
        ch = r.next()
    if ch != 0x2D:
        return
    ch = r.next()
    while chr(ch) in FLAG_LETTERS:
        r.flags &= ~FLAG_LETTERS[chr(ch)]
        ch = r.next()

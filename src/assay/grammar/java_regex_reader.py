"""The cursor of the Java regex checker (:mod:`assay.grammar.java_regex`) and the escapes
it reads: a pattern as Java's ``Pattern`` holds it while compiling (code points ending in
two zeros, ``#`` comments and white space skipped in ``(?x)`` mode by every read but the
escaped ones), and what each escape sequence is, or the error Java gives for it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from assay.grammar.java_regex_length import BackRef, Fixed, Piece
from assay.grammar.java_regex_names import BLOCKS, CONTROL_NAMES

# Pattern's flags, by their bit (java.util.regex.Pattern)
UNIX_LINES, CASE_INSENSITIVE, COMMENTS, MULTILINE = 0x01, 0x02, 0x04, 0x08
DOTALL, UNICODE_CASE, CANON_EQ, UNICODE_CHARACTER_CLASS = 0x20, 0x40, 0x80, 0x100
FLAG_LETTERS = {
    "i": CASE_INSENSITIVE,
    "m": MULTILINE,
    "s": DOTALL,
    "d": UNIX_LINES,
    "u": UNICODE_CASE,
    "c": CANON_EQ,
    "x": COMMENTS,
    "U": UNICODE_CHARACTER_CLASS | UNICODE_CASE,
}


@dataclass(frozen=True, slots=True)
class Atom:
    """A parsed piece and whether Java holds it as one ``CharProperty`` (a character, a
    class, ``.``, ``\\d``...: a greedy ``*``, ``+`` or ``{n,}`` of it is one node)."""

    piece: Piece
    char_property: bool = False


CHAR = Atom(Fixed(1), True)
ZERO_WIDTH = Atom(Fixed(0))


class Refused(Exception):
    """Java refuses the pattern: its description and the index it points at."""

    def __init__(self, description: str, index: int) -> None:
        super().__init__(description)
        self.description = description
        self.index = index


def _is_space(ch: int) -> bool:
    return ch in (0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D)


def is_digit(ch: int) -> bool:
    return 0x30 <= ch <= 0x39


def is_alpha(ch: int) -> bool:
    return 0x41 <= ch <= 0x5A or 0x61 <= ch <= 0x7A


def is_hex(ch: int) -> bool:
    return is_digit(ch) or 0x41 <= ch <= 0x46 or 0x61 <= ch <= 0x66


class Reader:
    """A pattern's code points and Java's cursor over them (``peek``, ``read``, ``next``,
    ``skip``, ``unread``: the moves of ``Pattern``'s parser, with its ``(?x)`` skipping).
    Reading outside the pattern raises ``IndexError``, as Java's array would."""

    def __init__(self, points: Sequence[int]) -> None:
        self.t = [*points, 0, 0]
        self.length = len(points)
        self.cursor = 0
        self.flags = 0
        self.groups = 1  # the next capturing group's number
        self.names: set[str] = set()

    def at(self, index: int) -> int:
        if index < 0:
            raise IndexError(index)
        return self.t[index]

    def fail(self, description: str) -> Refused:
        return Refused(description, self.cursor - 1)

    def _line_end(self, ch: int) -> bool:
        if self.flags & UNIX_LINES:
            return ch == 0x0A
        return ch in (0x0A, 0x0D, 0x85) or ch | 1 == 0x2029

    def _peek_past(self, ch: int) -> int:
        while _is_space(ch) or ch == 0x23:
            while _is_space(ch):
                self.cursor += 1
                ch = self.at(self.cursor)
            if ch == 0x23:
                self.cursor += 1
                ch = self.at(self.cursor)
                while ch != 0 and not self._line_end(ch):
                    self.cursor += 1
                    ch = self.at(self.cursor)
                if ch == 0 and self.cursor > self.length:
                    self.cursor = self.length
                    ch = self.at(self.cursor)
        return ch

    def _read_past(self, ch: int) -> int:
        while _is_space(ch) or ch == 0x23:
            while _is_space(ch):
                ch = self.read_escaped()
            if ch == 0x23:
                ch = self.read_escaped()
                while ch != 0 and not self._line_end(ch):
                    ch = self.read_escaped()
                if ch == 0 and self.cursor > self.length:
                    self.cursor = self.length
                    ch = self.read_escaped()
        return ch

    def peek(self) -> int:
        ch = self.at(self.cursor)
        return self._peek_past(ch) if self.flags & COMMENTS else ch

    def read(self) -> int:
        ch = self.read_escaped()
        return self._read_past(ch) if self.flags & COMMENTS else ch

    def read_escaped(self) -> int:
        ch = self.at(self.cursor)
        self.cursor += 1
        return ch

    def next(self) -> int:
        self.cursor += 1
        ch = self.at(self.cursor)
        return self._peek_past(ch) if self.flags & COMMENTS else ch

    def next_escaped(self) -> int:
        self.cursor += 1
        return self.at(self.cursor)

    def skip(self) -> int:
        ch = self.at(self.cursor + 1)
        self.cursor += 2
        return ch

    def unread(self) -> None:
        self.cursor -= 1

    def accept(self, ch: int, description: str) -> None:
        if self.read() != ch:
            raise self.fail(description)


_ILLEGAL = "Illegal/unsupported escape sequence"
_PREDICATES = frozenset("DHSVWdhsw")
_ANCHORS = frozenset("ABGZz")
_VALUES = {"a": 0x07, "e": 0x1B, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09}
_NOT_IN_CLASS = frozenset("123456789ABGRXZbkz")


def escape(r: Reader, inclass: bool, isrange: bool = False) -> tuple[int, Atom | None]:
    """The escape at the cursor (a backslash): its code point (and ``None``), or -1 and
    what it stands for (a class, an assertion, a back reference)."""
    letter = chr(r.skip())
    if inclass and letter in _NOT_IN_CLASS:
        raise r.fail(_ILLEGAL)
    if letter in _VALUES:
        return _VALUES[letter], None
    if letter == "v":
        return (0x0B, None) if isrange else (-1, CHAR)
    if letter in _PREDICATES:
        return -1, CHAR
    if letter in _ANCHORS:
        return -1, ZERO_WIDTH
    if letter.isdigit() and letter.isascii():
        if letter == "0":
            return _octal(r), None
        _reference(r, int(letter))
        return -1, Atom(BackRef())
    special = _SPECIAL.get(letter)
    if special is not None:
        return special(r)
    if letter.isascii() and letter.isalpha():
        raise r.fail(_ILLEGAL)
    return ord(letter), None


def _reference(r: Reader, number: int) -> None:
    """Java takes more digits of ``\\12`` only while that many groups are open so far."""
    while is_digit(ch := r.peek()):
        wider = number * 10 + ch - 0x30
        if r.groups - 1 < wider:
            break
        number = wider
        r.read()


def _octal(r: Reader) -> int:
    n = r.read()
    if 0x30 <= n <= 0x37:
        m = r.read()
        if 0x30 <= m <= 0x37:
            o = r.read()
            if 0x30 <= o <= 0x37 and n <= 0x33:
                return (n - 0x30) * 64 + (m - 0x30) * 8 + (o - 0x30)
            r.unread()
            return (n - 0x30) * 8 + (m - 0x30)
        r.unread()
        return n - 0x30
    raise r.fail("Illegal octal escape sequence")


def _hex(r: Reader) -> tuple[int, Atom | None]:
    n = r.read()
    if is_hex(n):
        m = r.read()
        if is_hex(m):
            return int(chr(n) + chr(m), 16), None
    elif n == 0x7B and is_hex(r.peek()):
        value = 0
        while is_hex(n := r.read()):
            value = value * 16 + int(chr(n), 16)
            if value > 0x10FFFF:
                raise r.fail("Hexadecimal codepoint is too big")
        if n != 0x7D:
            raise r.fail("Unclosed hexadecimal escape sequence")
        return value, None
    raise r.fail("Illegal hexadecimal escape sequence")


def _four_hex(r: Reader) -> int:
    value = 0
    for _ in range(4):
        ch = r.read()
        if not is_hex(ch):
            raise r.fail("Illegal Unicode escape sequence")
        value = value * 16 + int(chr(ch), 16)
    return value


def _unicode(r: Reader) -> tuple[int, Atom | None]:
    value = _four_hex(r)
    if 0xD800 <= value <= 0xDBFF:
        mark = r.cursor
        if r.read() == 0x5C and r.read() == 0x75:
            low = _four_hex(r)
            if 0xDC00 <= low <= 0xDFFF:
                return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00), None
        r.cursor = mark
    return value, None


def _control(r: Reader) -> tuple[int, Atom | None]:
    if r.cursor < r.length:
        return r.read() ^ 64, None
    raise r.fail("Illegal control escape sequence")


def _named_character(r: Reader) -> tuple[int, Atom | None]:
    if r.read() != 0x7B:
        raise r.fail("Illegal character name escape sequence")
    start = r.cursor
    while r.read() != 0x7D:
        if r.cursor >= r.length:
            raise r.fail("Unclosed character name escape sequence")
    name = "".join(map(chr, r.t[start : r.cursor - 1]))
    found = character_named(name)
    if found is None:
        raise r.fail(f"Unknown character name [{name}]")
    return found, None


_ALGORITHMIC = ("CJK UNIFIED IDEOGRAPH-", "HANGUL SYLLABLE ")
"""Names Python computes and Java does not know (it names those characters by block)."""


def character_named(name: str) -> int | None:
    """The code point ``\\N{name}`` names for Java (``None``: none): a character's
    Unicode name (any case, blanks around it ignored), a control character's name, or a
    block's name and a code point (Java's name of a character Unicode gives none); an
    alias or a named sequence is not one.

    >>> character_named(" latin small letter a"), character_named("LINE FEED (LF)")
    (97, 10)
    >>> character_named("LINE FEED"), character_named("HANGUL SYLLABLE GA")
    (None, None)
    """
    key = name.strip().upper()
    if key in CONTROL_NAMES:
        return CONTROL_NAMES[key]
    try:
        found = unicodedata.lookup(key)
    except KeyError:
        found = ""
    if len(found) == 1 and unicodedata.name(found, "") == key:
        return None if key.startswith(_ALGORITHMIC) else ord(found)
    block, _, code = key.rpartition(" ")
    if not (block in BLOCKS and code and all(c in "0123456789ABCDEF" for c in code)):
        return None
    point = int(code, 16)
    if point > 0x10FFFF:
        return None
    named = unicodedata.name(chr(point), "")
    return point if not named or named.startswith(_ALGORITHMIC) else None


def _named_reference(r: Reader) -> tuple[int, Atom | None]:
    if r.read() != 0x3C:
        raise r.fail("\\k is not followed by '<' for named capturing group")
    name = group_name(r, r.read())
    if name not in r.names:
        raise r.fail(f"named capturing group <{name}> does not exist")
    return -1, Atom(BackRef())


def _boundary(r: Reader) -> tuple[int, Atom | None]:
    if r.peek() == 0x7B:
        if r.skip() == 0x67:
            if r.read() == 0x7D:
                return -1, ZERO_WIDTH
            raise r.fail(_ILLEGAL)
        r.unread()
        r.unread()
    return -1, ZERO_WIDTH


_SPECIAL = {
    "x": _hex,
    "u": _unicode,
    "c": _control,
    "N": _named_character,
    "k": _named_reference,
    "b": _boundary,
    "R": lambda r: (-1, Atom(Fixed(2))),
    "X": lambda r: (-1, Atom(Fixed(0, exact=False))),
}


def group_name(r: Reader, ch: int) -> str:
    """A group's name (an ASCII letter, then letters and digits) and its ``>``."""
    if not is_alpha(ch):
        raise r.fail("capturing group name does not start with a Latin letter")
    name = [chr(ch)]
    while is_alpha(ch := r.read()) or is_digit(ch):
        name.append(chr(ch))
    if ch != 0x3E:
        raise r.fail("named capturing group is missing trailing '>'")
    return "".join(name)

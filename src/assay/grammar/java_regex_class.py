"""Character classes and properties of the Java regex checker
(:mod:`assay.grammar.java_regex`): ``[...]`` with its unions, ``&&`` intersections and
ranges, and the ``\\p{...}`` names Java knows (``java.util.regex.CharPredicates``: general
categories, POSIX and ``java*`` classes, binary properties, blocks and scripts).
"""

from __future__ import annotations

from assay.grammar.java_regex_names import BLOCKS, NEWER_BLOCKS, NEWER_SCRIPTS, SCRIPTS
from assay.grammar.java_regex_reader import UNICODE_CHARACTER_CLASS, Reader, escape

_CATEGORIES = (
    "Cn Lu Ll Lt Lm Lo Mn Me Mc Nd Nl No Zs Zl Zp Cc Cf Co Cs Pd Ps Pe Pc Po Sm Sc Sk So Pi Pf "
    "L M N Z C P S LC LD L1 all"
)
_POSIX = "ASCII Alnum Alpha Blank Cntrl Digit Graph Lower Print Punct Space Upper XDigit"
_JAVA = (
    "javaLowerCase javaUpperCase javaAlphabetic javaIdeographic javaTitleCase javaDigit "
    "javaDefined javaLetter javaLetterOrDigit javaJavaIdentifierStart javaJavaIdentifierPart "
    "javaUnicodeIdentifierStart javaUnicodeIdentifierPart javaIdentifierIgnorable "
    "javaSpaceChar javaWhitespace javaISOControl javaMirrored"
)
PROPERTIES = frozenset(f"{_CATEGORIES} {_POSIX} {_JAVA}".split())
"""Names ``\\p{Name}`` takes as written (``CharPredicates.forProperty``)."""

POSIX_NAMES = frozenset(
    ("ALPHA", "LOWER", "UPPER", "SPACE", "PUNCT", "XDIGIT")
    + ("ALNUM", "CNTRL", "DIGIT", "BLANK", "GRAPH", "PRINT")
)
"""``\\p{IsName}`` (any case), and ``\\p{Name}`` under ``(?U)``."""

UNICODE_PROPERTIES = frozenset(
    str.split(
        "ALPHABETIC ASSIGNED CONTROL HEXDIGIT IDEOGRAPHIC JOINCONTROL LETTER LOWERCASE "
        "NONCHARACTERCODEPOINT TITLECASE PUNCTUATION UPPERCASE WHITESPACE WORD WHITE_SPACE "
        "HEX_DIGIT NONCHARACTER_CODE_POINT JOIN_CONTROL "
        # Java 21's emoji properties
        "EMOJI EMOJI_PRESENTATION EMOJI_MODIFIER EMOJI_MODIFIER_BASE EMOJI_COMPONENT "
        "EXTENDED_PICTOGRAPHIC"
    )
)
"""``\\p{IsName}`` binary properties (any case)."""


def _block(name: str) -> bool:
    key = name.upper()
    return key in BLOCKS or key in NEWER_BLOCKS


def _script(name: str) -> bool:
    key = name.upper()
    return key in SCRIPTS or key in NEWER_SCRIPTS


def property_problem(name: str, flags: int) -> str | None:
    """Java's error for ``\\p{name}`` (``None``: it knows the name).

    >>> property_problem("javaLowerCase", 0), property_problem("IsLatin", 0)
    (None, None)
    >>> property_problem("alpha", 0)
    'Unknown character property name {alpha}'
    """
    key, equals, value = name.partition("=")
    if equals:
        key = key.lower()
        known = (
            _script(value)
            if key in ("sc", "script")
            else _block(value)
            if key in ("blk", "block")
            else value in PROPERTIES
            if key in ("gc", "general_category")
            else False
        )
        return None if known else f"Unknown Unicode property {{name=<{key}>, value=<{value}>}}"
    if name.startswith("In"):
        known = _block(name[2:])
    elif name.startswith("Is"):
        short = name[2:]
        upper = short.upper()
        known = upper in UNICODE_PROPERTIES or upper in POSIX_NAMES
        known = known or short in PROPERTIES or _script(short)
    else:
        unicode_classes = bool(flags & UNICODE_CHARACTER_CLASS)
        known = (unicode_classes and name.upper() in POSIX_NAMES) or name in PROPERTIES
    return None if known else f"Unknown character property name {{{name}}}"


def family(r: Reader, one_letter: bool) -> None:
    """``\\p`` or ``\\P`` with the cursor on its letter (``\\pL``) or on its ``{``."""
    r.next()
    if one_letter:
        name = chr(r.at(r.cursor))
        r.read()
    else:
        start = r.cursor
        r.t[r.length] = 0x7D
        while r.read() != 0x7D:
            pass
        r.t[r.length] = 0
        end = r.cursor
        if end > r.length:
            raise r.fail("Unclosed character family")
        if start + 1 >= end:
            raise r.fail("Empty character family")
        name = "".join(map(chr, r.t[start : end - 1]))
    problem = property_problem(name, r.flags)
    if problem is not None:
        raise r.fail(problem)


def property_escape(r: Reader) -> None:
    """``\\p``/``\\P`` with the cursor on its letter: its name read and known."""
    ch = r.next()
    if ch != 0x7B:
        r.unread()
    family(r, ch != 0x7B)


def char_class(r: Reader, consume: bool = True) -> None:
    """A ``[...]`` with the cursor on its ``[`` (or, not ``consume``d, the right side of
    an ``&&`` written without brackets, which ends before its ``]``)."""
    nonempty = False
    ch = r.next()
    if ch == 0x5E and r.at(r.cursor - 1) == 0x5B:
        ch = r.next()
    while True:
        if ch == 0x5B:
            char_class(r)
            nonempty = True
            ch = r.peek()
            continue
        if ch == 0x26:
            ch = r.next()
            if ch == 0x26:
                nonempty = _intersection(r, nonempty)
                ch = r.peek()
                continue
            r.unread()
        elif ch == 0 and r.cursor >= r.length:
            raise r.fail("Unclosed character class")
        elif ch == 0x5D and nonempty:
            if consume:
                r.next()
            return
        _range(r)
        nonempty = True
        ch = r.peek()


def _intersection(r: Reader, nonempty: bool) -> bool:
    """The right side of ``&&`` (cursor on the second ``&``); whether the class holds
    something after it."""
    ch = r.next()
    right = False
    while ch not in (0x5D, 0x26):
        if ch == 0x5B:
            char_class(r)
        else:
            r.unread()
            char_class(r, consume=False)
        right = True
        ch = r.peek()
    if not nonempty and not right:
        raise r.fail("Bad class syntax")
    return True


def _range(r: Reader) -> None:
    """One member of a class: a character, a range ``a-z``, an escape or ``\\p{...}``."""
    ch = r.peek()
    if ch == 0x5C:
        ch = r.next_escaped()
        if ch in (0x70, 0x50):
            property_escape(r)
            return
        isrange = r.at(r.cursor + 1) == 0x2D
        r.unread()
        ch, _ = escape(r, inclass=True, isrange=isrange)
        if ch == -1:
            return
    else:
        r.next()
    if r.peek() == 0x2D:
        end = r.at(r.cursor + 1)
        if end not in (0x5B, 0x5D):
            r.next()
            m = r.peek()
            if m == 0x5C:
                m, _ = escape(r, inclass=True, isrange=True)
            else:
                r.next()
            if m < ch:
                raise r.fail("Illegal character range")

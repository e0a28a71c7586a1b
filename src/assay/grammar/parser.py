"""The public face of the grammars: cached Lark parsers and the functions the config layer calls.

This is the only module that catches lark's parse errors; each becomes a
:class:`~assay.errors.ThresholdSyntaxError` showing the text with a caret under the failing
position and, in words, what was expected there.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection, Mapping
from copy import copy
from decimal import Decimal
from functools import cache, lru_cache
from typing import NamedTuple, TypeVar

from lark import Lark, Token, Transformer, Tree, UnexpectedInput
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError
from lark.parsers.lalr_parser_state import ParserState

from assay.errors import AssayError, ThresholdSyntaxError, VariableError
from assay.grammar.transformers import (
    TemplateTransformer,
    ThresholdTransformer,
    ToleranceTransformer,
    VarRef,
)
from assay.ir.origin import Origin
from assay.ir.values import Threshold, Tolerance, to_decimal

_T = TypeVar("_T")


class _Syntax(NamedTuple):
    """How to report a parse error of one grammar: what it is, terminal names in words, a hint."""

    what: str
    quoted: str  # the first line of the error when the text is short: ``{what}`` and ``{text}``
    words: dict[str, str]  # terminal name -> what users read; dict order is display order
    hint: str


_END = {"$END": "end of input"}

_THRESHOLD = _Syntax(
    what="threshold",
    quoted='invalid {what} "{text}"',
    words={
        "LT": "<",
        "LE": "<=",
        "EQ": "=",
        "NE": "!=",
        "GE": ">=",
        "GT": ">",
        "_BETWEEN": "between",
        "_NOT": "not between",
        "NUMBER": "a number",
        "_PERCENT": "%",
        "DURATION": "a duration unit (s, m, h, d, w)",
        "_AND": "and",
        **_END,
    },
    hint='write e.g. "> 0", "<= 10", "!= 0", "< 5%", "<= 2h" or "between 10 and 20"; '
    "numbers look like 5, -3 or 0.5",
)

_TOLERANCE = _Syntax(
    what="tolerance",
    quoted='invalid {what} "{text}"',
    words={"NUMBER": "a number", "_PERCENT": "%", **_END},
    hint='write a row count such as 10, a fraction such as 0.05, or a percentage such as "5%"',
)

_TEMPLATE = _Syntax(
    what="variable reference",
    quoted='invalid {what} in "{text}"',
    words={"NAME": "a variable name (a letter, then letters, digits or _)", "_CLOSE": "}", **_END},
    hint='write ${name} or $name, and $$ for a literal "$"',
)

_SHOWN_WHOLE = 80
"""Texts up to this length (and on one line) are quoted whole in the first line of an error."""


@cache
def _threshold_lark() -> Lark:
    """The threshold/tolerance parser, built on first use."""
    return Lark.open_from_package(
        "assay.grammar",
        "threshold.lark",
        parser="lalr",
        start=["threshold", "tolerance"],
        cache=parser_cache("threshold"),
    )


@cache
def _template_lark(escapes: bool = True) -> Lark:
    """The template parser of one syntax (see :func:`parse_template`), built on first use."""
    grammar = "template.lark" if escapes else "template_literal.lark"
    return Lark.open_from_package(
        "assay.grammar", grammar, parser="lalr", cache=parser_cache(grammar)
    )


def parser_cache(name: str) -> str | bool:
    """Where Lark keeps the analysed grammar ``name`` between processes (building the
    template parser takes 0.1-0.3 s of every command's start; loading it 1 ms): a file in
    ``$XDG_CACHE_HOME/assay`` (or ``~/.cache/assay``), a directory of the user's own that
    only they can read, since Lark reads the file with pickle. False (no cache) when that
    directory cannot be had; Lark itself checks the file against the grammar and its own
    version, and rebuilds a stale one.
    """
    import os
    import stat

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "assay")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.stat(directory, follow_symlinks=False)
    except OSError:
        return False
    private = stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o077
    if info.st_uid != os.getuid() or not private:
        return False
    return os.path.join(directory, f"lark-{name}.cache")


def parse_threshold(text: str | int | float, origin: Origin) -> Threshold:
    """Parse a ``must_be``/``warn`` threshold such as ``> 0``, ``< 5%`` or ``between 1 and 2``.

    >>> from assay.ir.origin import UNKNOWN
    >>> parse_threshold("<= 2h", UNKNOWN)
    Comparison(op=<Op.LE: '<='>, value=Decimal('7200'), text='<= 2h', unit='seconds', floats=False)
    >>> parse_threshold(0, UNKNOWN)
    Comparison(op=<Op.EQ: '='>, value=Decimal('0'), text='0', unit='number', floats=False)
    >>> parse_threshold("not between 1% and 5%", UNKNOWN).holds(3)
    False
    """
    source = _as_text(text, _THRESHOLD, origin).strip()
    tree = _parse(_threshold_lark(), source, "threshold", _THRESHOLD, origin)
    return _transform(ThresholdTransformer(source, origin), tree)


def parse_tolerance(value: str | int | float, origin: Origin) -> Tolerance:
    """Parse a row-level tolerance: a row count (0 or >= 1), a fraction (< 1) or a percentage.

    A fractional count such as ``1.5`` is allowed and means at most 1 failing row.

    >>> from assay.ir.origin import UNKNOWN
    >>> parse_tolerance("33%", UNKNOWN)
    Tolerance(kind='fraction', value=Decimal('0.33'), text='33%')
    >>> parse_tolerance(0.25, UNKNOWN)
    Tolerance(kind='fraction', value=Decimal('0.25'), text='0.25')
    >>> parse_tolerance(1000, UNKNOWN)
    Tolerance(kind='absolute', value=Decimal('1000'), text='1000')
    """
    source = _as_text(value, _TOLERANCE, origin).strip()
    tree = _parse(_threshold_lark(), source, "tolerance", _TOLERANCE, origin)
    return _transform(ToleranceTransformer(source, origin), tree)


def parse_template(text: str, origin: Origin, *, escapes: bool = True) -> tuple[str | VarRef, ...]:
    """Split a string into literal parts and variable references (``$name``, ``${name}``).

    ``escapes`` chooses between the two ``$var`` syntaxes the config formats use:

    - ``True``, the native format (``template.lark``): ``$$`` is a literal ``$``, ``${``
      must be followed by a name and ``}`` (else a syntax error with a caret), and a ``$``
      followed by anything else is literal;
    - ``False``, data-validator's (``template_literal.lark``): no escapes, never an error:
      a ``$`` that does not begin a complete reference is literal (``$$a`` is ``$`` then
      ``$a``, ``${${a}}`` is ``${``, ``$a``, ``}``).

    >>> from assay.ir.origin import UNKNOWN
    >>> parse_template("day=${d}x, cost $$5, $env", UNKNOWN)
    ('day=', VarRef(name='d', braced=True), 'x, cost $5, ', VarRef(name='env', braced=False))
    >>> parse_template("^[a-z]+$", UNKNOWN)
    ('^[a-z]+$',)
    >>> parse_template("$$a ${${a}}", UNKNOWN, escapes=False)
    ('$', VarRef(name='a', braced=False), ' ${', VarRef(name='a', braced=True), '}')
    """
    if "$" not in text:
        return (text,) if text else ()
    try:
        return _template_parts(text, escapes)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, _TEMPLATE, origin) from None


def substitute(
    text: str, variables: Mapping[str, str], origin: Origin, *, escapes: bool = True
) -> str:
    """Replace variable references by their values, in one left-to-right pass: a value is
    inserted verbatim, never expanded again. ``escapes``: the syntax (:func:`parse_template`).

    >>> from assay.ir.origin import UNKNOWN
    >>> substitute("dt = '${day}' and price > $$1", {"day": "2024-01-01"}, UNKNOWN)
    "dt = '2024-01-01' and price > $1"
    >>> substitute("${a}b $a_c $1 $$a ${${a}}", {"a": "X", "a_c": "Y"}, UNKNOWN, escapes=False)
    'Xb Y $1 $X ${X}'

    Raises:
        VariableError: references to unknown variables (every one of them is named).
        ThresholdSyntaxError: (``escapes`` only) a ``${`` that is not a reference.
    """
    if "$" not in text:
        return text
    parts = parse_template(text, origin, escapes=escapes)
    missing = [p.name for p in parts if isinstance(p, VarRef) and p.name not in variables]
    if missing:
        raise _unknown(list(dict.fromkeys(missing)), variables, origin, escapes)
    return "".join(part if isinstance(part, str) else variables[part.name] for part in parts)


def references(text: str, origin: Origin, *, escapes: bool = True) -> tuple[str, ...]:
    """The variable names a string uses, in order of first use, without duplicates.

    >>> from assay.ir.origin import UNKNOWN
    >>> references("$b-${a}-$b-$$c", UNKNOWN)
    ('b', 'a')
    >>> references("$b-${a}-$b-$$c", UNKNOWN, escapes=False)
    ('b', 'a', 'c')
    """
    if "$" not in text:
        return ()
    parts = parse_template(text, origin, escapes=escapes)
    return tuple(dict.fromkeys(part.name for part in parts if isinstance(part, VarRef)))


@lru_cache(maxsize=4096)
def _template_parts(text: str, escapes: bool) -> tuple[str | VarRef, ...]:
    """The parts of a template (cached: the same strings come back for every table and run)."""
    tree = _template_lark(escapes).parse(text)
    return TemplateTransformer().transform(tree)


def _unknown(
    missing: list[str], variables: Mapping[str, str], origin: Origin, escapes: bool
) -> VariableError:
    """The error for references to unknown variables, listing the known names."""
    known = sorted(variables)
    listed = f"known variables: {', '.join(known)}" if known else "no variables are defined"
    close = difflib.get_close_matches(missing[0], known, n=1)
    if close:
        hint = f'did you mean "{close[0]}"?'
    elif escapes:
        hint = 'write $$ for a literal "$"'
    else:
        hint = "define it under 'vars' or pass --vars NAME=VALUE"
    names = ", ".join(f'"{name}"' for name in missing)
    plural = "s" if len(missing) > 1 else ""
    return VariableError(f"unknown variable{plural} {names}; {listed}", origin=origin, hint=hint)


def _as_text(value: object, syntax: _Syntax, origin: Origin) -> str:
    """A YAML scalar as threshold text: strings as they are, numbers in plain decimal notation."""
    if isinstance(value, str):
        return value
    numeric = isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)
    if not numeric or (isinstance(value, float) and not math.isfinite(value)):
        raise ThresholdSyntaxError(
            f"invalid {syntax.what} {value!r}: expected a number or a string",
            origin=origin,
            hint=syntax.hint,
        )
    return format(to_decimal(value), "f")  # type: ignore[arg-type]  # finite: never None


def _parse(lark: Lark, text: str, start: str, syntax: _Syntax, origin: Origin) -> Tree:
    """``lark.parse`` with lark's errors turned into a :class:`ThresholdSyntaxError`."""
    try:
        return lark.parse(text, start=start)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, syntax, origin) from None


def _transform(transformer: Transformer[Token, _T], tree: Tree) -> _T:
    """Run a transformer, re-raising our own errors rather than lark's ``VisitError`` wrapper."""
    try:
        return transformer.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, AssayError):
            raise e.orig_exc from None
        raise


def _syntax_error(
    e: UnexpectedInput, text: str, syntax: _Syntax, origin: Origin
) -> ThresholdSyntaxError:
    """The user-facing error: the text, a caret under the failing position, what was expected."""
    pos = _error_position(e, text)
    message = "\n".join((_headline(text, pos, syntax), _pointer(text, pos), _expected(e, syntax)))
    return ThresholdSyntaxError(message, origin=origin, hint=syntax.hint)


def _error_position(e: UnexpectedInput, text: str) -> int:
    """Where parsing failed, as an index into ``text`` (the end for a premature end of input)."""
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        return len(text)
    return max(0, min(e.pos_in_stream or 0, len(text)))


def _expected(e: UnexpectedInput, syntax: _Syntax) -> str:
    """``expected one of: ...`` in words, in the grammar's display order."""
    names = _acceptable(e.state) if e.state is not None else _lookahead(e)
    words = [word for name, word in syntax.words.items() if name in names]
    if not words:
        return "unexpected input"
    return f"expected {words[0]}" if len(words) == 1 else f"expected one of: {', '.join(words)}"


def _lookahead(e: UnexpectedInput) -> Collection[str]:
    """The terminals lark says it expected (LALR lookaheads: may hold a few too many)."""
    return e.allowed if isinstance(e, UnexpectedCharacters) else getattr(e, "expected", ())


def _acceptable(state: ParserState) -> set[str]:
    """The terminals the parser really accepts in ``state``: each is fed to a copy of it.

    LALR merges states, so its lookahead sets can list terminals that fail one reduction later
    (``> 5 foo`` would claim ``and`` is possible); this is what lark's ``accepts()`` does.
    """
    conf = copy(state.parse_conf)
    conf.callbacks = {}  # no tree building while trying
    accepted = set()
    for name in conf.parse_table.states[state.position]:
        if not name.isupper():  # a rule (goto entry), not a terminal
            continue
        trial = state.copy(deepcopy_values=False)
        trial.parse_conf = conf
        try:
            trial.feed_token(Token(name, ""), is_end=name == "$END")
        except UnexpectedToken:
            continue
        accepted.add(name)
    return accepted


def _headline(text: str, pos: int, syntax: _Syntax) -> str:
    """``invalid <what> "<text>"``, or the line and column when the text is long or multi-line."""
    if len(text) <= _SHOWN_WHOLE and "\n" not in text:
        return syntax.quoted.format(what=syntax.what, text=text)
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"invalid {syntax.what} at line {line}, column {column}"


def _pointer(text: str, pos: int, span: int = 40) -> str:
    """The line holding ``pos`` (cut to ``span`` characters either side) and a caret under it.

    >>> print(_pointer("a\\nbetwen 1 and 2", 2))
        betwen 1 and 2
        ^
    """
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    line = text[start : end if end >= 0 else len(text)].replace("\t", " ")
    column = pos - start
    low, high = max(0, column - span), min(len(line), column + span)
    prefix, suffix = ("..." if low else ""), ("..." if high < len(line) else "")
    shown = f"{prefix}{line[low:high]}{suffix}"
    return f"    {shown}\n    {' ' * (len(prefix) + column - low)}^"

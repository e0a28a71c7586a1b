"""Runs of one ASCII class (pure): ``^[A-Za-z0-9 ,.]{1,44}$`` computed as the unbounded
run and the value's length in bytes (:func:`run_by_bytes`), where that pays
(:func:`runs_by_bytes`, the planner's "class runs by bytes" pass)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay.ir.expr import (
    Col,
    Compare,
    Expr,
    Length,
    LineBytes,
    Lit,
    Matches,
    all_of,
    rebuild,
    walk,
)
from assay.ir.values import Op
from assay.planner.regex_classes import NotFinite, class_literal, read_class

_SHORTHANDS = {  # Java's, without UNICODE_CHARACTER_CLASS
    "\\d": frozenset(range(ord("0"), ord("9") + 1)),
    "\\w": frozenset(map(ord, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")),
}
_QUANTIFIER = re.compile(r"\*|\+|\?|\{([0-9]+)\}|\{([0-9]+),([0-9]*)\}", re.ASCII)
_JAVA_INT = 2**31 - 1


@dataclass(frozen=True)
class ClassRun:
    """``^C{low,high}$``: a run of ``low`` to ``high`` (None: unbounded) characters of one
    class ``C`` (its members' code points), as Java finds it."""

    members: frozenset[int]
    low: int
    high: int | None

    @property
    def whole(self) -> str:
        """The pattern of any run of the class: ``^[members]*$``."""
        return f"^[{''.join(class_literal(m) for m in sorted(self.members))}]*$"


def class_run(pattern: str) -> ClassRun | None:
    """The pattern as a run of one class of ASCII characters that are not line
    terminators, or None: ``^`` then a class (``[...]`` of literal characters, escaped
    punctuation and ranges, not negated; or ``\\d``, ``\\w``), one greedy quantifier
    (``*``, ``+``, ``?``, ``{n}``, ``{m,}``, ``{m,n}``) and ``$``.

    >>> class_run("^[A-Za-z0-9 ,.]{1,44}$").low, class_run("^[a-c]{1,44}$").high
    (1, 44)
    >>> class_run("^\\d+$").whole
    '^[0123456789]*$'
    >>> [class_run(p) for p in ("^[^,]+$", "^[a-z]+?$", "^[a-z]{3,2}$", "^[é]+$", "^[a-z]+")]
    [None, None, None, None, None]
    """
    if len(pattern) < 4 or pattern[0] != "^" or pattern[-1] != "$":
        return None
    try:
        if pattern[1] == "[":
            read = read_class(pattern, 1)
            if read.negated:
                return None
            members, end = read.members, read.end
        elif pattern[1:3] in _SHORTHANDS:
            members, end = _SHORTHANDS[pattern[1:3]], 3
        else:
            return None
    except (NotFinite, IndexError):
        return None
    found = _QUANTIFIER.fullmatch(pattern, end, len(pattern) - 1)
    if found is None or max(members) >= 0x80 or members & {ord("\n"), ord("\r")}:
        return None
    exact, low_text, high_text = found.groups()
    low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}.get(found.group(), (0, None))
    if exact is not None:
        low = high = int(exact)
    elif low_text is not None:
        low, high = int(low_text), int(high_text) if high_text else None
    if low > _JAVA_INT or (high is not None and not low <= high <= _JAVA_INT):
        return None  # Java refuses it: Spark reports the rule
    return ClassRun(members, low, high)


def run_by_bytes(item: Expr, pattern: str) -> Expr | None:
    """``item RLIKE pattern`` for a run of one ASCII class (:func:`class_run`) as the
    run's test without bounds (``^[C]*$``) and its length in bytes, or None.

    Java finds ``^C{m,n}$`` in ``s`` exactly when ``s`` is ``p`` or ``p`` followed by one
    line terminator (``$``), with ``p`` of ``m`` to ``n`` members of ``C``: the class
    holds no terminator, so a greedy run stops at the first non-member and ``$`` can only
    match at the end of the run. Every member is ASCII, one byte in UTF-8, so the run's
    length is the string's bytes before that terminator (:class:`LineBytes`, a byte test
    on the stored value where ``length`` decodes every character). The unbounded test is
    the same for every rule on the column asking for a run of the same class, whatever
    its bounds, so Spark evaluates it once per row for all of them. Only for a plain
    string column: a collated one matches regexes ignoring case, where ``k`` also finds
    the three bytes of the Kelvin sign.

    >>> from assay.ir.expr import Col
    >>> run_by_bytes(Col("s"), "^[a-z]{2,5}$") == all_of(
    ...     Matches(Col("s"), "^[abcdefghijklmnopqrstuvwxyz]*$"),
    ...     Compare(Op.GE, LineBytes(Col("s")), Lit(2)),
    ...     Compare(Op.LE, LineBytes(Col("s")), Lit(5)))
    True
    """
    run = class_run(pattern)
    if run is None:
        return None
    bounds: list[Expr] = []
    if run.low > 0:
        bounds.append(Compare(Op.GE, LineBytes(item), Lit(run.low)))
    if run.high is not None:
        bounds.append(Compare(Op.LE, LineBytes(item), Lit(run.high)))
    return all_of(Matches(item, run.whole), *bounds)


def runs_by_bytes(
    predicates: Sequence[Expr], plain_string: Callable[[str], bool]
) -> tuple[Expr, ...]:
    """``predicates`` (those of one table's counts) with each regex on a plain string
    column (``plain_string`` of its name) that is a run of one ASCII class in its
    :func:`run_by_bytes` form, where that pays: a bounded run (Java's engine counts the
    repetitions of ``{m,n}`` as it goes: 0.97 s per 6 M TPC-H comments against 0.89 s
    for the unbounded run and the bytes), or a run whose class another regex of the
    table runs on the same column (the two then share one regex per row: 1.76 s against
    0.91 s for two bounds on the comments). A lone ``+`` or ``*`` stays as written.

    >>> from assay.ir.expr import Col
    >>> plain = lambda column: True
    >>> runs_by_bytes([Matches(Col("s"), "^[a-z]+$")], plain)
    (Matches(item=Col(name='s'), pattern='^[a-z]+$'),)
    >>> two = [Matches(Col("s"), "^[a-z]+$"), Matches(Col("s"), "^[a-z]{2}$")]
    >>> [n.pattern for p in runs_by_bytes(two, plain) for n in walk(p) if isinstance(n, Matches)]
    ['^[abcdefghijklmnopqrstuvwxyz]*$', '^[abcdefghijklmnopqrstuvwxyz]*$']
    """

    def run_of(node: Expr) -> tuple[Matches, ClassRun] | None:
        if isinstance(node, Matches) and isinstance(node.item, Col):
            run = class_run(node.pattern)
            if run is not None and plain_string(node.item.name):
                return node, run
        return None

    patterns: dict[tuple[Expr, frozenset[int]], set[str]] = {}
    for predicate in predicates:
        for found in filter(None, map(run_of, walk(predicate))):
            regex, run = found
            patterns.setdefault((regex.item, run.members), set()).add(regex.pattern)

    def rewrite(node: Expr) -> Expr:
        found = run_of(node)
        if found is None:
            return node
        regex, run = found
        bounded = run.high is not None or run.low > 1
        if not bounded and len(patterns[regex.item, run.members]) < 2:
            return node
        return run_by_bytes(regex.item, regex.pattern) or node

    return tuple(rebuild(p, rewrite) for p in predicates)


def lengths_by_bytes(
    predicates: Sequence[Expr], plain_string: Callable[[str], bool]
) -> tuple[Expr, ...]:
    """``predicates`` (those of one table's counts, class runs already in their
    :func:`runs_by_bytes` form) with the ``length`` of each plain string column (``plain_string``
    of its name) on which some predicate tests a run of one ASCII class given that regex
    as its ``ascii_run`` (:class:`assay.ir.expr.Length`): where it matches, the value is
    characters of the class (one byte each) then at most one line terminator, so its
    length is its bytes less what that terminator has in bytes over its one character;
    where it does not, the length is counted as before. Spark evaluates the regex once
    per row for the class-run rules and the lengths together, where ``length`` walked
    every character (TPC-H SF1 ``l_comment``: about 1 CPU s of 6 M comments). A column
    with no such regex keeps ``length``: a regex only for this would cost more. The
    unbounded run (``^[C]*$``) is preferred, the form the class-run rules share.

    >>> from assay.ir.expr import Col
    >>> plain = lambda column: True
    >>> p = [Compare(Op.GT, Length(Col("s")), Lit(3)), Matches(Col("s"), "^[ab]*$")]
    >>> lengths_by_bytes(p, plain)[0].left
    Length(item=Col(name='s'), ascii_run='^[ab]*$')
    >>> lengths_by_bytes(p[:1], plain) == tuple(p[:1])
    True
    """
    runs: dict[Expr, list[tuple[bool, str]]] = {}
    for predicate in predicates:
        for node in walk(predicate):
            if isinstance(node, Matches) and isinstance(node.item, Col):
                run = class_run(node.pattern)
                if run is not None and plain_string(node.item.name):
                    unbounded = run.low == 0 and run.high is None
                    runs.setdefault(node.item, []).append((not unbounded, node.pattern))
    if not runs:
        return tuple(predicates)
    proof = {item: min(found)[1] for item, found in runs.items()}

    def rewrite(node: Expr) -> Expr:
        if isinstance(node, Length) and node.ascii_run is None and node.item in proof:
            return Length(node.item, proof[node.item])
        return node

    return tuple(rebuild(p, rewrite) for p in predicates)

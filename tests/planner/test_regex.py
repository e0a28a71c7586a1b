"""Regexes with a small finite language become plain string tests; everything else keeps
RLIKE. (tests/integration/test_folding.py checks every form against RLIKE on Spark.)"""

from __future__ import annotations

import dataclasses

import pytest

from assay.ir import Col, HasText, InSet, IsNull, Matches, Not, Or
from assay.ir.expr import And, Coalesce, Compare, LineBytes, Lit, walk
from assay.ir.values import Op
from assay.planner.regex import MAX_IN_SET, cheaper, finite_form, language
from assay.planner.regex_classes import one_bit_set
from assay.planner.regex_runs import ClassRun, class_run, run_by_bytes

TERMINATORS = ("\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029")
A = Col("a")


@pytest.mark.parametrize(
    ("pattern", "strings"),
    [("abc", {"abc"}), ("a-b_c d@e", {"a-b_c d@e"}), (r"a\.b", {"a.b"}), (r"\$5", {"$5"}),
     ("", {""}), ("é", {"é"}), ("[ANR]", {"A", "N", "R"}), ("(F|O)", {"F", "O"}),
     ("(?:Y|N)", {"Y", "N"}), ("[A-C]{1,2}", {"A", "B", "C", "AA", "AB", "AC", "BA", "BB",
     "BC", "CA", "CB", "CC"}), ("ab?", {"a", "ab"}), ("a{0}", {""}), ("a{2}", {"aa"}),
     ("(AIR|REG AIR)", {"AIR", "REG AIR"}), ("[-a]", {"-", "a"}), ("[a-]", {"a", "-"}),
     (r"[\]x]", {"]", "x"}), ("[.$|(]", {".", "$", "|", "("}), ("(a|)", {"a", ""}),
     ("[x-z]{0,1}", {"", "x", "y", "z"})],
)  # fmt: skip
def test_language(pattern, strings):
    assert language(pattern) == strings


@pytest.mark.parametrize(
    "pattern",
    ["a.b", "a+", "a*", "a{2,}", "[^ab]", r"\d", r"\Qa\E", "(?i)a", "a\\", "[a-z&&[def]]",
     "a??", "a?+", "a{2}{3}", "(a", "a)", "[ab", "[]a]", "[a-z-0]", "[z-a]", "a{3,2}",
     "(?=a)", r"(a)\1", "a{,3}", "^a", "a$", "a|^b", "[A-Z]{2,7}", "\U0001F600",
     "a{1000}"],
)  # fmt: skip
def test_outside_the_subset_or_too_large(pattern):
    assert language(pattern) is None


def test_limits():
    assert len(language("[A-P]{2}")) == MAX_IN_SET == 256
    assert language("[A-Z][A-J]") is None  # 260 strings
    assert finite_form(A, "^[A-P]{2}$") is not None
    assert finite_form(A, "[A-I]") is None  # 9 substring tests: RLIKE is cheaper
    assert finite_form(A, "(ab|cd|ef|gh|ij)$") is None  # 5 x 7 suffix tests


def test_forms():
    assert finite_form(A, "abc") == HasText(A, "abc")
    assert finite_form(A, "^abc") == HasText(A, "abc", "start")
    assert finite_form(A, "^abc$") == InSet(A, ("abc", *(f"abc{t}" for t in TERMINATORS)))
    end = finite_form(A, "abc$")
    assert isinstance(end, Or)
    assert end.items == tuple(HasText(A, "abc" + t, "end") for t in ("", *TERMINATORS))
    # an escaped dollar is text, not the end anchor; an escaped backslash before it is not
    assert finite_form(A, r"abc\$") == HasText(A, "abc$")
    assert finite_form(A, "^a\\\\$") == InSet(A, ("a\\", *(f"a\\{t}" for t in TERMINATORS)))


def test_enum_patterns_become_one_in_set():
    form = finite_form(A, "^[ANR]{1,1}$")
    assert isinstance(form, InSet)
    assert set(form.values) == {v + t for v in "ANR" for t in ("", *TERMINATORS)}


def test_dollar_never_splits_cr_lf():
    """Java's ``$`` does not match between ``\\r`` and ``\\n``: ``a\\r\\n`` is no match for
    ``^a\\r$`` (checked against RLIKE in tests/integration/test_folding.py)."""
    form = finite_form(A, "^a\r$")
    assert "a\r\n" not in form.values
    assert {"a\r", "a\r\r\n", "a\r\r"} <= set(form.values)


def test_prefixes_and_substrings_answered_by_a_shorter_string_are_dropped():
    assert finite_form(A, "^ab?") == HasText(A, "a", "start")
    assert finite_form(A, "(x|xy|zx)") == HasText(A, "x")
    assert finite_form(A, "(ab|b)") == HasText(A, "b")
    assert finite_form(A, "^(ab|b)") == Or((HasText(A, "b", "start"), HasText(A, "ab", "start")))


def test_cheaper_rewrites_inside_rule_predicates_only_where_finite():
    failing = Coalesce((Or((IsNull(A), Not(Matches(A, "^ab")))), Lit(False)))
    assert cheaper(failing) == Coalesce(
        (Or((IsNull(A), Not(HasText(A, "ab", "start")))), Lit(False))
    )
    kept = Not(Matches(A, r"^\w+$"))
    assert cheaper(kept) == kept
    assert cheaper(Not(Matches(A, "^[a-c]+$"))) == Not(Matches(A, "^[a-c]+$"))  # one range
    assert cheaper(Not(Matches(A, "^[a-cx]+$"))) == Not(Matches(A, "^[abcx]+$"))


@pytest.mark.parametrize(
    ("pattern", "written"),
    [("^[A-C0-2_]{1,9}$", r"^[012ABC\_]{1,9}$"), ("[^a-cx]x", "[^abcx]x"), ("[a-c]", "[a-c]"),
     ("[-a-c]", r"[\-abc]"), ("[a-c-]", r"[\-abc]"), (r"[\]-ax]", r"[\]\^\_\`ax]"),
     (r"[\--/0]", r"[\-\.\/0]"), ("[ -#a-b]", r"[\ \!\"\#ab]"), ("[é-ëx]", "[xéêë]"),
     (r"[\t-\nx]", r"[\t-\nx]"),  # \t: an escape this rewrite does not read
     (r"[\u0009-\u000ax]", r"[\u0009-\u000ax]"), ("[\t-\nx]", "[\t\nx]"),  # raw: members
     (r"\[a-cx]", r"\[a-cx]"), (r"\\[a-cx]", r"\\[abcx]"), ("(?<=[a-cx])y", "(?<=[abcx])y"),
     ("[a-c0-1][x-z]|[0-1]", "[01abc][x-z]|[0-1]"), ("[abc]", "[abc]"),
     ("[a-c\\d]", "[a-c\\d]"), ("[^a-c]", "[^a-c]")],
)  # fmt: skip
def test_classes_with_ranges_become_one_bit_set(pattern, written):
    assert one_bit_set(pattern) == written


@pytest.mark.parametrize(
    "pattern",
    ["(?i)[a-z]", "(?x)[a- z]", "(?i:[a-z])", r"\Q[a-z]\E", r"\c[a-z]", "[a-c-e]", "[z-a]",
     "[a-z&&[def]]", "[a-[b]]", "[a-\u0100]", "[a-Ā]", "[]a-c]", "[a-c", r"[\w-z]", "[a-c"],
)  # fmt: skip
def test_patterns_the_bit_set_rewrite_leaves_as_they_are(pattern):
    assert one_bit_set(pattern) == pattern


# --- runs of one ASCII class --------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "members", "low", "high"),
    [("^[a-c]{1,44}$", "abc", 1, 44), ("^[a-c]+$", "abc", 1, None), ("^[a-c]*$", "abc", 0, None),
     ("^[a-c]?$", "abc", 0, 1), ("^[a-c]{3}$", "abc", 3, 3), ("^[a-c]{2,}$", "abc", 2, None),
     ("^[a-c]{0}$", "abc", 0, 0), (r"^\d{5}$", "0123456789", 5, 5),
     (r"^\w+$", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", 1, None),
     ("^[ -#]{1,2}$", " !\"#", 1, 2), (r"^[\-\.]{1,2}$", "-.", 1, 2), ("^[\t]+$", "\t", 1, None),
     ("^[ca]{1,1}$", "ac", 1, 1)],
)  # fmt: skip
def test_class_runs(pattern, members, low, high):
    run = class_run(pattern)
    assert run == ClassRun(frozenset(map(ord, members)), low, high)


@pytest.mark.parametrize(
    "pattern",
    ["^[^,]+$", "^[a-z]+?$", "^[a-z]++$", "^[a-z]{3,2}$", "^[é]+$", "^[a-zé]{1,2}$",
     "^[a-z]+", "[a-z]+$", "^[a-z\n]+$", "^[\r]+$", r"^[a-z]{1,2}\$", "^[a-z]{,3}$",
     "^[a-z]{1, 3}$", "^[a-z]{99999999999}$", "^.{1,3}$", r"^\s+$", r"^\D+$", "^a+$",
     "^[a-z][0-9]+$", "^([a-z]+)$", "^[[a-z]]+$", "^[a-z&&[^b]]+$", r"^[\d]+$", "(?i)^[a-z]+$",
     "^[a-z]{1}{2}$", "^[a-z]+|x$"],
)  # fmt: skip
def test_patterns_that_are_not_class_runs(pattern):
    assert class_run(pattern) is None
    assert run_by_bytes(A, pattern) is None


def test_a_run_is_its_unbounded_run_and_its_bytes_before_a_line_end():
    assert run_by_bytes(A, "^[ba]{2,}$") == And(
        (Matches(A, "^[ab]*$"), Compare(Op.GE, LineBytes(A), Lit(2)))
    )
    assert run_by_bytes(A, "^[ba]*$") == Matches(A, "^[ab]*$")  # only put in member order
    assert run_by_bytes(A, "^[ab]{0,3}$") == And(
        (Matches(A, "^[ab]*$"), Compare(Op.LE, LineBytes(A), Lit(3)))
    )


@pytest.mark.parametrize(
    ("types", "rewritten"),
    [(None, True), ({"c": "string"}, True), ({"c": "string collate UTF8_LCASE"}, False),
     ({"c": "string collate UNICODE_CI"}, False)],
)  # fmt: skip
def test_only_a_plain_string_columns_runs_are_computed_by_bytes(types, rewritten):
    from assay.ir.origin import Origin
    from assay.ir.rules import RowCheck, Rule
    from assay.ir.suite import PathSource, Table
    from assay.planner import plan_table
    from assay.planner.cost import DEFAULT_OPTIONS
    from assay.planner.measures import CountIf

    here = Origin("c.yaml", "tables[0]")
    fails = [
        Or((IsNull(Col("c")), Not(Matches(Col("c"), p)))) for p in ("^[a-z]{1,3}$", "^[a-z]+$")
    ]
    rules = tuple(Rule("regex", RowCheck(f), here, ("c",)) for f in fails)
    table = Table("t", PathSource("parquet", ("t.parquet",)), rules, here)
    plan = plan_table(table, types=types)
    assert plan.aggregate is not None
    slots = [s for s in plan.aggregate.slots if isinstance(s.measure, CountIf)]
    assert [s.measure.predicate for s in slots] == fails  # answers stay keyed as written
    patterns = {n.pattern for s in slots for n in walk(s.form.predicate) if isinstance(n, Matches)}
    assert patterns == (
        {"^[abcdefghijklmnopqrstuvwxyz]*$"} if rewritten else {"^[a-z]{1,3}$", "^[a-z]+$"}
    )
    off = plan_table(table, dataclasses.replace(DEFAULT_OPTIONS, class_runs=False), types=types)
    assert off.aggregate is not None and all(s.computed is None for s in off.aggregate.slots)


def test_runs_are_computed_by_bytes_where_bounded_or_sharing_their_class():
    from assay.planner.regex_runs import runs_by_bytes

    def patterns(*regexes):
        forms = runs_by_bytes(list(regexes), lambda column: column != "collated")
        return [[n.pattern for n in walk(f) if isinstance(n, Matches)] for f in forms]

    b, collated = Col("b"), Col("collated")
    run = "^[abcdefghijklmnopqrstuvwxyz]*$"
    assert patterns(Matches(A, "^[a-z]{1,3}$")) == [[run]]  # bounded: alone too
    assert patterns(Matches(A, "^[a-z]{2,}$")) == [[run]]
    assert patterns(Matches(A, "^[a-z]+$"), Matches(b, "^[a-z]*$")) == [["^[a-z]+$"], ["^[a-z]*$"]]
    assert patterns(Matches(A, "^[a-z]+$"), Matches(A, "^[a-y]+$")) == [["^[a-z]+$"], ["^[a-y]+$"]]
    assert patterns(Matches(A, "^[a-z]+$"), Not(Matches(A, "^[za-y]*$"))) == [[run], [run]]
    assert patterns(Matches(collated, "^[a-z]{1,3}$")) == [["^[a-z]{1,3}$"]]

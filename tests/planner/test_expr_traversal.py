"""Row expressions have one traversal (``children``/``rebuild``/``walk`` in ir.expr, read
from the dataclass fields) and translators that know every node class of ``Expr`` and
refuse one they do not know: adding a node without its translations fails here (and at
the translator's import), and an unknown node is an error, never skipped."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import typing

import pytest

from assay.emit import columns as emit
from assay.ir import expr as ir
from assay.ir.expr import (
    NODES,
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    HasText,
    InSet,
    IsNaN,
    IsNull,
    Length,
    LineBytes,
    Lit,
    Matches,
    Not,
    Or,
    Parses,
    Sql,
    children,
    columns_of,
    patterns_of,
    rebuild,
    require_translations,
    untranslated,
    walk,
)
from assay.ir.values import Op
from assay.planner import cost, regex, sqltext

GT = Compare(Op.GT, Col("n"), Lit(1))

# One sample of every node class, over a double column n and a string column s.
SAMPLES: dict[type, Expr] = {
    Col: Col("n"),
    Lit: Lit(1),
    Compare: GT,
    And: And((IsNull(Col("s")), GT)),
    Or: Or((IsNull(Col("s")), GT)),
    Not: Not(IsNull(Col("n"))),
    IsNull: IsNull(Col("s")),
    IsNaN: IsNaN(Col("n")),
    InSet: InSet(Col("s"), ("xa", "Y")),
    Matches: Matches(Col("s"), "^x"),
    HasText: HasText(Col("s"), "a", "end"),
    Length: Length(Col("s")),
    LineBytes: LineBytes(Col("s")),
    Parses: Parses(Col("s"), "double"),
    Coalesce: Coalesce((GT, Lit(False))),
    Sql: Sql("n + 1 > 2"),
}

TRANSLATORS = {
    "emit.columns.column": emit.column,
    "planner.sqltext.render_expr": sqltext.render_expr,
    "planner.cost._pushable": cost._pushable,
}


class Mystery:
    """Not an expression node."""


def test_every_node_class_of_the_module_is_in_the_union():
    defined = {
        c
        for _, c in inspect.getmembers(ir, inspect.isclass)
        if c.__module__ == ir.__name__ and dataclasses.is_dataclass(c)
    }
    assert defined == set(NODES) == set(typing.get_args(Expr)) == set(SAMPLES)


def test_the_traversal_covers_every_node_class():
    assert set(ir._FIELDS) == set(NODES)


@pytest.mark.parametrize("kind", list(SAMPLES), ids=lambda k: k.__name__)
def test_children_are_the_expression_fields_in_order(kind):
    node = SAMPLES[kind]
    expected: list[Expr] = []
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, NODES):
            expected.append(value)
        elif isinstance(value, tuple) and value and all(isinstance(v, NODES) for v in value):
            expected.extend(value)
    assert children(node) == tuple(expected)


@pytest.mark.parametrize("kind", list(SAMPLES), ids=lambda k: k.__name__)
def test_rebuild_reaches_every_child_and_keeps_the_data(kind):
    node = SAMPLES[kind]
    assert rebuild(node, lambda e: e) == node
    renamed = rebuild(node, lambda e: Col("m") if e == Col("n") else e)
    assert "n" not in columns_of(renamed)
    assert type(renamed) is kind
    seen: list[Expr] = []
    rebuild(node, lambda e: seen.append(e) or e)  # type: ignore[func-returns-value]
    assert seen[-1] == node and len(seen) == len(list(walk(node)))


def test_walk_is_parents_first_left_to_right():
    e = And((Not(Col("a")), Compare(Op.EQ, Col("b"), Length(Col("c")))))
    names = [type(n).__name__ for n in walk(e)]
    assert names == ["And", "Not", "Col", "Compare", "Col", "Length", "Col"]
    assert columns_of(e) == ("a", "b", "c")
    assert patterns_of(Or((Matches(Col("a"), "y"), Not(Matches(Col("b"), "x"))))) == ("y", "x")


def test_a_new_node_needs_no_edit_of_the_traversal():
    @dataclasses.dataclass(frozen=True)
    class Between:
        item: Expr
        bounds: tuple[Expr, ...]
        inclusive: bool = True

    assert ir._expr_fields(Between) == (("item", False), ("bounds", True))


def test_a_field_holding_expressions_in_another_shape_stops_the_import():
    @dataclasses.dataclass(frozen=True)
    class MaybeItem:
        item: Expr | None

    with pytest.raises(TypeError, match="MaybeItem.item holds expressions"):
        ir._expr_fields(MaybeItem)


def test_an_unknown_node_is_not_walked():
    with pytest.raises(TypeError, match="not an expression node: Mystery"):
        children(Mystery())  # type: ignore[arg-type]
    for walker in (columns_of, patterns_of, lambda e: rebuild(e, lambda x: x)):
        with pytest.raises(TypeError, match="not an expression node: Mystery"):
            walker(And((Col("a"), Mystery())))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(TRANSLATORS))
def test_every_translator_knows_every_node_class(name):
    translator = TRANSLATORS[name]
    assert untranslated(translator) == ()
    fallback = translator.dispatch(object)
    for kind in NODES:
        assert translator.dispatch(kind) is not fallback, kind.__name__


@pytest.mark.parametrize("name", list(TRANSLATORS))
def test_every_translator_refuses_an_unknown_node(name):
    translator = TRANSLATORS[name]
    with pytest.raises(NotImplementedError, match="Mystery"):
        translator(Mystery())
    with pytest.raises(NotImplementedError, match="Mystery"):
        translator(And((GT, Mystery())))  # type: ignore[arg-type]


def test_a_translator_missing_a_node_stops_the_import_check():
    @functools.singledispatch
    def partial(expr: object) -> str:
        raise NotImplementedError

    for kind in NODES:
        if kind is not Length:
            partial.register(kind, lambda e: "x")
    assert untranslated(partial) == ("Length",)
    with pytest.raises(TypeError, match="expression nodes without a test: Length"):
        require_translations(partial, "a test")


def test_sql_text_of_every_node():
    assert {k.__name__: sqltext.render_expr(e) for k, e in SAMPLES.items()} == {
        "Col": "n",
        "Lit": "1",
        "Compare": "n > 1",
        "And": "(s IS NULL AND n > 1)",
        "Or": "(s IS NULL OR n > 1)",
        "Not": "NOT n IS NULL",
        "IsNull": "s IS NULL",
        "IsNaN": "isnan(n)",
        "InSet": "s IN ('xa', 'Y')",
        "Matches": "s RLIKE '^x'",
        "HasText": "endswith(s, 'a')",
        "Length": "length(s)",
        "LineBytes": "(octet_length(s) - CASE WHEN endswith(s, '\\r\\n') THEN 2 WHEN endswith(s, "
        "'\\n') THEN 1 WHEN endswith(s, '\\r') THEN 1 WHEN endswith(s, '\\u0085') THEN 2 WHEN "
        "endswith(s, '\\u2028') THEN 3 WHEN endswith(s, '\\u2029') THEN 3 ELSE 0 END)",
        "Parses": "try_cast(s AS DOUBLE) IS NOT NULL",
        "Coalesce": "coalesce(n > 1, FALSE)",
        "Sql": "(n + 1 > 2)",
    }


def test_pushdown_of_every_node():
    pushable = {k.__name__ for k, e in SAMPLES.items() if cost._pushable(e)}
    assert pushable == {"Compare", "And", "Or", "Not", "IsNull", "InSet"}
    assert cost._pushable(And((GT, InSet(Col("n"), (1,)))))
    assert not cost._pushable(And((GT, Matches(Col("s"), "x"))))
    assert not cost._pushable(Compare(Op.EQ, Col("b"), Lit(True)))  # a boolean literal
    assert not cost._pushable(Not(IsNull(Length(Col("s")))))


def test_cheaper_rewrites_a_regex_wherever_it_is():
    m = Matches(Col("s"), "^(Y|N)$")
    plain = regex.finite_form(Col("s"), "^(Y|N)$")
    assert plain is not None
    other = Matches(Col("s"), "a+")  # an infinite language: kept
    e = Coalesce((And((Not(m), Or((m, other)))), Lit(False)))
    expected = Coalesce((And((Not(plain), Or((plain, other)))), Lit(False)))
    assert regex.cheaper(e) == expected


@pytest.mark.spark
def test_spark_and_sql_text_agree_on_every_node(spark):
    """Each node's Spark column and its SQL text give the same values on real Spark."""
    df = spark.sql(
        "SELECT * FROM VALUES (1.5D, 'xa'), (CAST('NaN' AS DOUBLE), 'Y'), "
        "(CAST(NULL AS DOUBLE), CAST(NULL AS STRING)), (3.0D, 'abc') AS t(n, s)"
    )
    named = {k.__name__: e for k, e in SAMPLES.items()}
    by_column = df.select(*(emit.column(e).alias(n) for n, e in named.items()))
    by_text = df.selectExpr(*(f"{sqltext.render_expr(e)} AS `{n}`" for n, e in named.items()))

    def values(frame):
        return [
            tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in row)
            for row in frame.collect()
        ]

    assert values(by_column) == values(by_text)

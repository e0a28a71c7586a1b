"""Templates: ``$name``, ``${name}``, ``$$`` and literal dollars inside config strings."""

from __future__ import annotations

import logging

import pytest
from lark import Lark

import assay.grammar.parser as parser_module
from assay.errors import ThresholdSyntaxError, VariableError
from assay.grammar import VarRef, parse_template, references, substitute
from assay.grammar.parser import _TEMPLATE, _template_lark
from assay.ir.origin import Origin

ORIGIN = Origin("checks.yaml", "tables[1].source.query", line=3)


def caret_column(message: str) -> int:
    """The column the caret of a syntax error points at, relative to the shown text."""
    lines = message.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    return lines[caret].index("^") - 4


def var(name: str) -> VarRef:
    return VarRef(name, braced=False)


def braced(name: str) -> VarRef:
    return VarRef(name, braced=True)


PARTS = [
    pytest.param("", (), id="empty"),
    pytest.param("plain text", ("plain text",), id="no-dollar"),
    pytest.param("$x", (var("x"),), id="simple"),
    pytest.param("${x}", (braced("x"),), id="braced"),
    pytest.param("a $name b", ("a ", var("name"), " b"), id="simple-in-text"),
    pytest.param("$x-y", (var("x"), "-y"), id="simple-ends-at-non-name-char"),
    pytest.param("$x.y", (var("x"), ".y"), id="simple-ends-at-dot"),
    pytest.param("$run_date2", (var("run_date2"),), id="simple-digits-underscores"),
    pytest.param("${x}y", (braced("x"), "y"), id="braced-then-letter"),
    pytest.param("$x$y", (var("x"), var("y")), id="adjacent"),
    pytest.param("$$", ("$",), id="escape"),
    pytest.param("$$x", ("$x",), id="escaped-name-is-literal"),
    pytest.param("$${x}", ("${x}",), id="escaped-brace-is-literal"),
    pytest.param("$$$x", ("$", var("x")), id="escape-then-var"),
    pytest.param("$", ("$",), id="lone-dollar-at-end"),
    pytest.param("a$", ("a$",), id="dollar-at-end"),
    pytest.param("$5", ("$5",), id="dollar-digit"),
    pytest.param("$ x", ("$ x",), id="dollar-space"),
    pytest.param("$_x", ("$_x",), id="dollar-underscore"),
    pytest.param("^[a-z]+$", ("^[a-z]+$",), id="regex-anchor"),
    pytest.param("(a$|b)", ("(a$|b)",), id="regex-alternation"),
    pytest.param("^\\$\\d+$", ("^\\$\\d+$",), id="regex-escaped-dollar"),
    pytest.param("costs $5 on $day", ("costs $5 on ", var("day")), id="literal-and-var"),
    pytest.param("{x} }", ("{x} }",), id="braces-without-dollar"),
    pytest.param("${x}}", (braced("x"), "}"), id="extra-closing-brace-is-literal"),
    pytest.param(
        "select *\nfrom t\nwhere d = '${day}'\n",
        ("select *\nfrom t\nwhere d = '", braced("day"), "'\n"),
        id="multi-line",
    ),
]


@pytest.mark.parametrize(("text", "parts"), PARTS)
def test_parse_template(text: str, parts: tuple) -> None:
    assert parse_template(text, ORIGIN) == parts


REJECTED = [
    ("${}", 2, "expected a variable name"),
    ("${1x}", 2, "expected a variable name"),
    ("${_x}", 2, "expected a variable name"),
    ("${ x}", 2, "expected a variable name"),
    ("${x", 3, "expected }"),
    ("${x{y}}", 3, "expected }"),
    ("${x y}", 3, "expected }"),
    ("${x-y}", 3, "expected }"),
    ("a ${", 4, "expected a variable name"),
    ("ok $x then ${bad", 16, "expected }"),
]


@pytest.mark.parametrize(("text", "column", "expected"), REJECTED, ids=[t for t, _, _ in REJECTED])
def test_rejected_with_caret(text: str, column: int, expected: str) -> None:
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_template(text, ORIGIN)
    message = info.value.message
    assert message.splitlines()[0] == f'invalid variable reference in "{text}"'
    assert message.splitlines()[1] == f"    {text}"
    assert caret_column(message) == column
    assert message.splitlines()[-1].startswith(expected)
    assert info.value.origin is ORIGIN
    assert info.value.hint and "$$" in info.value.hint


def test_error_in_long_text_points_at_line_and_column() -> None:
    query = "select *\nfrom t\nwhere d = '${day' and x = 1"
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_template(query, ORIGIN)
    lines = info.value.message.splitlines()
    assert lines[0] == "invalid variable reference at line 3, column 17"
    assert lines[1] == "    where d = '${day' and x = 1"
    assert caret_column(info.value.message) == 16


def test_error_in_very_long_line_is_cut_around_the_caret() -> None:
    text = "x" * 200 + "${1}" + "y" * 200
    with pytest.raises(ThresholdSyntaxError) as info:
        parse_template(text, ORIGIN)
    shown = info.value.message.splitlines()[1][4:]
    assert shown.startswith("...") and shown.endswith("...")
    assert len(shown) < 100
    assert shown[caret_column(info.value.message)] == "1"


@pytest.mark.parametrize("fn", [parse_template, references], ids=["parse_template", "references"])
def test_rejected_by_every_entry_point(fn) -> None:
    with pytest.raises(ThresholdSyntaxError):
        fn("${}", ORIGIN)


def test_substitute_rejects_syntax_errors() -> None:
    with pytest.raises(ThresholdSyntaxError):
        substitute("${}", {}, ORIGIN)


SUBSTITUTED = [
    pytest.param("dt = '$day'", {"day": "2024-01-01"}, "dt = '2024-01-01'", id="simple"),
    pytest.param("${a}b", {"a": "A"}, "Ab", id="braced"),
    pytest.param("$a$b", {"a": "1", "b": "2"}, "12", id="adjacent"),
    pytest.param("$a $a", {"a": "x"}, "x x", id="repeated"),
    pytest.param("$$a", {}, "$a", id="escape-needs-no-variable"),
    pytest.param("price > $$5 and $5", {}, "price > $5 and $5", id="dollars"),
    pytest.param("^[a-z]+$", {}, "^[a-z]+$", id="regex"),
    pytest.param("plain", {}, "plain", id="plain"),
    pytest.param("$a", {"a": "$b", "b": "B"}, "$b", id="value-not-re-expanded"),
    pytest.param("$a", {"a": "${b}"}, "${b}", id="value-braced-not-re-expanded"),
    pytest.param("$a", {"a": "$$"}, "$$", id="value-dollars-verbatim"),
    pytest.param("$a", {"a": ""}, "", id="empty-value"),
]


@pytest.mark.parametrize(("text", "variables", "expected"), SUBSTITUTED)
def test_substitute(text: str, variables: dict[str, str], expected: str) -> None:
    assert substitute(text, variables, ORIGIN) == expected


def test_unknown_variable_names_it_and_lists_known_ones() -> None:
    with pytest.raises(VariableError) as info:
        substitute("where d = '$run_dat'", {"run_date": "x", "env": "prod"}, ORIGIN)
    error = info.value
    assert error.message == 'unknown variable "run_dat"; known variables: env, run_date'
    assert error.hint == 'did you mean "run_date"?'
    assert error.origin is ORIGIN
    assert error.code == "VARIABLE"


def test_unknown_variable_without_close_match() -> None:
    with pytest.raises(VariableError) as info:
        substitute("${zzz}", {"env": "prod"}, ORIGIN)
    assert 'unknown variable "zzz"' in info.value.message
    assert "env" in info.value.message
    assert info.value.hint and "$$" in info.value.hint


def test_unknown_variable_when_none_are_defined() -> None:
    with pytest.raises(VariableError, match="no variables are defined"):
        substitute("$env", {}, ORIGIN)


REFERENCES = [
    pytest.param("", (), id="empty"),
    pytest.param("plain", (), id="plain"),
    pytest.param("$a ${b} $a $$c $5", ("a", "b"), id="order-no-dupes"),
    pytest.param("${b}$a$b", ("b", "a"), id="first-use-order"),
    pytest.param("^[a-z]+$", (), id="regex"),
]


@pytest.mark.parametrize(("text", "names"), REFERENCES)
def test_references(text: str, names: tuple[str, ...]) -> None:
    assert references(text, ORIGIN) == names


def test_strings_without_dollar_skip_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_text: str) -> None:
        raise AssertionError("lark was invoked")

    monkeypatch.setattr(parser_module, "_template_parts", boom)
    assert parse_template("plain {x}", ORIGIN) == ("plain {x}",)
    assert substitute("plain", {}, ORIGIN) == "plain"
    assert references("plain", ORIGIN) == ()


def test_every_terminal_in_braces_has_words_for_errors() -> None:
    assert {"NAME", "_CLOSE"} <= set(_TEMPLATE.words)


def test_grammar_has_no_lalr_conflicts(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lark")
    Lark.open_from_package("assay.grammar", "template.lark", parser="lalr", debug=True)
    assert not [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()]


def test_parser_is_built_once() -> None:
    assert _template_lark() is _template_lark()


def test_grammar_builds_in_strict_mode() -> None:
    # terminal collisions are checked with interegular (the test extra installs it)
    Lark.open_from_package("assay.grammar", "template.lark", parser="lalr", strict=True)

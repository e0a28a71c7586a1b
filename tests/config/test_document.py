"""Reading files into Node trees: formats, lines, strictness, safety limits (no Spark)."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from assay.config.document import MAX_BYTES, parse_text, read_document
from assay.config.node import Node, unknown_message
from assay.errors import ConfigError, ConfigErrors
from assay.ir.origin import Origin


def yaml(text: str) -> Node:
    return parse_text(text, "c.yaml", "yaml")


def json_(text: str) -> Node:
    return parse_text(text, "c.json", "json")


# --- lines and paths -------------------------------------------------------------------


def test_yaml_keeps_the_line_and_path_of_every_key_and_item():
    doc = yaml("a: 1\nb:\n  - x\n  -\n    c: true\n")
    assert doc.origin == Origin("c.yaml", "", 1)
    assert doc.require("a").origin == Origin("c.yaml", "a", 1)
    b = doc.require("b").as_list()
    assert b[0].origin == Origin("c.yaml", "b[0]", 3)
    assert b[1].require("c").origin == Origin("c.yaml", "b[1].c", 5)


def test_json_keeps_the_line_and_path_of_every_key_and_item():
    doc = json_('{"a": 1,\n "b": [\n  "x",\n  {"c": true}]}')
    assert doc.require("a").origin.line == 1
    b = doc.require("b").as_list()
    assert [item.origin.line for item in b] == [3, 4]
    assert b[1].require("c").origin == Origin("c.json", "b[1].c", 4)


def test_json_values_match_the_stdlib():
    doc = json_('{"s": "\\u00e9\\n\\"", "i": 12, "f": 1e3, "n": null, "b": false, "l": [-0.5]}')
    assert doc.plain() == (
        ("s", 'é\n"'),
        ("i", 12),
        ("f", 1000.0),
        ("n", None),
        ("b", False),
        ("l", (-0.5,)),
    )


def test_yaml_scalars_keep_their_yaml_1_1_types_and_text():
    doc = yaml("a: no\nb: 012\nc: 2024-01-31\nd: '012'\ne: 2024-01-31 10:00:00\n")
    assert doc.require("a").value is False and doc.require("a").text == "no"
    assert doc.require("b").value == 10 and doc.require("b").text == "012"
    assert doc.require("c").value == dt.date(2024, 1, 31)
    assert doc.require("d").value == "012" and doc.require("d").text is None
    assert doc.require("e").value == dt.datetime(2024, 1, 31, 10)


def test_anchors_aliases_and_merge_keys():
    doc = yaml("base: &b {level: warn, column: a}\nr1:\n  <<: *b\n  column: z\nr2: *b\n")
    assert dict(doc.require("r1").plain()) == {"level": "warn", "column": "z"}
    assert doc.require("r2").require("column").origin.path == "r2.column"


# --- accessors -------------------------------------------------------------------------


def test_accessors_return_typed_values():
    doc = yaml("s: x\ni: 3\nb: true\nn: 2.5\nl: [1]\nm: {k: v}\n")
    assert doc.keys() == ("s", "i", "b", "n", "l", "m")
    assert doc.require("s").as_str() == "x"
    assert doc.require("i").as_int(minimum=0, maximum=3) == 3
    assert doc.require("b").as_bool() is True
    assert doc.require("n").as_number() == 2.5
    assert len(doc.require("l").as_list()) == 1
    assert list(doc.require("m").as_mapping()) == ["k"]
    assert doc.get("missing") is None


@pytest.mark.parametrize(
    ("text", "call", "message"),
    [
        ("v: [a]", lambda n: n.as_str("a column name"), "expected a column name, got a list"),
        (
            "v: x",
            lambda n: n.as_list("a list of column names"),
            "expected a list of column names, got a string",
        ),
        ("v: true", lambda n: n.as_int(), "expected an integer, got a boolean (true)"),
        ("v: 1.5", lambda n: n.as_int(), "expected an integer, got a number (1.5)"),
        ("v: 7", lambda n: n.as_int("a size", maximum=5), "expected a size <= 5, got 7"),
        ("v: 'yes'", lambda n: n.as_bool(), "expected true or false, got a string"),
        ("v: yes", lambda n: n.as_number(), "expected a number, got a boolean (yes)"),
        ("v: ''", lambda n: n.as_str("a name"), "expected a name, got an empty string"),
        (
            "v: []",
            lambda n: n.as_list("a list", non_empty=True),
            "expected a list, got an empty list",
        ),
        ("v: 1", lambda n: n.as_mapping(), "expected a mapping, got an integer (1)"),
    ],
    ids=[
        "str-list",
        "list-str",
        "int-bool",
        "int-float",
        "int-max",
        "bool-str",
        "number-bool",
        "str-empty",
        "list-empty",
        "mapping-int",
    ],
)
def test_wrong_types_name_what_was_expected_and_what_was_found(text, call, message):
    node = yaml(text).require("v")
    with pytest.raises(ConfigError) as e:
        call(node)
    assert str(e.value).startswith(f"c.yaml:1 v: {message}")


def test_a_yaml_boolean_where_text_is_expected_gets_a_quoting_hint():
    with pytest.raises(ConfigError) as e:
        yaml("level: no").require("level").as_str()
    assert e.value.hint == "YAML reads the unquoted no as a boolean; quote it: 'no'"


def test_require_names_the_missing_key_at_the_mapping():
    with pytest.raises(ConfigError, match=r"^c.yaml:2 m: missing required key 'type'$"):
        yaml("x: 1\nm: {a: 1}").require("m").require("type")


def test_check_keys_suggests_the_closest_key():
    with pytest.raises(ConfigError) as e:
        yaml("colums: [a]").check_keys({"column", "columns", "type"})
    assert str(e.value) == "c.yaml:1 colums: unknown key 'colums' (did you mean 'columns'?)"


def test_check_keys_lists_the_allowed_keys_without_a_close_match_and_reports_all():
    with pytest.raises(ConfigErrors) as e:
        yaml("foo: 1\nbar: 2\nok: 3").check_keys({"ok", "type"})
    assert [str(x) for x in e.value.errors] == [
        "c.yaml:1 foo: unknown key 'foo'; expected one of: ok, type",
        "c.yaml:2 bar: unknown key 'bar'; expected one of: ok, type",
    ]


def test_unknown_message():
    assert unknown_message("rule type", "uniq", ["unique", "not_null"]) == (
        "unknown rule type 'uniq' (did you mean 'unique'?)"
    )


def test_plain_is_immutable_data():
    assert yaml("a: [1, {b: 2}]").plain() == (("a", (1, (("b", 2),))),)


# --- strictness and safety ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\na: 2", "c.yaml:2 a: duplicate key 'a' (first at line 1)"),
        (
            "!!python/object/apply:os.system ['true']",
            "unsupported YAML tag '!!python/object/apply:os.system'",
        ),
        ("a: !!python/name:os.system ''", "unsupported YAML tag '!!python/name:os.system'"),
        ("a: !!binary aGk=", "unsupported YAML tag '!!binary'"),
        ("a: !local x", "unsupported YAML tag '!local'"),
        ("1: a", "mapping keys must be strings, got an integer (1)"),
        ("? [a]\n: b", "mapping keys must be plain strings, got a list"),
        ("a: .nan", "'.nan' is not a finite number"),
        ("a: -.inf", "'-.inf' is not a finite number"),
        ("a: 2024-02-30", "invalid timestamp value '2024-02-30'"),
        ("a: &a [*a]", "recursive YAML alias"),
        ("a: [1", "c.yaml:1: YAML syntax error at column 6:"),
        ("a: 1\n b: 2", "c.yaml:2: YAML syntax error at column 3: mapping values are not allowed"),
        ("a: \x00", "character U+0000 is not allowed"),
        ("<<: 1", "a '<<' merge needs a mapping"),
    ],
)
def test_yaml_errors(text, message):
    with pytest.raises(ConfigError) as e:
        yaml(text)
    assert message in str(e.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1,\n "a": 2}', "c.json:2 a: duplicate key 'a' (first at line 1)"),
        ('{"a": NaN}', "c.json:1 a: NaN is not allowed in JSON"),
        ('{"a": [Infinity]}', "c.json:1 a[0]: Infinity is not allowed in JSON"),
        ('{"a": 1,}', "c.json:1: JSON syntax error at column 9: Expecting property name"),
        ('{"a":\n 1\n "b": 2}', "c.json:3: JSON syntax error at column 2: Expecting ',' delimiter"),
    ],
)
def test_json_errors(text, message):
    with pytest.raises(ConfigError) as e:
        json_(text)
    assert message in str(e.value)


def test_billion_laughs_is_rejected_fast():
    text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="values after expanding YAML aliases"):
        yaml(text)
    assert time.perf_counter() - start < 1


def test_exponential_aliases_below_the_alias_cap_are_rejected():
    text = "a0: &a0 [x, x]\n" + "".join(
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, 40)
    )
    with pytest.raises(ConfigError, match="values after expanding"):
        yaml(text)


def test_alias_count_is_capped():
    with pytest.raises(ConfigError, match="more than 100 YAML aliases"):
        yaml("x: &x a\ny: [" + ", ".join(["*x"] * 101) + "]")
    assert len(yaml("x: &x a\ny: [" + ", ".join(["*x"] * 100) + "]").require("y").as_list()) == 100


@pytest.mark.parametrize("depth", [70, 10_000])
def test_deep_nesting_is_rejected_without_recursion_errors(depth):
    with pytest.raises(ConfigError, match="nesting deeper than 64 levels"):
        yaml("[" * depth + "]" * depth)
    with pytest.raises(ConfigError, match="nesting deeper than 64 levels"):
        json_("[" * depth + "]" * depth)


def test_nesting_through_aliases_is_capped():
    deep = "[" * 40 + "]" * 40
    with pytest.raises(ConfigError, match="nesting deeper than 64 levels"):
        yaml(f"a: &a {deep}\nb: {'[' * 40}*a{']' * 40}")


def test_sixty_four_levels_are_fine():
    node = yaml("[" * 63 + "]" * 63)
    for _ in range(62):
        node = node.as_list()[0]


# --- files --------------------------------------------------------------------------------


def test_read_document_by_extension_and_sniffing(tmp_path):
    (tmp_path / "a.yml").write_text("a: 1\n")
    (tmp_path / "b.json").write_text('{"a": 1}')
    (tmp_path / "c.conf").write_text('{"a": 1e3}')  # JSON: 1e3 is a number
    (tmp_path / "d.conf").write_text("a: 1e3\n")  # YAML 1.1: 1e3 is a string
    assert read_document(tmp_path / "a.yml").plain() == (("a", 1),)
    assert read_document(tmp_path / "b.json").plain() == (("a", 1),)
    assert read_document(tmp_path / "c.conf").plain() == (("a", 1000.0),)
    assert read_document(tmp_path / "d.conf").plain() == (("a", "1e3"),)


def test_origins_name_the_path_as_given(tmp_path):
    (tmp_path / "a.yaml").write_text("a: 1\n")
    assert read_document(tmp_path / "a.yaml").origin.file == str(tmp_path / "a.yaml")


def test_a_byte_order_mark_is_accepted(tmp_path):
    (tmp_path / "a.yaml").write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert read_document(tmp_path / "a.yaml").plain() == (("a", 1),)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "config file is empty"),
        (b"  \n", "config file is empty"),
        (b"# only a comment\n", "config file is empty (it has only comments)"),
        (b"a: \xff\n", "config file is not UTF-8 text (byte 3)"),
        (b"a: " + b"x" * MAX_BYTES, "config file is larger than 1024 KiB"),
    ],
    ids=["empty", "blank", "comments", "latin1", "too-large"],
)
def test_unreadable_files(tmp_path, content, message):
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as e:
        read_document(path)
    assert str(e.value) == f"{path}: {message}"


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file: No such file"):
        read_document(tmp_path / "nope.yaml")


def test_a_directory_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        read_document(tmp_path)


def test_a_large_valid_file_is_read(tmp_path):
    rules = "".join(f"  - {{name: t{i}, source: {{table: db.t{i}}}}}\n" for i in range(5000))
    path = tmp_path / "big.yaml"
    path.write_text("tables:\n" + rules)
    assert len(read_document(path).require("tables").as_list()) == 5000

"""Where a comparison's mistakes are placed (no Spark): the setting's own place (a
config's key, a command-line option), the columns each side has, the CSV header hint."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from assay.cli.compare import (
    Narrowing,
    command_line_places,
    compare_checks_of,
    comparison_of,
    side,
    tolerances,
)
from assay.comparison.plan import UnboundComparison, plan_comparison
from assay.config import load_suite
from assay.errors import ConfigError, ConfigErrors
from assay.ir.compare import DatasetComparison
from assay.ir.origin import Origin
from assay.ir.suite import CatalogSource, PathSource

ID_V = [("id", "int"), ("v", "double")]
HEADERLESS = [("_c0", "string"), ("_c1", "string")]


def comparison(**fields) -> DatasetComparison:
    base = {
        "name": "c",
        "source": CatalogSource("s"),
        "target": CatalogSource("t"),
        "keys": ("id",),
        "origin": Origin("c.yaml", "compare[0]", line=2),
    }
    return DatasetComparison(**{**base, **fields})


def unbound(c: DatasetComparison, source=ID_V, target=ID_V) -> UnboundComparison:
    with pytest.raises(UnboundComparison) as caught:
        plan_comparison(c, source, target)
    return caught.value


# --- the IR and the planner -----------------------------------------------------------------


def test_a_setting_is_placed_where_it_was_written_else_at_the_comparison():
    keys = Origin("c.yaml", "compare[0].keys", line=5)
    c = comparison(places=(("keys", keys),))
    assert c.place("keys") == keys
    assert c.place("columns") == c.origin


def test_missing_keys_and_columns_are_one_problem_per_setting_with_the_columns_read():
    error = unbound(comparison(keys=("idd",), columns=("vv",)))
    assert [(p.setting, p.message, p.hint) for p in error.problems] == [
        (
            "keys",
            "comparison c: key 'idd' is not a column of the source; key 'idd' is not a column"
            " of the target (the source has id, v; the target has id, v)",
            None,
        ),
        (
            "columns",
            "comparison c: column 'vv' is not a column of the source; column 'vv' is not a"
            " column of the target (the source has id, v; the target has id, v)",
            None,
        ),
    ]


def test_only_the_side_at_fault_is_listed():
    error = unbound(comparison(), target=[("ID2", "int")])
    (problem,) = error.problems
    assert problem.message == (
        "comparison c: key 'id' is not a column of the target (the target has ID2)"
    )


def test_a_wide_side_lists_its_first_columns_and_how_many():
    wide = [(f"c{i}", "int") for i in range(30)]
    (problem,) = unbound(comparison(), source=wide).problems
    assert problem.message.endswith(
        "(the source has c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, "
        "c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, ... "
        "(30 columns))"
    )


def test_a_csv_read_without_its_header_gets_the_header_hint():
    csv = PathSource("csv", ("/d/src.csv",))
    (problem,) = unbound(comparison(source=csv), source=HEADERLESS).problems
    assert "(the source has _c0, _c1)" in problem.message
    assert problem.hint == (
        "the source is a CSV file read without a header line (Spark names the columns _c0,"
        " _c1...): read the header with the reader option header=true"
    )
    both = comparison(source=csv, target=csv)
    (problem,) = unbound(both, source=HEADERLESS, target=HEADERLESS).problems
    assert problem.hint is not None
    assert problem.hint.startswith("the source and the target are CSV files read without")


def test_no_header_hint_when_the_header_was_read_or_the_side_is_no_csv():
    read = PathSource("csv", ("/d/src.csv",), (("header", "true"),))
    assert unbound(comparison(source=read), source=HEADERLESS).problems[0].hint is None
    parquet = PathSource("parquet", ("/d/src.parquet",))
    assert unbound(comparison(source=parquet), source=HEADERLESS).problems[0].hint is None


# --- a native config records its settings' places -------------------------------------------


def test_a_native_entry_records_where_its_keys_columns_and_formats_are(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "compare:\n"
        "  - source: {path: a.data, format: parquett}\n"
        "    target: {table: t}\n"
        "    keys: [idd]\n"
        "    columns: [v]\n"
    )
    (c,) = load_suite([path]).comparisons
    assert {setting: str(origin) for setting, origin in c.places} == {
        "keys": f"{path}:4 compare[0].keys",
        "columns": f"{path}:5 compare[0].columns",
        "source.format": f"{path}:2 compare[0].source.format",
    }


# --- the command line: each mistake names its option -----------------------------------------


def test_the_command_line_places_are_its_options():
    assert {s: str(o) for s, o in command_line_places("parquett", None, "v")} == {
        "keys": "<command line> --keys",
        "columns": "<command line> --columns",
        "source.format": "<command line> --source-format",
        "target.format": "<command line> TARGET",
    }
    assert "columns" not in dict(command_line_places(None, None, None))


@pytest.mark.parametrize(
    ("tolerance", "relative", "said"),
    [
        (-0.5, 0.0, ["--tolerance must be a finite number >= 0, got -0.5"]),
        (math.nan, 0.0, ["--tolerance must be a finite number >= 0, got nan"]),
        (0.0, -1.0, ["--relative-tolerance must be a finite number >= 0, got -1.0"]),
        (
            math.inf,
            -1.0,
            [
                "--tolerance must be a finite number >= 0, got inf",
                "--relative-tolerance must be a finite number >= 0, got -1.0",
            ],
        ),
    ],
)
def test_a_wrong_tolerance_names_its_option(tolerance, relative, said):
    with pytest.raises(ConfigError) as caught:
        tolerances(tolerance, relative)
    errors = caught.value.errors if isinstance(caught.value, ConfigErrors) else [caught.value]
    assert [str(e) for e in errors] == said


def test_tolerances_as_decimals():
    tol = tolerances(0.5, 0.01)
    assert (str(tol.absolute), str(tol.relative)) == ("0.5", "0.01")


def test_check_errors_are_placed_at_their_check_option():
    with pytest.raises(ConfigError) as caught:
        compare_checks_of(["missing_in_targt=0"])
    assert str(caught.value) == (
        "<command line> --check missing_in_targt: unknown metric 'missing_in_targt'"
        " (did you mean 'missing_in_target'?)"
    )
    with pytest.raises(ConfigError) as caught:
        compare_checks_of(["unmatched=betwen 1"])
    assert str(caught.value).startswith(
        '<command line> --check unmatched: invalid threshold "betwen 1"'
    )
    (check,) = compare_checks_of(["mismatch_percent(vv)=< 1%"])
    assert str(check.origin) == "<command line> --check mismatch_percent(vv)"


def test_reader_options_of_a_path_side(tmp_path: Path):
    source = side(str(tmp_path / "a.csv"), None, "source", ["header=true", "sep=;"])
    assert source == PathSource(
        "csv", (str((tmp_path / "a.csv").resolve()),), (("header", "true"), ("sep", ";"))
    )


def test_reader_options_of_a_table_are_refused():
    with pytest.raises(ConfigError) as caught:
        side("db.orders", None, "target", ["header=true"])
    assert caught.value.message == (
        "--target-option: target 'db.orders' is a table name, and reader options apply only"
        " to a path"
    )
    with pytest.raises(ConfigError, match="--source-option 'header' must look like NAME=VALUE"):
        side("a.csv", None, "source", ["header"])


def test_the_comparison_of_the_command_line_carries_its_places():
    c = comparison_of(
        CatalogSource("s"),
        CatalogSource("t"),
        "id",
        Narrowing(),
        0.0,
        0.0,
        False,
        False,
        [],
        None,
        command_line_places(None, None, None),
    )
    assert str(c.origin) == "<command line> compare"
    assert str(c.place("keys")) == "<command line> --keys"
    assert c.place("columns") == c.origin


# --- on the server: an unknown format is placed where the format was written ---------------


@pytest.mark.spark
def test_an_unknown_format_is_placed_at_its_format_and_a_missing_key_at_keys(spark, tmp_path):
    from assay.executor.compare import prepare_comparison

    data = str(tmp_path / "a.parquet")
    spark.createDataFrame([(1, 1.0)], "id int, v double").write.parquet(data)
    path = tmp_path / "c.yaml"
    path.write_text(
        "compare:\n"
        f"  - source: {{path: {data}}}\n"
        f"    target: {{path: {data}, format: parquett}}\n"
        "    keys: [id]\n"
        f"  - source: {{path: {data}}}\n"
        f"    target: {{path: {data}}}\n"
        "    keys: [idd]\n"
    )
    unknown, missing = load_suite([path]).comparisons
    error = prepare_comparison(spark, unknown)
    assert isinstance(error, ConfigError)
    assert str(error.origin) == f"{path}:3 compare[0].target.format"
    assert "[DATA_SOURCE_NOT_FOUND]" in error.message and "parquett" in error.message
    errors = prepare_comparison(spark, missing)
    assert isinstance(errors, ConfigErrors)
    assert [str(e) for e in errors.errors] == [
        f"{path}:7 compare[1].keys: comparison compare_1: key 'idd' is not a column of the"
        " source; key 'idd' is not a column of the target (the source has id, v; the target"
        " has id, v)"
    ]

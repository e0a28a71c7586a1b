"""Option values refused (or resolved) on the command line, before any Spark: variable
names, the report's ``--history-format`` and relative ``--history`` paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.cli.app import _variables
from assay.cli.report import history_format_of, history_location
from assay.errors import ConfigError, ConfigErrors


def test_variables_from_vars_and_var_the_latter_winning():
    assert _variables(["B=3", "C_1=x"], "A=1,B=2") == {"A": "1", "B": "3", "C_1": "x"}


def test_a_name_no_reference_can_use_is_refused():
    with pytest.raises(ConfigError) as caught:
        _variables(None, "1X=2")
    assert (
        caught.value.message == "--vars item '1X' is not a variable name: no $reference can use it"
    )
    assert caught.value.hint == "a variable name is a letter, then letters, digits or _"


def test_every_wrong_name_is_named():
    with pytest.raises(ConfigErrors) as caught:
        _variables(["a-b=1"], "1X=2,OK=3")
    assert [e.message.split(" is not")[0] for e in caught.value.errors] == [
        "--vars item '1X'",
        "--var 'a-b'",
    ]


@pytest.mark.parametrize("given", ["parquet", "csv", "json", "orc", "delta", "table", " CSV "])
def test_the_history_formats(given):
    assert history_format_of(given) == given.strip().lower()


def test_an_unknown_history_format_is_refused_naming_the_option():
    with pytest.raises(ConfigError) as caught:
        history_format_of("parquett")
    assert str(caught.value) == (
        "--history-format: unknown format 'parquett' (did you mean 'parquet'?)\n"
        "  hint: a report table is read as parquet, csv, json, orc or delta, or as a catalog"
        " table's name with table"
    )


def test_a_relative_history_path_is_the_current_directorys(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert history_location("dq/report", "parquet") == str(tmp_path.resolve() / "dq" / "report")
    assert history_location("s3://lake/dq/report", "parquet") == "s3://lake/dq/report"
    assert history_location("dq.report", "table") == "dq.report"
    assert os.path.isabs(history_location("../r.json", "json"))

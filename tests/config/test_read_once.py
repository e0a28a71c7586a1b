"""``assay run`` reads and parses each config file once: the CLI parses it to tell a
data-validator file (whose run ends stderr with its status line) and hands the tree to
the load (:class:`assay.api.suites.ReadConfigs`), and the reload that resolves deferred
variables builds the same trees again rather than reading the files; nothing in the
config layer remembers a file it read."""

from __future__ import annotations

from collections import Counter

import pytest
from typer.testing import CliRunner

import assay.config.document as document
from assay.api.suites import ReadConfigs, load_with, read_configs
from assay.errors import ConfigErrors
from assay.options import RunOptions

VALIDATOR = """\
numKeyCols: 1
numErrorsToReport: 3
tables:
  - parquetFile: people.parquet
    checks:
      - type: rangeCheck
        column: age
        minValue: 10
        maxValue: 10
"""
"""A data-validator file with an error (its range is empty): its run exits 2 before any
Spark work, its status line last on stderr."""

NATIVE = """\
tables:
  - name: people
    source: {path: people.parquet}
    rules:
      - {type: not_null, column: id}
      - {type: range, column: age, min: $MIN, max: 120}
vars: {MIN: "0"}
"""


@pytest.fixture
def parsed(monkeypatch) -> Counter[str]:
    """The files parsed from here on, each with how many times."""
    seen: Counter[str] = Counter()
    parse = document.parse_text

    def counted(text, file, fmt=None):
        seen[file] += 1
        return parse(text, file, fmt)

    monkeypatch.setattr(document, "parse_text", counted)
    return seen


def test_a_run_parses_each_config_once(tmp_path, monkeypatch, parsed):
    from assay.cli.app import STATUS_PREFIX, app

    (tmp_path / "validator.yaml").write_text(VALIDATOR)
    (tmp_path / "native.yaml").write_text(NATIVE)
    monkeypatch.chdir(tmp_path)
    args = ["run", "validator.yaml", "native.yaml", "--remote", "sc://localhost:1"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, done.output
    assert "validator.yaml:6 tables[0].checks[0]" in done.stderr
    assert done.stderr.rstrip("\n").splitlines()[-1] == f"{STATUS_PREFIX}FAIL"
    assert parsed == {"validator.yaml": 1, "native.yaml": 1}


def test_loads_of_read_configs_parse_nothing_more(tmp_path, parsed):
    """As the reload with the deferred variables' values loads them: from the trees."""
    path = tmp_path / "native.yaml"
    path.write_text(NATIVE)
    read = read_configs([path])
    assert isinstance(read, ReadConfigs) and list(read) == [path]
    first = load_with(read, RunOptions())
    again = load_with(read, RunOptions(vars={"MIN": "1"}))
    assert parsed == {str(path): 1}
    assert first.tables[0].rules[1] != again.tables[0].rules[1]  # built with the new value
    assert first.dialects == again.dialects == ("native",)


def test_a_file_that_cannot_be_read_is_said_by_the_load(tmp_path, parsed):
    missing = tmp_path / "missing.yaml"
    read = read_configs([missing])
    assert read.trees == {} and list(read) == [missing]
    with pytest.raises(ConfigErrors) as caught:
        load_with(read, RunOptions())
    assert "cannot read config file" in str(caught.value)
    assert parsed == {}


def test_a_file_read_twice_is_parsed_twice(tmp_path, parsed):
    """No cache below the CLI: a caller reading a file again gets it parsed again."""
    path = tmp_path / "native.yaml"
    path.write_text(NATIVE)
    assert document.read_document(path).plain() == document.read_document(path).plain()
    assert parsed == {str(path): 2}

"""Bad configs: each file in bad/ fails with its expected message; errors are collected.

A YAML file states what it must produce in leading ``# expect: <fragment>`` lines (several
lines form one multi-line fragment); a JSON file in ``<name>.json.expect``. The fragment
is matched against the whole report with the file's path shortened to its name.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from assay.config import load_suite
from assay.errors import ConfigError, ConfigErrors, VariableError

BAD = Path(__file__).parent / "bad"
PREFIX = "# expect: "
BAD_FILES = sorted(p for p in BAD.iterdir() if p.suffix in (".yaml", ".json"))


def expected(path: Path) -> str:
    if path.suffix == ".json":
        return path.with_name(path.name + ".expect").read_text().rstrip("\n")
    lines = path.read_text().splitlines()
    return "\n".join(line[len(PREFIX) :] for line in lines if line.startswith(PREFIX))


def report(paths: list[Path], **kwargs) -> str:
    with pytest.raises(ConfigErrors) as e:
        load_suite(paths, **kwargs)
    text = str(e.value)
    for path in paths:
        text = text.replace(str(path), path.name)
    return text


def test_the_corpus_is_large_enough():
    assert len(BAD_FILES) >= 40


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: p.name)
def test_bad_config(path, monkeypatch, tmp_path):
    monkeypatch.delenv("ASSAY_TEST_SURELY_UNSET_42", raising=False)
    monkeypatch.chdir(tmp_path)  # the unsafe-tag files would create a sentinel here
    fragment = expected(path)
    assert fragment, f"{path.name} states no expected message"
    start = time.perf_counter()
    message = report([path])
    assert time.perf_counter() - start < 2
    assert fragment in message
    assert "Traceback" not in message
    assert not (tmp_path / "ASSAY_PWNED_SENTINEL").exists()


def test_every_error_carries_a_location():
    for path in BAD_FILES:
        with pytest.raises(ConfigErrors) as e:
            load_suite([path])
        for error in e.value.errors:
            assert error.origin is not None and error.origin.file == str(path), path.name


def test_errors_are_collected_across_rules_tables_and_files(tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text("""\
tables:
  - name: a
    source: {table: db.a, formt: csv}
    rules:
      - {type: not_nul, column: id}
      - {type: range, column: q, min: 5, max: 1}
      - {type: not_null, column: id}
  - name: b
    source: {table: db.b}
    rules: []
""")
    two = tmp_path / "two.json"
    two.write_text('{"tables": [{"source": {"table": "t"}, "rules": [{"type": "sql"}]}]}')
    assert report([one, tmp_path / "missing.yaml", two]).splitlines() == [
        "one.yaml:3 tables[0].source.formt: unknown key 'formt' (did you mean 'format'?)",
        "one.yaml:5 tables[0].rules[0].type: unknown rule type 'not_nul' (did you mean "
        "'not_null'?)",
        "one.yaml:6 tables[0].rules[1]: min (5) is greater than max (1)",
        "one.yaml:10 tables[1].rules: expected at least one rule, got an empty list",
        "  hint: a table with 0 checks would pass silently",
        "missing.yaml: cannot read config file: No such file or directory",
        "two.json:1 tables[0].rules[0]: missing required key 'query'",
    ]


def test_errors_keep_their_specific_types(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_UNSET_1", raising=False)
    path = tmp_path / "c.yaml"
    path.write_text(
        "vars:\n  a: {env: ASSAY_TEST_UNSET_1}\ntables:\n  - source: {sql: $a $b}\n"
        "    rules: [{type: avg, column: x, must_be: '>'}]\n"
    )
    with pytest.raises(ConfigErrors) as e:
        load_suite([path])
    kinds = [type(error).__name__ for error in e.value.errors]
    assert kinds == ["VariableError", "VariableError", "ThresholdSyntaxError"]
    assert all(isinstance(error, ConfigError) for error in e.value.errors)
    assert isinstance(e.value.errors[0], VariableError)
    assert e.value.exit_code == 2


def test_a_failed_variable_is_reported_once(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_UNSET_2", raising=False)
    path = tmp_path / "c.yaml"
    path.write_text(
        "vars:\n  a: {env: ASSAY_TEST_UNSET_2}\ntables:\n  - source: {sql: $a}\n"
        "    filter: $a\n    rules: [{type: not_null, column: x}]\n"
    )
    assert report([path]).count("ASSAY_TEST_UNSET_2") == 2  # the message and its hint


def test_duplicate_names_across_files(tmp_path):
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(
            "tables:\n  - source: {table: db.t}\n    rules: [{type: not_null, column: x}]\n"
        )
    assert report([tmp_path / "a.yaml", tmp_path / "b.yaml"]) == (
        "b.yaml:2 tables[0]: duplicate table name 'db.t' (first used at a.yaml:2 tables[0])\n"
        "  hint: give one of the tables a different 'name'"
    )


def test_no_files_is_an_error():
    with pytest.raises(ConfigErrors, match="no config file given"):
        load_suite([])


def test_a_huge_file_is_rejected_fast(tmp_path):
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as f:
        f.write(b"tables:\n")
        f.write(b"  - {source: {table: t}, rules: [{type: not_null, column: x}]}\n" * 50_000)
    assert os.path.getsize(path) > 2 * 2**20  # read no further than 1 MiB + 1 byte
    start = time.perf_counter()
    assert "larger than 1024 KiB" in report([path])
    assert time.perf_counter() - start < 1

"""A data-validator variable whose definition fails is reported once: its uses (in a
condition, a check, a later variable, the email) add no "unknown variable" error."""

from __future__ import annotations

from tests.dialects.helpers import DATA, errors, write

UNSET = "ASSAY_TEST_SURELY_UNSET_VARIABLE"


def config(tmp_path, variables: str, table: str = "", extra: str = ""):
    return write(
        tmp_path,
        f"""\
        numKeyCols: 1
        numErrorsToReport: 2
        detailedErrors: true
        vars:
{variables}
        {extra}
        tables:
          - orcFile: {DATA / "people.orc"}
            {table}
            checks:
              - {{type: nullCheck, column: id}}
        """,
    )


def test_an_unset_environment_variable_is_the_only_error(tmp_path, monkeypatch):
    monkeypatch.delenv(UNSET, raising=False)
    path = config(
        tmp_path,
        f"          - {{name: MIN_AGE, env: {UNSET}}}",
        table="condition: age > $MIN_AGE",
    )
    text = errors(path)
    assert f"vars[0].env: variable 'MIN_AGE': environment variable '{UNSET}' is not set" in text
    assert "unknown variable" not in text
    assert len(text.splitlines()) == 2  # the error and its hint


def test_a_shell_variable_without_allow_shell_is_the_only_error(tmp_path):
    path = config(
        tmp_path, "          - {name: MIN_AGE, shell: echo 1}", table="condition: age > $MIN_AGE"
    )
    text = errors(path)
    assert "vars[0].shell: variable 'MIN_AGE' runs a shell command" in text
    assert "unknown variable" not in text


def test_checks_and_variables_built_on_a_failed_one_add_no_error(tmp_path, monkeypatch):
    monkeypatch.delenv(UNSET, raising=False)
    path = config(
        tmp_path,
        f"          - {{name: N, env: {UNSET}}}\n          - {{name: M, value: '$N'}}",
        table="condition: age > $M",
    )
    path.write_text(
        path.read_text().replace(
            "- {type: nullCheck, column: id}", "- {type: rowCount, minNumRows: $M}"
        )
    )
    text = errors(path)
    assert "vars[0].env" in text
    assert "unknown variable" not in text
    assert "minNumRows" not in text  # the check using M is left out, not reported


def test_an_unknown_variable_is_still_an_error_beside_a_failed_one(tmp_path, monkeypatch):
    monkeypatch.delenv(UNSET, raising=False)
    path = config(
        tmp_path,
        f"          - {{name: MIN_AGE, env: {UNSET}}}",
        table="condition: age > $MIN_AEG",
    )
    text = errors(path)
    assert "vars[0].env" in text
    assert 'tables[0].condition: unknown variable "MIN_AEG"' in text
    assert 'did you mean "MIN_AGE"?' in text

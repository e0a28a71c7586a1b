"""What `assay check` and `assay explain --format json` print: JSON lines the events schema
validates, for valid and invalid configs, and a plan whose numbers are the text form's.
No Spark (the commands need none)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from assay.cli.app import app
from assay.planner.measures import MEASURE_KINDS
from assay.planner.plan_json import measure_kind
from tests.conftest import ROOT
from tests.helpers import validate_event

ORDERS = "examples/orders.yaml"
CORPUS = "tests/cli/bad_inputs"


def invoke(*args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[dict], str, str]:
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(app, list(args))
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.exit_code, lines, done.stdout, done.stderr


def test_check_of_a_valid_config_is_one_valid_line(monkeypatch):
    code, lines, _, stderr = invoke("check", ORDERS, monkeypatch=monkeypatch)
    assert code == 0 and stderr == ""
    (line,) = lines
    validate_event(line)
    assert line == {"event": "check", "schema_version": 1, "valid": True, "files": [ORDERS],
                    "tables": 2, "rules": 16, "comparisons": 0, "problems": []}  # fmt: skip


def test_check_of_an_invalid_config_is_one_line_with_every_problem(monkeypatch):
    config = f"{CORPUS}/native/three_tables_one_missing_and_config_error.yaml"
    code, lines, stdout, stderr = invoke("check", config, monkeypatch=monkeypatch)
    assert code == 2
    assert len(stdout.splitlines()) == 1
    (line,) = lines
    validate_event(line)
    assert (line["valid"], line["tables"], line["rules"], line["comparisons"]) == (False, 2, 2, 0)
    (problem,) = line["problems"]
    assert problem == {
        "message": "unknown rule type 'uniqe' (did you mean 'unique'?)",
        "file": config,
        "line": 14,
        "path": "tables[2].rules[0].type",
        "hint": None,
        "code": "CONFIG_INVALID",
    }
    # the human-readable error is on stderr as before
    assert f"config error: {config}:14 tables[2].rules[0].type: unknown rule type" in stderr


def test_check_keeps_a_problems_hint_and_caret(monkeypatch):
    config = f"{CORPUS}/native/threshold_typo.yaml"
    code, (line,), _, stderr = invoke("check", config, monkeypatch=monkeypatch)
    assert code == 2
    validate_event(line)
    (problem,) = line["problems"]
    assert (problem["line"], problem["path"], problem["code"]) == (
        5,
        "tables[0].rules[0].must_be",
        "SYNTAX",
    )
    assert problem["message"].splitlines()[1:3] == ["    betwen 1 and 2", "    ^"]
    assert problem["hint"].startswith("write e.g.") and problem["hint"] in stderr


def test_check_of_a_wrong_command_line_is_an_invalid_line_without_a_place(monkeypatch):
    code, (line,), _, stderr = invoke("check", ORDERS, "--var", "=x", monkeypatch=monkeypatch)
    assert code == 2 and "NAME=VALUE" in stderr
    validate_event(line)
    assert [(p["file"], p["line"], p["path"]) for p in line["problems"]] == [(None, None, None)]


def test_the_check_line_of_several_problems_lists_them_in_stderrs_order(monkeypatch, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        "tables:\n  - source: {table: t}\n    rules:\n"
        "      - {type: not_nul, column: a}\n"
        "      - {type: avg, column: a, must_be: '>> 1'}\n"
        "      - {type: unique, colum: a}\n"
    )
    code, (line,), _, stderr = invoke("check", str(config), monkeypatch=monkeypatch)
    assert code == 2
    validate_event(line)
    places = [f"{p['file']}:{p['line']} {p['path']}" for p in line["problems"]]
    assert len(places) >= 3
    assert [stderr.index(p) for p in places] == sorted(stderr.index(p) for p in places)


def _section(text: str, head: str) -> list[str]:
    """The lines of one part of a table's text plan (indented below ``head``)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(head))
    found = []
    for line in lines[start + 1 :]:
        if not line.startswith("    "):
            break
        found.append(line)
    return found


def test_explain_json_is_the_plan_the_text_shows(monkeypatch):
    code, lines, _, _ = invoke("explain", ORDERS, "--format", "json", monkeypatch=monkeypatch)
    assert code == 0
    text_code, _, text_out, _ = invoke("explain", ORDERS, monkeypatch=monkeypatch)
    assert text_code == 0
    assert [line["table"] for line in lines] == ["orders", "customers"]
    for line in lines:
        validate_event(line)
        plan, text = line["plan"], line["text"]
        assert text + "\n\n" in text_out  # the text form, unchanged, is in the line too
        assert plan["table"] == line["table"]
        assert f"  source: {plan['source']}" in text
        head = re.search(r"spark plans: (\d+)( \(\+1 detail plan)?", text)
        assert plan["counts"]["base"] == int(head.group(1)) == line["spark_plans"]
        assert plan["counts"]["detail"] == (1 if head.group(2) else 0) == int(line["detail_plan"])
        parts = re.search(r"aggregate \((\d+) parts", text)
        assert plan["aggregate"]["branches"] == int(parts.group(1))
        scans = [int(n) for n in re.findall(r"scan \((\d+) outputs\)", text)]
        assert [len(s["measures"]) for s in plan["aggregate"]["scans"]] == scans
        groups = re.findall(r"group by \(([^)]*)\)", text)
        assert [", ".join(g["columns"]) for g in plan["aggregate"]["groups"]] == groups
        for scan in plan["aggregate"]["scans"]:
            for m in scan["measures"]:
                users = ", ".join(f"rules[{i}]" for i in m["rules"])
                assert re.search(
                    rf"{m['name']} +{re.escape(m['expression'])}  <- {re.escape(users)}", text
                )
        detail = [
            int(i) for i in re.findall(r"rules\[(\d+)\]", "\n".join(_section(text, "  detail")))
        ]
        assert plan["detail"]["rules"] == detail
        assert plan["aggregate"]["references"] == []
    orders = lines[0]["plan"]
    assert (
        len(orders["aggregate"]["scans"][0]["measures"]),
        len(orders["aggregate"]["groups"]),
    ) == (9, 2)
    assert orders["folded_sql"] == [{"rule": 11, "measure": "m010_count"}]
    assert orders["schema_rules"] == [10] and orders["sql"] is None
    assert orders["detail"]["rules"] == [0, 1, 2, 3, 4, 5, 8]
    assert orders["detail"]["keys"] == ["order_id"] and orders["detail"]["sample_size"] == 5
    assert orders["counts"] == {"base": 1, "detail": 1, "validators": 0, "writes": 0}


def test_explain_json_of_sql_histograms_writes_and_comparisons_validates(monkeypatch):
    for config in (
        "tests/golden/every_rule.yaml",
        "examples/compare/orders_copy.yaml",
        "examples/metorikku/people_job.yaml",
        "examples/sparquet/orders_validations.json",
        "examples/monitoring/orders_daily.yaml",
    ):
        code, lines, _, _ = invoke("explain", config, "--format", "json", "--passes",
                                   monkeypatch=monkeypatch)  # fmt: skip
        assert code == 0, config
        assert lines[0]["event"] == "passes"
        for line in lines:
            validate_event(line)
    every = next(line for line in invoke(
        "explain", "tests/golden/every_rule.yaml", "--format", "json", monkeypatch=monkeypatch
    )[1])  # fmt: skip
    assert every["plan"]["histogram"]["columns"] and every["plan"]["sql"]["queries"]
    history = invoke("explain", "examples/monitoring/orders_daily.yaml", "--format", "json",
                     monkeypatch=monkeypatch)[1][-1]  # fmt: skip
    assert history["event"] == "history" and history["tags"] == {"env": "example"}
    assert [r["rule"] for r in history["rules"]] == [
        "avg(amount)", "missing_percent(coupon)", "not_null(email)", "row_count"
    ]  # fmt: skip
    compared = invoke("explain", "examples/compare/orders_copy.yaml", "--format", "json",
                      monkeypatch=monkeypatch)[1][0]  # fmt: skip
    assert compared["plan"]["keys"] and compared["plan"]["checks"]
    assert compared["text"].startswith(f"comparison {compared['comparison']} ")


def test_every_measure_kind_has_a_name():
    names = [measure_kind(kind()) for kind in MEASURE_KINDS if _constructible(kind)]
    assert len(set(names)) == len(names)
    assert "row_count" in names


def _constructible(kind: type) -> bool:
    try:
        kind()
    except TypeError:
        return False
    return True

"""GitHub Actions: annotations (workflow commands) at each rule's config file and line,
escaped as the runner reads them back, and the Markdown summary appended to the job
summary. Events of a real run (tests/report/data/ci.jsonl); no Spark."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from assay.report.github import (
    Annotation,
    annotations_of,
    append_summary,
    escape_data,
    escape_property,
    publish,
)
from assay.report.history import load_runs
from assay.report.render import render_markdown
from tests.report.test_cli import assay

CI = Path(__file__).parent / "data" / "ci.jsonl"
COMMAND = re.compile(r"^::(error|warning) (.*?)::(.*)$")


@pytest.fixture(scope="module")
def events() -> list[dict]:
    [run] = load_runs([CI])
    return run


def unescape(text: str) -> str:
    """What the runner reads back (actions/runner ``ActionCommand``: ``%25`` last)."""
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command as the runner splits it: level, properties, message."""
    found = COMMAND.match(line)
    assert found, line
    level, props, message = found.groups()
    pairs = dict(p.split("=", 1) for p in props.split(","))
    return level, {k: unescape(v) for k, v in pairs.items()}, unescape(message)


def test_escaping_follows_the_runners_rules():
    assert escape_data("50% of\r\nrows") == "50%25 of%0D%0Arows"
    assert escape_property("a,b: 100%\n") == "a%2Cb%3A 100%25%0A"
    assert escape_data("a,b: c") == "a,b: c"  # a message may hold , and :


def test_every_rule_that_did_not_pass_is_annotated_at_its_line_errors_first(events):
    found = [parse(a.command()) for a in annotations_of(events)]
    assert [(level, props["line"]) for level, props, _ in found] == [
        ("error", "13"),  # the failed regex
        ("error", "24"),  # the rule Spark could not compute
        ("error", "34"),  # the rule of the unreadable table
        ("error", "30"),  # the unreadable table
        ("error", "37"),  # the failed comparison
        ("warning", "17"),  # the warn-level failure
        ("warning", "20"),  # the metric that met must_be, not warn
    ]
    assert {props["file"] for _, props, _ in found} == {"tests/report/data/ci.yaml"}
    level, props, message = found[0]
    assert props["title"] == "assay: orders: email looks like an email"
    assert message == "3 of 1000 rows fail: regex (email) | fail: fails the run"
    assert found[-1][2].startswith("missing_percent(coupon) = 69.1; warn unless < 50%")


def test_a_name_and_message_with_command_syntax_read_back_whole(events):
    nasty = copy.deepcopy(events)
    rule = next(e for e in nasty if e["event"] == "result" and e["severity"] == "fail")
    rule["rule"]["name"] = "x,line=1::boom 100%"
    rule["message"] = "first\r\nsecond ::error::not a command"
    rule["location"]["file"] = "dir,with:odd/chars%.yaml"
    line = annotations_of(nasty)[0].command()
    assert "\n" not in line and "\r" not in line
    level, props, message = parse(line)
    assert level == "error" and set(props) == {"file", "line", "title"}
    assert props["file"] == "dir,with:odd/chars%.yaml"
    assert props["title"] == "assay: orders: x,line=1::boom 100%"
    assert message.startswith("first\r\nsecond ::error::not a command | ")


def test_an_annotation_without_a_place_has_only_its_title():
    assert Annotation("warning", "m", "t").command() == "::warning title=t::m"


def test_the_summary_is_appended_never_replaced(events, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("## an earlier step\n")
    environ = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert append_summary(environ, events) == str(summary)
    append_summary(environ, events)
    markdown = render_markdown(events)
    assert summary.read_text() == "## an earlier step\n" + ("\n" + markdown) * 2
    assert append_summary({}, events) is None
    assert append_summary({**environ, "ASSAY_GITHUB": "false"}, events) is None
    assert summary.read_text().count(markdown) == 2


def test_publish_annotates_only_in_a_github_actions_step(events, tmp_path):
    written: list[str] = []
    assert publish(events, {}, written.append, annotate=True) == []
    assert written == []
    publish(events, {"GITHUB_ACTIONS": "true"}, written.append, annotate=True)
    assert len(written) == 7
    problems = publish(
        events, {"GITHUB_STEP_SUMMARY": str(tmp_path)}, written.append, annotate=True
    )
    assert len(problems) == 1 and problems[0].startswith(f"GITHUB_STEP_SUMMARY {tmp_path}: ")


def test_assay_report_github_prints_annotations_on_stdout(events, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("before\n")
    done = assay("report", str(CI), "--github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [a.command() for a in annotations_of(events)]
    assert summary.read_text() == "before\n\n" + render_markdown(events)
    off = assay(
        "report",
        str(CI),
        "--markdown",
        "-",
        env={"GITHUB_STEP_SUMMARY": str(summary), "ASSAY_GITHUB": "off"},
    )
    assert off.returncode == 0 and off.stdout == render_markdown(events)
    assert summary.read_text() == "before\n\n" + render_markdown(events)

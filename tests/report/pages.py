"""Reading a report page back: parse it with a real HTML parser (html5lib, strict: any
parse error fails) and check it against the events it was rendered from."""

from __future__ import annotations

import json
import re
from typing import Any

import html5lib

from assay.report.model import cell

Element = Any


def dom(page: str) -> Element:
    parser = html5lib.HTMLParser(
        tree=html5lib.getTreeBuilder("etree"), strict=True, namespaceHTMLElements=False
    )
    return parser.parse(page)


def classes(element: Element) -> set[str]:
    return set((element.get("class") or "").split())


def local(element: Element) -> str:
    """The tag without its namespace (SVG elements have one)."""
    return element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""


def find(root: Element, tag: str, cls: str | None = None) -> list[Element]:
    return [e for e in root.iter() if local(e) == tag and (cls is None or cls in classes(e))]


def text(element: Element) -> str:
    return " ".join("".join(element.itertext()).split())


def config_order(events: list[dict[str, Any]]) -> list[str]:
    """Table names as the config lists them (the table lines arrive in finish order)."""
    tables = [e for e in events if e["event"] == "table"]
    summary = events[-1]
    files = summary.get("files", [])

    def key(t: dict[str, Any]) -> tuple[int, str, int]:
        loc = t["location"]
        known = loc["file"] in files
        return (
            files.index(loc["file"]) if known else len(files),
            "" if known else loc["file"],
            loc["line"],
        )

    return [t["table"] for t in sorted(tables, key=key)]


def no_request_can_leave(page: str, root: Element) -> None:
    """No element or style that loads anything: no src/href (but #fragments), no link,
    img, iframe, object, no CSS url() or @import, and no URL but the Spark server's text."""
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        assert local(element) not in (
            "link",
            "img",
            "iframe",
            "object",
            "embed",
            "image",
            "use",
            "base",
        ), element.tag
        for name, value in element.attrib.items():
            assert name not in (
                "src",
                "srcset",
                "action",
                "poster",
                "data",
                "xlink:href",
                "formaction",
            ), name
            if name == "href":
                assert value.startswith("#"), value
    assert "url(" not in page and "@import" not in page
    server = [e for e in root.iter("dd") if e.get("id") == "server"]
    rest = page.replace(text(server[0]), "") if server else page
    assert "://" not in rest, rest[rest.index("://") - 80 : rest.index("://") + 40]


def check_page(events: list[dict[str, Any]], page: str) -> Element:
    """Every table in config order, every rule in config order with the values of its
    line, the charts with one bar per table / rule / bin, nothing loaded from outside."""
    root = dom(page)
    no_request_can_leave(page, root)
    results = [e for e in events if e["event"] == "result"]
    summary = events[-1]
    assert summary["event"] == "summary"
    assert text(find(root, "span", "status")[0]) == summary["status"]
    assert text([e for e in root.iter("dd") if e.get("id") == "run-id"][0]) == summary["run_id"]
    sections = find(root, "section", "table")
    assert [s.get("data-table") for s in sections] == config_order(events)
    compared = [e for e in events if e["event"] == "comparison"]
    shown = find(root, "section", "comparison")
    assert sorted(s.get("data-comparison") for s in shown) == sorted(
        e["comparison"] for e in compared
    )
    overview = find(find(root, "section", "overview")[0], "svg", "overview")[0]
    assert len(find(overview, "g", "bar")) == len(sections) + len(compared)
    for section in sections:
        table = section.get("data-table")
        lines = sorted((r for r in results if r["table"] == table), key=lambda r: r["rule_index"])
        assert [r["rule_index"] for r in lines] == list(range(len(lines)))  # config order
        rows = find(section, "tr", "rule")
        assert [int(r.get("data-rule-index")) for r in rows] == [r["rule_index"] for r in lines]
        for row, line in zip(rows, lines, strict=True):
            check_rule(row, line)
        counted = [
            r
            for r in lines
            if r["failed_count"] is not None
            and r["row_count"]
            and r["rule"]["type"] not in ("schema", "schema_change")
            and "failed_groups" not in (r.get("details") or {})  # a group_by rule counts groups
        ]
        charts = find(section, "svg", "failing")
        # a chart only when a rule has failing rows: an all-zero chart says nothing
        assert len(charts) == (1 if any(r["failed_count"] for r in counted) else 0)
        if not any(r["failed_count"] for r in counted):
            counted = []
        if counted:
            assert len(find(charts[0], "g", "bar")) == len(counted)
        bins = [
            r["details"]["histogram"]["bins"]
            for r in lines
            if (r["details"] or {}).get("histogram")
        ]
        histograms = find(section, "svg", "histogram")
        assert [len(find(h, "g", "bar")) for h in histograms] == [len(b) for b in bins]
    return root


def shown_message(line: dict[str, Any]) -> str:
    """A result's message as the page shows it: a long float of its measured value or
    details (colstats' ``stdDev 17.17556403731767``) to 6 significant digits."""
    message = line["message"]
    details = line.get("details")
    values = [line["metric_value"], *(details.values() if isinstance(details, dict) else ())]
    for v in values:
        if isinstance(v, float) and len(repr(v)) > len(f"{v:.6g}") + 2:
            # only the number as Python writes it, not the start of a longer one: a
            # freshness message writes 91867322.814410 for the value 91867322.81441
            standalone = rf"(?<![\d.]){re.escape(repr(v))}(?!\d)"
            message = re.sub(standalone, f"{v:.6g}", message)
    return message


def check_rule(row: Element, line: dict[str, Any]) -> None:
    cells = {td.get("data-label"): td for td in row.iter("td")}
    assert row.get("data-severity") == line["severity"]
    assert row.get("data-passed") == json.dumps(line["passed"])
    what = text(cells["rule"])
    shown = " ".join(shown_message(line).split())
    assert line["rule"]["type"] in what and shown in what, (shown, what, line)
    if line["rule"]["name"]:
        assert " ".join(line["rule"]["name"].split()) in what
    for column in line["rule"]["columns"]:
        assert column in what
    assert cells["measured"].get("data-value") == json.dumps(line["metric_value"]).replace(" ", "")
    assert json.loads(cells["failed"].get("data-value")) == line["failed_count"]
    # what the rule expects (``expect.text``; the threshold on lines saved without one)
    expected = (line.get("expect") or {}).get("text") or line["threshold"] or ""
    assert text(cells["threshold"]) == " ".join(expected.split())
    loc = line["location"]
    at = f"{loc['file']}:{loc['line']}" if loc["line"] is not None else loc["file"]
    assert text(cells["config"]) == f"{at} {loc['path']}"  # rules given in Python: no line
    verdict = text(cells["verdict"])
    [badge] = find(cells["verdict"], "span", "badge")  # the verdict, said once
    assert verdict.startswith(text(badge)) and text(badge).split(":")[0] == line["severity"]
    assert "passed:" not in verdict and "severity:" not in verdict
    assert ("blocking" in verdict.split()) == line["blocking"]
    if line["waiver"]:
        assert verdict.count(line["waiver"]) == 1, verdict
    if line["severity"] == "pass":
        assert "fail" not in verdict.replace("failing", "")


def samples_shown(section: Element) -> dict[int, tuple[list[str], list[list[str]]]]:
    """Per rule index, the header and cells of the sample table under its row."""
    shown = {}
    for body in section.iter("tbody"):
        rows = [r for r in body if r.tag == "tr"]
        for row, after in zip(rows, rows[1:], strict=False):
            if "rule" in classes(row) and "more" in classes(after):
                tables = find(after, "table", "samples")
                if tables:
                    head = [text(th) for th in tables[0].iter("th")]
                    cells = [[text(td) for td in tr.iter("td")] for tr in find(tables[0], "tr")[1:]]
                    shown[int(row.get("data-rule-index"))] = (head, cells)
    return shown


def sample_cells(
    samples: list[dict[str, Any]], keys: list[str]
) -> tuple[list[str], list[list[str]]]:
    """The header and the cells a sample table should have: keys first."""
    columns = [k for k in keys if any(k in s for s in samples)]
    for s in samples:
        columns += [c for c in s if c not in columns]
    return columns, [[cell(s.get(c)) for c in columns] for s in samples]

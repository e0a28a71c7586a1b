"""The benchmark's rules written as each foreign format's own file (``benchmarks/formats.py``).

Each writer takes the suite's cases and the indexes of the rules to write, and writes the
file a user of that tool would: a Great Expectations 1.x suite (JSON), a SodaCL checks
file, a DQX checks file (YAML), an ODCS v3 data contract. The GX, SodaCL and DQX files are
the peers adapters' own translations (``run_peers.gx_expectations``, ``soda_checks``,
``dqx_rules``) serialised as their tools serialise them; the contract is written here
(no adapter had one). Every writer says which rule each entry of its file checks:
``entries`` (the file's checks in order, one rule each) and, for the contract, ``keys``
(datacontract-cli's check key -> rule: assay reports the same key in ``details.odcs``).

Runs in assay's environment: writing the GX suite needs great-expectations and the DQX
file databricks-labs-dqx (both in assay's ``test`` extra); Soda and the contract need
nothing beyond PyYAML.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import run_peers  # noqa: E402
import suites as suites_mod  # noqa: E402

TABLE = suites_mod.TABLE  # "lineitem": the dataset, schema object, suite and view name
FORMATS = ("gx", "soda", "dqx", "odcs")
EXTENSIONS = {"gx": "json", "soda": "yml", "dqx": "yml", "odcs": "yaml"}
ENGINES = {  # the original engine of each format, as installed in benchmarks/.venv-peers
    "gx": "great-expectations",
    "soda": "soda-core-spark-df",
    "dqx": "databricks-labs-dqx",
    "odcs": "datacontract-cli",
}


@dataclass
class Written:
    """A format's file and which rule each of its checks checks."""

    path: Path
    entries: list[int] = field(default_factory=list)  # the file's checks in order -> rule
    keys: dict[str, int] = field(default_factory=dict)  # datacontract-cli's key -> rule

    @property
    def checks(self) -> int:
        return len(self.keys) if self.keys else len(self.entries)


def plan(fmt: str, cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    """The rules the format's file holds, and why the others are left out: what the tool
    cannot express (the adapters' reasons), or what assay's dialect refuses of the
    adapter's translation (a file both must run; assay's GX dialect reads every
    expectation the GX adapter writes, its SQL rules as unexpected_rows_expectation and
    missing percentages as the proportion of non-null values included)."""
    if fmt == "odcs":
        return list(range(len(cases))), {}
    expressed, missing = {"gx": run_peers.gx_plan, "soda": run_peers.soda_plan,
                          "dqx": run_peers.dqx_plan}[fmt](cases)
    for i in list(expressed):
        why = _refused(fmt, cases[i].yaml)
        if why:
            expressed.remove(i)
            missing[i] = why
    return expressed, dict(sorted(missing.items()))


def _refused(fmt: str, y: dict[str, Any]) -> str | None:
    if fmt == "soda" and y["type"] == "sql" and _soda_sql(y["query"]) is None:
        return ("a SQL value other than a row condition or a max: Soda's user-defined metric "
                "query (the adapter's) is refused by assay's SodaCL dialect, and Soda on Spark "
                "has no distinct count")
    return None


def write(fmt: str, cases: list[suites_mod.Case], rules: list[int], path: Path,
          data: Path) -> Written:
    """The format's file of ``rules`` at ``path``; the GX and DQX files as recorded
    (:data:`RECORDED`) while what they depend on is unchanged, else as the tool writes
    them (recorded when ``ASSAY_RECORD_FORMATS=1``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = recording_key(fmt, cases, rules) if fmt in RECORDED_ENGINES else None
    found = _recorded().get(key) if key else None
    if found is not None:
        path.write_text(found["text"], encoding="utf-8")
        return Written(path, entries=list(found["entries"]))
    writer = {"gx": write_gx, "soda": write_soda, "dqx": write_dqx, "odcs": write_odcs}[fmt]
    written = writer(cases, rules, path, data)
    if key and os.environ.get("ASSAY_RECORD_FORMATS") == "1":
        _record(key, {"format": fmt, "cases": len(cases), "rules": rules,
                      "entries": written.entries, "text": path.read_text(encoding="utf-8")})
    return written


# --- Great Expectations -----------------------------------------------------------------------


def write_gx(cases: list[suites_mod.Case], rules: list[int], path: Path, data: Path) -> Written:
    """A GX 1.x suite as ``ExpectationSuite.to_json_dict`` writes it (``meta.rule`` on each
    expectation)."""
    import great_expectations as gx

    written = Written(path)
    expectations = []
    for i in rules:
        for expectation in run_peers.gx_expectations(i, cases[i].yaml):
            expectations.append(expectation)
            written.entries.append(i)
    suite = gx.ExpectationSuite(name=TABLE, expectations=expectations).to_json_dict()
    path.write_text(json.dumps(suite, indent=2, default=str) + "\n", encoding="utf-8")
    return written


# --- SodaCL -------------------------------------------------------------------------------------


def write_soda(cases: list[suites_mod.Case], rules: list[int], path: Path, data: Path,
               ) -> Written:
    """``checks for lineitem:`` with the adapter's checks, each named r<i>."""
    written = Written(path)
    checks: list[dict[str, Any]] = []
    for i in rules:
        y = cases[i].yaml
        for check in _soda_sql(y["query"], i) if y["type"] == "sql" else run_peers.soda_checks(i, y):
            checks.append(check)
            written.entries.append(i)
    text = yaml.safe_dump({f"checks for {TABLE}": checks}, sort_keys=False, width=120)
    path.write_text(text, encoding="utf-8")
    return written


_ROWS_NONE = re.compile(r"^SELECT count\(\*\) = 0 FROM _validation_df WHERE (.+)$", re.S | re.I)
_MAX_AT_MOST = re.compile(r"^SELECT max\((\w+)\) <= (\S+) FROM _validation_df$", re.I)


def _soda_sql(query: str, i: int = -1) -> list[dict[str, Any]] | None:
    """A SQL invariant as SodaCL checks a Soda user writes: "no row where ..." as a failed
    rows check with its ``fail condition``, "the max is at most n" as ``max(c) <= n``;
    None for the others. (The adapter's user-defined metric is refused by assay.)"""
    rows = _ROWS_NONE.match(query)
    if rows:
        return [{"failed rows": {"name": f"r{i}", "fail condition": rows.group(1)}}]
    most = _MAX_AT_MOST.match(query)
    if most:
        return [{f"max({most.group(1)}) <= {most.group(2)}": {"name": f"r{i}"}}]
    return None


# --- DQX ------------------------------------------------------------------------------------------


def write_dqx(cases: list[suites_mod.Case], rules: list[int], path: Path, data: Path) -> Written:
    """The adapter's DQRules as DQX serialises them (``serialize_checks``), each named r<i>.

    In a checks file a bare string of ``is_in_list``'s ``allowed`` is a column expression
    (the adapter passes ``F.lit`` values): its values are written quoted, as DQX says to.
    """
    # Building a DQRule builds its condition: pyspark's functions need a session, or the
    # Spark Connect mode, which builds the columns without one.
    os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")
    from databricks.labs.dqx.checks_serializer import serialize_checks

    written = Written(path)
    checks: list[dict[str, Any]] = []
    for i in rules:
        for check in serialize_checks(run_peers.dqx_rules(i, cases[i].yaml)):
            arguments = check["check"]["arguments"]
            if check["check"]["function"] == "is_in_list":
                arguments["allowed"] = [_sql_text(v) for v in arguments["allowed"]]
            if "row_filter" in arguments:  # assay reads an aggregate's filter as the check's
                check["filter"] = arguments.pop("row_filter")
            checks.append(check)
            written.entries.append(i)
    path.write_text(yaml.safe_dump(checks, sort_keys=False, width=120), encoding="utf-8")
    return written


# --- ODCS ---------------------------------------------------------------------------------------

LOGICAL = {  # lineitem's columns as ODCS logical types
    **{c: "integer" for c in ("l_orderkey", "l_partkey", "l_suppkey", "l_linenumber")},
    **{c: "number" for c in ("l_quantity", "l_extendedprice", "l_discount", "l_tax")},
    **{c: "date" for c in suites_mod.DATES},
    **{c: "string" for c in suites_mod.TEXT},
}
COMPARATOR = {">=": "mustBeGreaterOrEqualTo", ">": "mustBeGreaterThan",
              "<=": "mustBeLessOrEqualTo", "<": "mustBeLessThan", "=": "mustBe"}
_INVARIANT = re.compile(r"^SELECT (.+?) (<=|>=|=|<|>) (\S+) FROM _validation_df(.*)$", re.S)


def write_odcs(cases: list[suites_mod.Case], rules: list[int], path: Path, data: Path,
               ) -> Written:
    """An ODCS v3.1.0 contract of lineitem holding the rules.

    Each rule becomes what a contract's author writes for it: a property's constraint
    (``required``, ``logicalTypeOptions`` minimum/maximum, pattern, minLength/maxLength),
    a library metric (``rowCount``, ``nullValues``, ``missingValues``, ``invalidValues``,
    ``duplicateValues``), else a ``sql`` quality entry with its threshold (metrics such as
    avg, the SQL invariants). A constraint or metric a property already holds cannot be
    written twice (datacontract-cli keys checks by it), so a second one on the same column
    becomes a ``sql`` entry. Two servers: the parquet file (assay reads the first) and
    datacontract-cli's Spark ``dataframe`` (a ``custom`` server, as datacontract-cli
    writes it), which reads the view ``lineitem`` of its session.
    """
    contract = _Contract()
    for i in rules:
        _odcs_rule(contract, i, cases[i].yaml)
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": f"urn:assay-benchmark:{TABLE}",
        "version": "1.0.0", "status": "active",
        "servers": [
            {"server": "file", "type": "local", "path": str(data), "format": "parquet"},
            {"server": "spark", "type": "custom",
             "customProperties": [{"property": "customType", "value": "dataframe"}]},
        ],
        "schema": [{"name": TABLE, "properties": contract.properties(),
                    **({"quality": contract.quality} if contract.quality else {})}],
    }
    path.write_text(yaml.safe_dump(document, sort_keys=False, width=120), encoding="utf-8")
    return Written(path, keys=contract.keys)


class _Contract:
    """The contract's properties and quality entries as they are filled, with the
    datacontract-cli key of each check and the rule it checks."""

    def __init__(self) -> None:
        self.props: dict[str, dict[str, Any]] = {
            c: {"name": c, "logicalType": LOGICAL[c]} for c in suites_mod.COLUMNS}
        self.quality: list[dict[str, Any]] = []
        self.keys: dict[str, int] = {}

    def properties(self) -> list[dict[str, Any]]:
        return list(self.props.values())

    def free(self, key: str) -> bool:
        return key not in self.keys

    def option(self, rule: int, col: str, options: dict[str, Any]) -> bool:
        """Constraints of ``col`` (option -> value), if none is taken yet."""
        keys = [f"{TABLE}__{col}__{_OPTION_KEY[o]}" for o in options]
        if not all(map(self.free, keys)):
            return False
        if "required" in options:
            self.props[col]["required"] = True
        else:
            self.props[col].setdefault("logicalTypeOptions", {}).update(options)
        self.keys.update(dict.fromkeys(keys, rule))
        return True

    def metric(self, rule: int, col: str | None, entry: dict[str, Any], key: str) -> bool:
        """A library metric (of ``col``, or of the table), if its key is free."""
        key = f"{TABLE}__{col}__{key}" if col else f"{TABLE}__{key}"
        if not self.free(key):
            return False
        self._entries(col).append({**entry, "name": f"r{rule}"})
        self.keys[key] = rule
        return True

    def sql(self, rule: int, col: str | None, query: str, threshold: dict[str, Any]) -> None:
        entries = self._entries(col)
        middle = f"{col}__" if col else ""
        self.keys[f"{TABLE}__{middle}quality_sql_{len(entries)}"] = rule
        entries.append({"type": "sql", "name": f"r{rule}", "query": query, **threshold})

    def _entries(self, col: str | None) -> list[dict[str, Any]]:
        return self.props[col].setdefault("quality", []) if col else self.quality


_OPTION_KEY = {"required": "field_required", "minimum": "field_minimum",
               "maximum": "field_maximum", "pattern": "field_regex",
               "minLength": "field_min_length", "maxLength": "field_max_length"}


def _odcs_rule(c: _Contract, i: int, y: dict[str, Any]) -> None:  # noqa: C901 - one per kind
    t, col = y["type"], y.get("column")
    if t == "not_null":
        for name in [col] if col else y["columns"]:
            if not (c.option(i, name, {"required": True})
                    or c.metric(i, name, {"metric": "nullValues", "mustBe": 0}, "field_null_values")):
                c.sql(i, name, f"SELECT COUNT(*) FROM {{object}} WHERE {name} IS NULL", {"mustBe": 0})
    elif t == "range":
        low, high = y.get("min"), y.get("max")
        options = {k: _iso(v) for k, v in (("minimum", low), ("maximum", high)) if v is not None}
        if not c.option(i, col, options):
            parts = ([f"{col} < {_sql_value(low)}"] if low is not None else []) + (
                [f"{col} > {_sql_value(high)}"] if high is not None else [])
            c.sql(i, col, f"SELECT COUNT(*) FROM {{object}} WHERE {' OR '.join(parts)}", {"mustBe": 0})
    elif t == "accepted_values":
        valid = {"metric": "invalidValues", "arguments": {"validValues": list(y["values"])}, "mustBe": 0}
        if not c.metric(i, col, valid, "field_invalid_values"):
            listed = ", ".join(_sql_text(v) for v in y["values"])
            c.sql(i, col, f"SELECT COUNT(*) FROM {{object}} WHERE {col} NOT IN ({listed})", {"mustBe": 0})
    elif t == "regex":
        pattern = y["pattern"]
        matching = {"metric": "invalidValues", "arguments": {"pattern": pattern}, "mustBe": 0}
        if not (c.option(i, col, {"pattern": pattern})
                or c.metric(i, col, matching, "field_invalid_values")):
            c.sql(i, col, f"SELECT COUNT(*) FROM {{object}} WHERE NOT {col} RLIKE {_sql_text(pattern)}",
                  {"mustBe": 0})
    elif t == "length":
        options = {k: y[o] for k, o in (("minLength", "min"), ("maxLength", "max")) if o in y}
        if not c.option(i, col, options):
            parts = ([f"length({col}) < {y['min']}"] if "min" in y else []) + (
                [f"length({col}) > {y['max']}"] if "max" in y else [])
            c.sql(i, col, f"SELECT COUNT(*) FROM {{object}} WHERE {' OR '.join(parts)}", {"mustBe": 0})
    elif t == "unique":
        cols = list(y.get("columns") or [col])
        entry = {"metric": "duplicateValues", "arguments": {"properties": cols}, "mustBe": 0}
        if not c.metric(i, None, entry, "model_duplicate_values"):
            keys = ", ".join(cols)
            c.sql(i, None, f"SELECT COUNT(*) - COUNT(DISTINCT {keys}) FROM {{object}}", {"mustBe": 0})
    elif t == "row_count":
        threshold = ({"mustBeBetween": [y["min"], y["max"]]} if "max" in y
                     else {"mustBeGreaterOrEqualTo": y["min"]})
        if not c.metric(i, None, {"metric": "rowCount", **threshold}, "row_count"):
            c.sql(i, None, "SELECT COUNT(*) FROM {object}", threshold)
    elif t == "sql":
        value, op, bound, rest = _INVARIANT.match(y["query"]).groups()  # type: ignore[union-attr]
        c.sql(i, None, f"SELECT {value} FROM {{object}}{rest}", {COMPARATOR[op]: _number(bound)})
    else:
        _odcs_metric(c, i, t, col, y)


def _odcs_metric(c: _Contract, i: int, t: str, col: str, y: dict[str, Any]) -> None:
    op, value, high = run_peers._bound(y)  # noqa: SLF001 - the adapters' reading of must_be
    threshold = {"mustBeBetween": [value, high]} if op == "between" else {COMPARATOR[op]: value}
    if t == "missing_count":
        if not (c.metric(i, col, {"metric": "nullValues", **threshold}, "field_null_values")
                or c.metric(i, col, {"metric": "missingValues", **threshold}, "field_missing_values")):
            c.sql(i, col, f"SELECT COUNT(*) FROM {{object}} WHERE {col} IS NULL", threshold)
        return
    if t == "missing_percent":
        percent = {"unit": "percent", **threshold}
        if not (c.metric(i, col, {"metric": "missingValues", **percent}, "field_missing_values")
                or c.metric(i, col, {"metric": "nullValues", **percent}, "field_null_values")):
            c.sql(i, col, f"SELECT COUNT_IF({col} IS NULL) * 100.0 / COUNT(*) FROM {{object}}",
                  threshold)
        return
    aggregate = {"avg": "AVG", "sum": "SUM", "min": "MIN", "max": "MAX"}.get(t)
    expression = f"{aggregate}({col})" if aggregate else f"COUNT(DISTINCT {col})"
    c.sql(i, col, f"SELECT {expression} FROM {{object}}", threshold)


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def _sql_value(value: Any) -> str:
    return f"DATE '{value.isoformat()}'" if isinstance(value, dt.date) else str(value)


def _sql_text(value: str) -> str:
    """A Spark SQL string literal (Spark reads backslash escapes in literals)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _number(text: str) -> int | float:
    return int(text) if text.lstrip("-").isdigit() else float(text)


# --- the GX and DQX files recorded ----------------------------------------------------------

RECORDED = HERE / "formats_recorded.json"
"""The GX suites and DQX checks files as GX's and DQX's serialisers wrote them, keyed by
:func:`recording_key`: writing them imports great-expectations (about 4 CPU s) and DQX
(about 2 s more), most of ``formats.py --no-engine``'s own work at SF0.01. A file whose
key is not here is written by the tool, as before."""
RECORDED_ENGINES = {"gx": "great_expectations", "dqx": "databricks-labs-dqx"}
_CACHE: dict[str, Any] = {}


def recording_key(fmt: str, cases: list[suites_mod.Case], rules: list[int]) -> str:
    """SHA-256 of what the file depends on: the format, the rules (each case's YAML), the
    tool's and pyspark's versions and the source of the code writing it (this module and
    the peers adapters' translations)."""
    import hashlib
    from importlib import metadata

    versions = {p: metadata.version(p) for p in (RECORDED_ENGINES[fmt], "pyspark")}
    source = [(HERE / name).read_text(encoding="utf-8")
              for name in ("formats_files.py", "run_peers.py")]
    # this module's source up to the recording's own code (below), which writes no file
    source[0] = source[0].split("# --- the GX and DQX files recorded")[0]
    text = json.dumps([fmt, [cases[i].yaml for i in rules], rules, versions, source],
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _recorded() -> dict[str, Any]:
    if "recorded" not in _CACHE:
        _CACHE["recorded"] = (json.loads(RECORDED.read_text(encoding="utf-8"))
                              if RECORDED.is_file() else {})
    return _CACHE["recorded"]


def _record(key: str, entry: dict[str, Any]) -> None:
    recorded = {**_recorded(), key: entry}
    _CACHE["recorded"] = recorded
    RECORDED.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")

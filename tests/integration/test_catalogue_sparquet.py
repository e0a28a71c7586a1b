"""sparquet's metric rules on real data: validity options, missing values, duplicates,
decimals, NaN and infinities, named formats against independent oracles, freshness of
dates and timestamps in two session time zones, SQL failed_rows, and targets."""

from __future__ import annotations

import datetime as dt
import ipaddress
import statistics
import time
from decimal import ROUND_HALF_UP, Decimal

import pytest

from assay.dialects.formats import FORMATS
from tests.helpers import assert_case, expected_passed, run_config, validate_event, write_config

pytestmark = pytest.mark.spark

NAN, INF = float("nan"), float("inf")
COLUMNS = "id long, amount decimal(10,2), score double, status string, code string"
ROWS = [
    (1, Decimal("0.00"), 0.5, "active", "AB1"),
    (2, Decimal("100.00"), 1.0, "inactive", "AB12"),
    (3, Decimal("100.01"), NAN, "banned", "A"),
    (4, None, None, None, None),
    (5, Decimal("-0.01"), INF, "", "ab1"),
    (6, Decimal("33.33"), 0.25, "N/A", "XY9"),
    (7, Decimal("33.33"), 0.75, "active", "AB1\n"),
    (8, Decimal("1.10"), 0.0, "active", "ZZ0"),
]
N = len(ROWS)
AMOUNTS = [r[1] for r in ROWS if r[1] is not None]
STATUS = [r[3] for r in ROWS]
CODES = [r[4] for r in ROWS]
SENTINELS = ("", "N/A")


def invalid(values, missing=(), *tests) -> int:
    """Non-missing values failing at least one test."""
    return sum(
        1 for v in values if v is not None and v not in missing and not all(t(v) for t in tests)
    )


def percent(count: int) -> float:
    return 100.0 * count / N


DUP_STATUS = sum(1 for s in STATUS if s is not None and STATUS.count(s) > 1)  # 3x active
AMOUNT_SUM = sum(AMOUNTS)
AMOUNT_AVG = (AMOUNT_SUM / len(AMOUNTS)).quantize(Decimal("0.000001"), ROUND_HALF_UP)
CODE_OK = __import__("re").compile(r"[A-Z]{2}[0-9]\Z")

# (rule, severity, failed_count, metric_value)
CASES = [
    # validity: valid_values, invalid_values, both
    (
        "{type: invalid_count, column: status, valid_values: [active, inactive], must_be: 0}",
        "fail",
        *[invalid(STATUS, (), lambda v: v in ("active", "inactive"))] * 2,
    ),
    (
        "{type: invalid_count, column: status, invalid_values: [banned], must_be: '<= 1'}",
        "pass",
        *[invalid(STATUS, (), lambda v: v != "banned")] * 2,
    ),
    (
        "{type: invalid_count, column: status, valid_values: [active, inactive, banned, '', N/A],"
        " invalid_values: [banned], must_be: '= 1'}",
        "pass",
        1,
        1,
    ),
    # missing values are never invalid
    (
        "{type: invalid_count, column: status, valid_values: [active, inactive],"
        " missing_values: ['', N/A], must_be: 1}",
        "pass",
        *[invalid(STATUS, SENTINELS, lambda v: v in ("active", "inactive"))] * 2,
    ),
    (
        "{type: invalid_percent, column: status, valid_values: [active, inactive],"
        " missing_values: ['', N/A], must_be: '< 12.5%'}",
        "fail",
        1,
        percent(1),
    ),
    (
        "{type: invalid_percent, column: status, valid_values: [active, inactive],"
        " missing_values: ['', N/A], must_be: '<= 12.5%'}",
        "pass",
        1,
        percent(1),
    ),
    # regex and lengths: every test must hold (AB1\n has a trailing newline: invalid)
    (
        "{type: invalid_count, column: code, valid_regex: '^[A-Z]{2}[0-9]$', must_be: 0}",
        "fail",
        *[invalid(CODES, (), lambda v: CODE_OK.match(v) is not None) - 1] * 2,
    ),  # Java $: AB1\n ok
    (
        "{type: invalid_count, column: code, valid_regex: '\\A[A-Z]{2}[0-9]\\z', must_be: 0}",
        "fail",
        *[invalid(CODES, (), lambda v: CODE_OK.match(v) is not None)] * 2,
    ),
    (
        "{type: invalid_count, column: code, valid_length: 3, must_be: 0}",
        "fail",
        *[invalid(CODES, (), lambda v: len(v) == 3)] * 2,
    ),
    (
        "{type: invalid_count, column: code, valid_min_length: 3, valid_max_length: 4, must_be: 0}",
        "fail",
        *[invalid(CODES, (), lambda v: 3 <= len(v) <= 4)] * 2,
    ),
    (
        "{type: invalid_count, column: code, valid_format: alphanumeric, valid_length: 3,"
        " must_be: 0}",
        "fail",
        *[invalid(CODES, (), str.isalnum, lambda v: len(v) == 3)] * 2,
    ),
    # numeric bounds are inclusive; NaN is above every number (Spark's order)
    (
        "{type: invalid_count, column: amount, valid_min: 0, valid_max: 100, must_be: 0}",
        "fail",
        *[invalid(AMOUNTS, (), lambda v: 0 <= v <= 100)] * 2,
    ),
    ("{type: invalid_count, column: score, valid_min: 0, must_be: 0}", "pass", 0, 0),
    ("{type: invalid_count, column: score, valid_max: 1, must_be: 0}", "fail", 2, 2),  # NaN, inf
    (
        "{type: invalid_percent, column: score, valid_min: 0, valid_max: 1, must_be: '= 25%'}",
        "pass",
        2,
        25.0,
    ),
    # missing_*, duplicate_*
    (
        "{type: missing_count, column: status, missing_values: ['', N/A], must_be: '= 3'}",
        "pass",
        3,
        3,
    ),
    ("{type: missing_percent, column: status, must_be: '= 12.5%'}", "pass", 1, 12.5),
    ("{type: duplicate_count, column: status, must_be: 0}", "fail", DUP_STATUS, DUP_STATUS),
    (
        "{type: duplicate_percent, column: status, must_be: '< 37.5%'}",
        "fail",
        DUP_STATUS,
        percent(DUP_STATUS),
    ),
    ("{type: duplicate_percent, column: amount, must_be: '< 37.5%', warn: '= 0'}", "warn", 2, 25.0),
    # metrics on a decimal column: exact
    (f"{{type: sum, column: amount, must_be: '= {AMOUNT_SUM}'}}", "pass", None, AMOUNT_SUM),
    (f"{{type: sum, column: amount, must_be: '> {AMOUNT_SUM}'}}", "fail", None, AMOUNT_SUM),
    (f"{{type: avg, column: amount, must_be: '= {AMOUNT_AVG}'}}", "pass", None, AMOUNT_AVG),
    (f"{{type: mean, column: amount, must_be: '< {AMOUNT_AVG}'}}", "fail", None, AMOUNT_AVG),
    ("{type: min, column: amount, must_be: '= -0.01'}", "pass", None, Decimal("-0.01")),
    ("{type: max, column: amount, must_be: '<= 100'}", "fail", None, Decimal("100.01")),
    (
        "{type: stddev, column: amount, must_be: '> 0'}",
        "pass",
        None,
        statistics.stdev(float(a) for a in AMOUNTS),
    ),
    # NaN and infinities in doubles
    ("{type: avg, column: score, must_be: '> 0'}", "fail", None, None),  # NaN: no number
    ("{type: max, column: score, must_be: '> 0'}", "fail", None, None),  # NaN is the max
    ("{type: min, column: score, must_be: '= 0'}", "pass", None, 0.0),
    # row_count: min defaults to 0
    ("{type: row_count, max: 8}", "pass", None, N),
    ("{type: row_count, max: 7}", "fail", None, N),
    # SQL in both modes, one plan
    ("{type: sql, failed_rows: 'SELECT * FROM _validation_df WHERE amount < 0'}", "fail", 1, None),
    (
        "{type: sql, failed_rows: 'SELECT * FROM _validation_df WHERE amount > 1000'}",
        "pass",
        0,
        None,
    ),
    ("{type: custom_sql, query: 'SELECT count(*) = 8 FROM _validation_df'}", "pass", None, None),
]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("sq") / "m.parquet")
    spark.createDataFrame(ROWS, COLUMNS).write.parquet(path)
    return path


def config(path: str, rules: list[str], extra: str = "", name: str = "m") -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    source = f'{{path: "{path}"}}'
    head = f"tables:\n  - name: {name}\n    source: {source}\n    keys: [id]\n"
    return f"{head}{extra}    rules:\n{body}\n"


@pytest.fixture(scope="module")
def fused(spark, data, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("sqfused"), config(data, [c[0] for c in CASES]))
    return run_config(spark, cfg)


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[c[0][:70] for c in CASES])
def test_metric(fused, index, case):
    text, severity, failed, value = case
    got = fused.result("m", index)
    assert_case(got, severity, failed, value, N, expected_passed(text, severity))


def test_plans_aggregate_sql_and_detail(fused):
    assert fused.tables()["m"]["spark_plans"] == 2  # aggregate (with the SQL rules) + detail


def test_invalid_rows_are_sampled(fused):
    assert fused.result("m", 0)["samples"] == [
        {"id": 3, "status": "banned"},
        {"id": 5, "status": ""},
        {"id": 6, "status": "N/A"},
    ]


def test_nan_metrics_say_so(fused):
    assert "is NaN" in fused.result("m", 27)["message"]


def test_infinite_sum_is_judged_but_not_printed_as_a_number(spark, data, tmp_path):
    out = run_config(
        spark,
        write_config(
            tmp_path,
            config(data, ["{type: sum, column: score, must_be: '> 0'}"], "    filter: id <> 3\n"),
        ),
    )
    got = out.results[0]
    assert (got["severity"], got["metric_value"]) == ("pass", None)  # +inf > 0; JSON has no inf
    assert "inf" in got["message"].lower()


def test_empty_table(spark, data, tmp_path):
    rules = [
        "{type: invalid_percent, column: status, valid_values: [x], must_be: '= 0'}",
        "{type: duplicate_percent, column: status, must_be: '= 0'}",
        "{type: missing_percent, column: status, must_be: '= 0'}",
        "{type: avg, column: amount, must_be: '> 0'}",
        "{type: stddev, column: amount, must_be: '> 0'}",
        "{type: freshness, column: id2, must_be: '< 1d'}",
        "{type: row_count, max: 0}",
        "{type: sql, failed_rows: 'SELECT * FROM _validation_df'}",
    ]
    text = config(data, rules, "    filter: id < 0\n").replace(
        f'{{path: "{data}"}}', f'{{sql: "SELECT *, current_date() AS id2 FROM parquet.`{data}`"}}'
    )
    out = run_config(spark, write_config(tmp_path, text))
    got = [(r["severity"], r["failed_count"], r["metric_value"]) for r in out.results]
    assert got == [
        ("pass", 0, 0.0),
        ("pass", 0, 0.0),
        ("pass", 0, 0.0),
        ("fail", None, None),
        ("fail", None, None),
        ("fail", None, None),
        ("pass", None, 0),
        ("pass", 0, None),
    ]
    assert "fewer than 2 non-null values" in out.results[4]["message"]


# --- named formats, against labelled samples checked by independent oracles --------------

GOOD: dict[str, list[str]] = {
    "email": ["a@b.co", "first.last+tag@sub.example.com", "x_y@d-n.org", "o'neil@x.io"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"],
    "cpf": ["529.982.247-25", "11144477735", "39053344705"],
    "cnpj": ["11.222.333/0001-81", "11222333000181", "12.ABC.345/01DE-35", "12ABC34501DE35"],
    "credit_card": ["4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005",
                    "6011111111111117"],
    "date": ["2024-02-29", "2023-12-31"],
    "date_us": ["02/29/2024", "12/31/2023"],
    "date_eu": ["29/02/2024", "31/12/2023"],
    "time": ["00:00", "23:59:59", "12:30:00.123"],
    "timestamp": ["2024-01-01T10:00:00Z", "2024-01-01 10:00", "2024-02-29T10:00:00.123456+03:00"],
    "phone": ["+55 (11) 98765-4321", "555-1234", "+1.202.555.0123"],
    "url": ["https://example.com", "http://a.b/c?d=e#f", "ftp://host", "HTTPS://user@x.org/"],
    "ipv4": ["0.0.0.0", "255.255.255.255", "192.168.1.1"],
    "ipv6": ["::1", "::", "2001:db8::1", "::ffff:192.0.2.128", "1:2:3:4:5:6:7::",
             "2001:0db8:0000:0000:0000:ff00:0042:8329"],
    "ip": ["10.0.0.1", "fe80::1"],
    "integer": ["0", "-12", "+7"],
    "positive_integer": ["1", "+0010"],
    "negative_integer": ["-1", "-010"],
    "decimal": ["1", "-1.5", ".5", "+0.25"],
    "percentage": ["50%", "12.5 %", "-3%"],
    "boolean": ["true", "FALSE", "y", "0", "No"],
    "alphanumeric": ["abc123", "ABC"],
    "alpha": ["abc", "XyZ"],
    "hex": ["0xFF", "deadBEEF"],
    "cep": ["01310-100", "01310100"],
    "zip": ["12345", "12345-6789"],
}  # fmt: skip
BAD: dict[str, list[str]] = {
    "email": ["a@b", "@b.com", "a@@b.com", "a b@c.com", "a@b.c", "a.@b.com", "a@-b.com",
              "a@b.com\n"],
    "uuid": ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g",
             "123e4567-e89b-12d3-a456-426614174000\n"],
    "cpf": ["529.982.247-24", "111.111.111-11", "12345678900", "529982247-25", "5299822472"],
    "cnpj": ["11.222.333/0001-82", "00000000000000", "12.abc.345/01de-35", "11.222.333/0001"],
    "credit_card": ["4111 1111 1111 1112", "1234", "4111x1111x1111x1111", "41111111111111111111"],
    "date": ["2023-02-29", "2024-13-01", "2024-1-5", "2024-01-01T00:00", "2024-01-01\n"],
    "date_us": ["13/01/2024", "02/30/2024"],
    "date_eu": ["12/31/2023", "29/02/2023"],
    "time": ["24:00", "1:00", "12:60", "12:00:60"],
    "timestamp": ["2024-02-30T10:00:00", "2024-01-01T25:00", "2024-01-01", "2024-01-01T10:00+3"],
    "phone": ["123", "phone", "+55 11 9876543210987654"],
    "url": ["example.com", "https://", "http://exa mple.com", "mailto:a@b.c"],
    "ipv4": ["256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4 "],
    "ipv6": ["2001:db8:::1", "1:2:3:4:5:6:7:8:9", "12345::", "::ffff:999.0.0.1", "g::1"],
    "ip": ["1.2.3.256", "::g"],
    "integer": ["1.0", "", "1e3", " 1"],
    "positive_integer": ["0", "-1", "00"],
    "negative_integer": ["0", "-0", "1"],
    "decimal": ["1.", "1,5", "abc", "1e5"],
    "percentage": ["50", "%"],
    "boolean": ["2", "yes!", "truee"],
    "alphanumeric": ["abc-1", "é", "a b"],
    "alpha": ["abc1"],
    "hex": ["0x", "xyz"],
    "cep": ["1310-100", "01310-1000"],
    "zip": ["1234", "12345-678"],
}  # fmt: skip


def _cpf_ok(s: str) -> bool:
    d = [int(c) for c in s if c.isdigit()]
    if len(d) != 11 or len(set(d)) == 1:
        return False
    for n in (9, 10):
        r = sum(d[i] * (n + 1 - i) for i in range(n)) * 10 % 11 % 10
        if r != d[n]:
            return False
    return True


def _cnpj_ok(s: str) -> bool:
    v = [ord(c) - 48 for c in s if c not in "./-"]
    if len(v) != 14 or len(set(v)) == 1:
        return False
    w = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    for n, weights in ((12, w), (13, [6, *w])):
        r = sum(a * b for a, b in zip(v, weights, strict=False)) % 11
        if (0 if r < 2 else 11 - r) != v[n]:
            return False
    return True


def _luhn_ok(s: str) -> bool:
    d = [int(c) for c in s if c.isdigit()][::-1]
    return (
        sum(x if i % 2 == 0 else (2 * x - 9 if x > 4 else 2 * x) for i, x in enumerate(d)) % 10 == 0
    )


def _ip_ok(version):
    def ok(s: str) -> bool:
        try:
            return ipaddress.ip_address(s).version in version
        except ValueError:
            return False

    return ok


def _date_ok(fmt: str):
    def ok(s: str) -> bool:
        try:
            return dt.datetime.strptime(s, fmt) is not None
        except ValueError:
            return False

    return ok


ORACLES = {
    "cpf": lambda s: _cpf_ok(s) and len(s) in (11, 14),
    "cnpj": lambda s: _cnpj_ok(s) and len(s) in (14, 18) and s == s.upper(),
    "credit_card": lambda s: (
        _luhn_ok(s) and 13 <= sum(c.isdigit() for c in s) <= 19 and set(s) <= set("0123456789 -")
    ),
    "ipv4": _ip_ok({4}),
    "ipv6": _ip_ok({6}),
    "ip": _ip_ok({4, 6}),
    "date": lambda s: len(s) == 10 and _date_ok("%Y-%m-%d")(s),
    "date_us": lambda s: len(s) == 10 and _date_ok("%m/%d/%Y")(s),
    "date_eu": lambda s: len(s) == 10 and _date_ok("%d/%m/%Y")(s),
}


def test_samples_cover_every_format_and_agree_with_the_oracles():
    assert set(GOOD) == set(BAD) == set(FORMATS)
    for name, oracle in ORACLES.items():
        assert all(oracle(s) for s in GOOD[name]), name
        assert not any(oracle(s) for s in BAD[name]), name


def test_named_formats(spark, tmp_path):
    names = sorted(FORMATS)
    width = max(len(GOOD[n]) + len(BAD[n]) for n in names)
    columns = {n: GOOD[n] + BAD[n] + [None] * (width - len(GOOD[n]) - len(BAD[n])) for n in names}
    rows = [tuple(columns[n][i] for n in names) for i in range(width)]
    path = str(tmp_path / "formats.parquet")
    spark.createDataFrame(rows, ", ".join(f"{n} string" for n in names)).write.parquet(path)
    rules = [f"{{type: invalid_count, column: {n}, valid_format: {n}, must_be: 0}}" for n in names]
    out = run_config(
        spark,
        write_config(tmp_path, config(path, rules, name="formats").replace("    keys: [id]\n", "")),
    )
    assert {n: r["failed_count"] for n, r in zip(names, out.results, strict=True)} == {
        n: len(BAD[n]) for n in names
    }
    for n, r in zip(names, out.results, strict=True):
        shown = [s[n] for s in r["samples"]]
        assert len(shown) == min(5, len(BAD[n])) and set(shown) <= set(BAD[n]), n
    assert out.tables()["formats"]["spark_plans"] == 2  # aggregate + samples


# --- freshness and time zones -------------------------------------------------------------

HOUR = 3600


@pytest.fixture(scope="module")
def clocks(spark, tmp_path_factory):
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    day = (now - dt.timedelta(days=2)).date()
    ts = now - dt.timedelta(hours=2)
    ntz = (now - dt.timedelta(hours=3)).replace(tzinfo=None)  # wall clock, read in session tz
    path = str(tmp_path_factory.mktemp("fresh") / "f.parquet")
    rows = [
        (1, day, ts, ntz, dt.datetime(2024, 1, 1, 13, tzinfo=dt.timezone.utc)),
        (2, day - dt.timedelta(days=1), ts - dt.timedelta(days=1), ntz, None),
        (3, None, None, None, dt.datetime(2024, 1, 1, 16, tzinfo=dt.timezone.utc)),
    ]
    spark.createDataFrame(
        rows, "id long, day date, ts timestamp, ntz timestamp_ntz, at timestamp"
    ).write.parquet(path)
    return path, day, ts, ntz


FRESH_RULES = [
    "{type: freshness, column: day, must_be: '< 3d'}",
    "{type: freshness, column: ts, must_be: '< 2h'}",
    "{type: freshness, column: ts, must_be: '<= 3h', warn: '< 1h'}",
    "{type: freshness, column: ntz, must_be: 'between 2h and 4h'}",
    "{type: range, column: at, max: '2024-01-01T14:00:00'}",
    "{type: range, column: at, max: '2024-01-01T14:00:00Z'}",
    "{type: column_max_check, column: at, value: 2024-01-01 13:00:00}",
]


def _run_fresh(spark, tmp_path, path, zone):
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        before = time.time()
        out = run_config(spark, write_config(tmp_path, config(path, FRESH_RULES, name="fresh")))
        return out, before, time.time()
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


@pytest.mark.parametrize(("zone", "offset"), [("UTC", 0), ("America/Sao_Paulo", -3)])
def test_freshness_and_timestamps_follow_the_session_time_zone(
    spark, tmp_path, clocks, zone, offset
):
    path, day, ts, ntz = clocks
    out, before, after = _run_fresh(spark, tmp_path, path, zone)
    shift = -offset * HOUR  # local midnight / wall clock are this much later in UTC

    def age(instant: float) -> tuple[float, float]:
        return before - instant - 1, after - instant + 1

    midnight = dt.datetime.combine(day, dt.time(), dt.timezone.utc).timestamp() + shift
    wall = ntz.replace(tzinfo=dt.timezone.utc).timestamp() + shift
    expected = [age(midnight), age(ts.timestamp()), age(ts.timestamp()), age(wall)]
    for result, (low, high) in zip(out.results[:4], expected, strict=True):
        validate_event(result)
        assert low <= result["metric_value"] <= high, (zone, result["message"])
    # the wall clock 3 hours ago in UTC is "now" in Sao Paulo
    ntz_severity = "pass" if zone == "UTC" else "fail"
    assert [r["severity"] for r in out.results[:4]] == ["pass", "fail", "warn", ntz_severity]
    # a timestamp without offset is a wall-clock time in the session time zone...
    assert out.results[4]["failed_count"] == (1 if zone == "UTC" else 0)
    assert out.results[5]["failed_count"] == 1  # ...one with an offset is an instant
    assert out.results[6]["severity"] == ("fail" if zone == "UTC" else "pass")


def test_freshness_of_a_future_value_is_negative(spark, tmp_path):
    text = config("x", ["{type: freshness, column: t, must_be: '< 0'}"], name="future").replace(
        '{path: "x"}', '{sql: "SELECT 1 AS id, current_timestamp() + INTERVAL 1 HOUR AS t"}'
    )
    result = run_config(spark, write_config(tmp_path, text)).results[0]
    assert result["severity"] == "pass"
    assert -3601 <= result["metric_value"] <= -3599


# --- targets, end to end ------------------------------------------------------------------


def test_targets_give_one_result_per_target(spark, data, tmp_path):
    rules = [
        "{type: not_null, column: id}",
        "type: range\n        min: 0\n        targets:\n"
        "          - {column: amount, max: 100, code: AMT}\n"
        "          - {column: score, max: 1, level: warn}",
        "{type: invalid_count, must_be: 0, targets: [{column: status, valid_values: [active]},"
        " {column: code, valid_format: alphanumeric}]}",
    ]
    out = run_config(spark, write_config(tmp_path, config(data, rules)))
    got = [
        (
            r["rule_index"],
            r["rule"]["type"],
            r["rule"]["columns"],
            r["rule"]["code"],
            r["severity"],
            r["failed_count"],
            r["location"]["path"],
        )
        for r in out.results
    ]
    assert got == [
        (0, "not_null", ["id"], None, "pass", 0, "tables[0].rules[0]"),
        (1, "range", ["amount"], "AMT", "fail", 2, "tables[0].rules[1].targets[0]"),
        (2, "range", ["score"], None, "warn", 2, "tables[0].rules[1].targets[1]"),
        (3, "invalid_count", ["status"], None, "fail", 4, "tables[0].rules[2].targets[0]"),
        (4, "invalid_count", ["code"], None, "fail", 1, "tables[0].rules[2].targets[1]"),
    ]
    assert out.tables()["m"]["rules"] == 5

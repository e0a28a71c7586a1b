"""What assay ports of DQX's own data (databricks-labs-dqx, a test dependency): its
patterns are DQX's, its ISO code lists hold DQX's codes, and the IPv6 grammar and bits
that replace DQX's ``ipaddress`` UDFs agree with Python's ``ipaddress`` in Spark."""

from __future__ import annotations

import ipaddress
import random
from importlib.resources import files

import pytest

from assay.dialects import dqx_codes, dqx_ipv6, dqx_text


def test_patterns_are_dqx_patterns():
    from databricks.labs.dqx.check_funcs import DQPattern  # here: every worker collects this

    assert DQPattern.EMAIL_ADDRESS.value == dqx_text.EMAIL_ADDRESS
    assert DQPattern.URL.value == dqx_text.URL
    for pattern, label in dqx_text.NATIONAL_IDS.values():
        assert pattern == DQPattern[label].value


RESOURCES = [
    *(name for _, formats in dqx_codes._STANDARDS.values() for name in formats.values()),
    dqx_codes.SUBDIVISIONS,
]


@pytest.mark.parametrize("resource", RESOURCES)
def test_code_lists_hold_dqx_codes(resource):
    theirs = (files("databricks.labs.dqx.resources") / resource).read_text(encoding="utf-8")
    assert dqx_codes.codes(resource) == tuple(sorted(set(theirs.split())))


TRICKY = [
    "::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9", "1::2::3", ":::", "::ffff:1.2.3.4", "::ffff:01.2.3.4",
    "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5::1.2.3.4", "1:2:3:4:5:6::1.2.3.4", "fe80::1%eth0",
    "fe80::1%", "fe80::1%a%b", "fe80::1%a/b", "::1/128", "00000::1", "1.2.3.4", "::256.1.1.1",
    "::1.2.3", "1:2:3:4:5:6:7:8%x:y", "fe80::1%\n", "2001:DB8::A", " ::1", "::1 ", "::1\n",
    "2001:db8:0:0:0:0:2:1", "::ffff:255.255.255.255", "1:2:3:4:5:6:7:8:", ":1:2:3:4:5:6:7:8",
    "١::1", "::１",
]  # fmt: skip


def _samples() -> list[str]:
    rng = random.Random(7)
    found = list(TRICKY)
    for _ in range(300):
        groups = [format(rng.randrange(0x10000), "x")[: rng.randint(0, 4)] for _ in range(9)]
        text = ":".join(groups[: rng.randint(2, 9)])
        if rng.random() < 0.3:
            text += ":" + ".".join(str(rng.randint(0, 260)) for _ in range(4))
        found.append(text + ("%z" if rng.random() < 0.1 else ""))
    for _ in range(200):
        found.append(str(ipaddress.IPv6Address(rng.getrandbits(128))))
        found.append(ipaddress.IPv6Address(rng.getrandbits(16) << 112).exploded)
        near = int(NETWORKS[rng.randrange(len(NETWORKS))].network_address)
        found.append(str(ipaddress.IPv6Address(near ^ (1 << rng.randrange(128)))))
    return found


NETWORKS = [
    ipaddress.IPv6Network(block, strict=False)
    for block in ("::/0", "::/1", "8000::/1", "fe80::/10", "::ffff:0:0/96", "2001:db8::1/33",
                  "::1/128", "1::/3", "abcd:ef00::/23")
]  # fmt: skip
"""Blocks whose prefixes end inside a hex digit and on one, as DQX's CIDR checks take
them (host bits allowed)."""


def _python(text: str) -> ipaddress.IPv6Address | None:
    try:
        return ipaddress.IPv6Address(text)
    except ValueError:
        return None


@pytest.mark.spark
def test_ipv6_grammar_and_bits_are_pythons(spark):
    samples = _samples()
    table = spark.createDataFrame([(s,) for s in samples], "s string")
    pattern = dqx_text.sql_string(dqx_ipv6.IPV6_ADDRESS)
    inside = [f"{dqx_ipv6.in_network('s', n)} AS in{i}" for i, n in enumerate(NETWORKS)]
    rows = table.selectExpr(
        "s", f"s RLIKE {pattern} AS ok", f"{dqx_ipv6.address_hex('s')} AS h", *inside
    )
    differ = []
    for r in rows.collect():
        python = _python(r["s"])
        if r["ok"] != (python is not None):
            differ.append(f"{r['s']!r}: rlike {r['ok']}, ipaddress {python}")
        elif python is not None and r["h"] != f"{int(python):032x}":
            differ.append(f"{r['s']!r}: bits {r['h']}, ipaddress {int(python):032x}")
        for i, network in enumerate(NETWORKS):
            if python is not None and r[f"in{i}"] != (python in network):
                differ.append(f"{r['s']!r} in {network}: {r[f'in{i}']}, ipaddress differs")
    assert sum(_python(s) is not None for s in samples) > 300
    assert not differ, "\n".join(differ)

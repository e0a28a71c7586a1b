"""DQX's row-level check functions on a value's text: patterns (IPv4 addresses and CIDR
blocks, UUIDs, e-mail addresses, URLs, national ids), JSON and its keys, the count of
decimal places, a string's case, each with DQX's semantics (databricks-labs-dqx 0.17,
``check_funcs.py``, ``DQPattern``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assay.dialects.dqx_args import (
    COLUMN,
    LIMIT,
    Args,
    Function,
    Mapped,
    nulls,
    row,
    sql_string,
    takes,
)

DECIMAL_NUMBER = r"\A[+-]?(?=\.?\d)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\z"
"""A plain or exponent number as text: its digits before and after the point, and its
exponent (DQX's ``DQPattern.DECIMAL_NUMBER``)."""


def _decimal_places(a: Args) -> Mapped:
    """DQX's ``has_num_decimal_places``: the value's decimal places, read from its text
    (trailing zeros do not count, the exponent does), above the limit fail; a value that
    is not a number fails, and so does a non-NULL value whose limit is NULL."""
    t = a.target()
    bound, shown = a.limit(a.require("limit"))
    x = f"CAST({t.sql} AS STRING)"
    pattern = sql_string(DECIMAL_NUMBER)
    integer, fraction, exponent = (f"regexp_extract({x}, {pattern}, {i})" for i in (1, 2, 3))
    power = f"CASE WHEN {exponent} = '' THEN 0 ELSE CAST({exponent} AS DOUBLE) END"
    significand = f"regexp_replace(concat({integer}, {fraction}), '0+\\\\z', '')"
    zeros = f"(length({integer}) + length({fraction}) - length({significand}))"
    places = (f"CASE WHEN {significand} = '' THEN 0 "
              f"ELSE greatest(length({fraction}) - {zeros} - {power}, 0) END")  # fmt: skip
    condition = (f"({t.sql} IS NOT NULL AND {bound} IS NULL) OR NOT ({x} RLIKE {pattern}) "
                 f"OR ({places} > {bound})")  # fmt: skip
    message = f"Value '{{value}}' in Column '{t.shown}' has more than {shown} decimal places"
    return nulls(a, t, condition, "num_decimal_places_greater_than_limit", message)


def _pattern(pattern: str, suffix: str, label: str) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        condition = (
            f"CASE WHEN {t.sql} IS NOT NULL THEN NOT ({t.sql} RLIKE {sql_string(pattern)}) "
            "ELSE NULL END"
        )
        message = f"Value '{{value}}' in Column '{t.shown}' does not match pattern '{label}'"
        return row(condition, (t,), f"{t.norm}_does_not_match_pattern_{suffix}", message)

    return build


def _invalid_json(sql: str) -> str:
    """TRUE for a non-NULL value that is not JSON (DQX's ``is_valid_json`` condition)."""
    return f"CASE WHEN {sql} IS NOT NULL THEN try_parse_json({sql}) IS NULL END"


def _is_valid_json(a: Args) -> Mapped:
    t = a.target()
    message = f"Value '{{value}}' in Column '{t.shown}' is not a valid JSON string"
    return row(f"({_invalid_json(t.sql)})", (t,), f"{t.norm}_is_not_valid_json", message)


def _has_json_keys(a: Args) -> Mapped:
    t = a.target()
    node = a.require("keys")
    items = node.as_list("a list of keys")
    if not items:
        raise node.error("DQX: The 'keys' parameter must be a non-empty list of strings.")
    keys = [item.as_str("a key (a string)", allow_empty=True) for item in items]
    required = f"array_distinct(array({', '.join(sql_string(k) for k in keys)}))"
    found = f"json_object_keys({t.sql})"
    if a.flag("require_all", default=True):
        when_valid = f"size(array_except({required}, {found})) = 0"
    else:
        when_valid = f"arrays_overlap({found}, {required})"
    invalid = f"coalesce({_invalid_json(t.sql)}, false)"
    holds = f"(CASE WHEN NOT {invalid} THEN {when_valid} ELSE false END) OR {t.sql} IS NULL"
    message = (f"Value '{{value}}' in Column '{t.shown}' is missing keys in the list: "
               f"[{', '.join(keys)}]")  # fmt: skip
    return row(f"NOT ({holds})", (t,), f"{t.norm}_does_not_have_json_keys", message)


def _string_case(a: Args) -> Mapped:
    t = a.target()
    node = a.require("case")
    case = node.as_str("upper, lower, title or sentence")
    if case not in ("upper", "lower", "title", "sentence"):
        raise node.error(
            f"DQX: 'case' must be one of ['lower', 'sentence', 'title', 'upper'], got '{case}'"
        )
    x = f"CAST({t.sql} AS STRING)"
    if case in ("upper", "lower"):
        normal = f"{case}({x})"
    elif case == "title":
        word = "concat(upper(substring(w, 1, 1)), substring(w, 2, length(w)))"
        normal = f"array_join(transform(split({x}, ' '), w -> {word}), ' ')"
    else:
        prefix = "regexp_extract(g, '^(\\\\s*)', 1)"
        start = f"length({prefix}) + 1"
        segment = (f"concat(substring(g, 1, length({prefix})), upper(substring(g, {start}, 1)), "
                   f"substring(g, {start} + 1, length(g)))")  # fmt: skip
        normal = f"array_join(transform(split({x}, '\\\\.'), g -> {segment}), '.')"
    message = f"Value '{{value}}' in Column '{t.shown}' does not have valid '{case}' string case"
    return row(f"{x} != {normal}", (t,), f"{t.norm}_has_invalid_{case}_string_case", message)


_OCTET = r"(25[0-5]|2[0-4]\d|1\d{2}|[1-9]?\d)"
IPV4_ADDRESS = rf"\A{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}\z"
"""DQX's ``DQPattern.IPV4_ADDRESS``."""


IPV4_CIDR = rf"\A{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}/(3[0-2]|[12]?\d)\z"
"""An IPv4 CIDR block (DQX's ``DQPattern.IPV4_CIDR_BLOCK``)."""


def _ipv4_bits(sql: str) -> str:
    """The 32 bits of an IPv4 address as text (DQX's ``_convert_ipv4_to_bits``)."""
    octets = f"split(regexp_extract({sql}, {sql_string(IPV4_ADDRESS)}, 0), '\\\\.')"
    return "concat(" + ", ".join(
        f"lpad(conv({octets}[{i}], 10, 2), 8, '0')" for i in range(4)
    ) + ")"  # fmt: skip


def _ipv4_in_cidr(a: Args) -> Mapped:
    """DQX's ``is_ipv4_address_in_cidr``: an invalid address fails, a valid one fails
    when its first prefix bits are not the block's (NULL passes)."""
    t = a.target()
    node = a.require("cidr_block")
    block = node.as_str("an IPv4 CIDR block", allow_empty=True)
    found = re.match(IPV4_CIDR.replace("\\z", "\\Z"), block)
    if not block or found is None:
        raise node.error(f"DQX: CIDR block '{block}' is not a valid IPv4 CIDR block.")
    prefix = int(found.group(5))
    bits = "".join(f"{int(o):08b}" for o in block.split("/")[0].split("."))
    network = bits[:prefix].ljust(32, "0")
    invalid = (f"coalesce(CASE WHEN {t.sql} IS NOT NULL THEN NOT ({t.sql} RLIKE "
               f"{sql_string(IPV4_ADDRESS)}) ELSE NULL END, false)")  # fmt: skip
    outside = f"rpad(substring({_ipv4_bits(t.sql)}, 1, {prefix}), 32, '0') != '{network}'"
    message = f"Value '{{value}}' in Column '{t.shown}' is not in the CIDR block '{block}'"
    return row(f"{invalid} OR ({outside})", (t,), f"{t.norm}_is_not_ipv4_in_cidr", message)


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_QTEXT = r"[\x21\x23-\x5B\x5D-\x7E]"
_QPAIR = r"\\[\x09\x20-\x7E]"
EMAIL_ADDRESS = (
    rf"\A(?=.{{1,254}}\z)(?=[^@]{{1,64}}@)"
    rf'(?:{_ATEXT}+(?:\.{_ATEXT}+)*|"(?:{_QTEXT}|{_QPAIR})*")'
    rf"@(?:(?:{_LABEL}\.)+[A-Za-z]{{2,63}}|\[(?:{_OCTET}(?:\.{_OCTET}){{3}}|IPv6:[A-Fa-f0-9:]+)\])\z"
)
"""DQX's ``DQPattern.EMAIL_ADDRESS`` (RFC 5322's dot-atom or quoted local part, a host
name with an alphabetic top-level label or an address literal, 64 and 254 characters at
most), a Java pattern as Spark's ``rlike`` reads it, as DQX's is."""

_URL_CHAR = r"[A-Za-z0-9\-._~!$&'()*+,;=]"
_PCT = r"%[0-9A-Fa-f]{2}"
_HOST = rf"(?:\[[A-Fa-f0-9:.]+\]|(?:{_URL_CHAR}|{_PCT})*)"
_AUTHORITY = rf"(?:(?:{_URL_CHAR}|{_PCT}|:)*@)?{_HOST}(?::\d*)?"
_PCHAR = rf"(?:{_URL_CHAR}|{_PCT}|[:@])"
_PATH = rf"(?:/{_PCHAR}*)*"
_ROOTLESS = rf"(?:/(?:{_PCHAR}+{_PATH})?|{_PCHAR}+{_PATH})?"
URL = (
    rf"\A[A-Za-z][A-Za-z0-9+.\-]*:(?://{_AUTHORITY}{_PATH}|{_ROOTLESS})"
    rf"(?:\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?\z"
)
"""DQX's ``DQPattern.URL``: RFC 3986's absolute URI (a scheme, any; an optional
authority with user info and port; a path; a query and a fragment)."""

NATIONAL_IDS = {
    "US": (r"\A(?!000|666|9\d{2})\d{3}([- ]?)(?!00)\d{2}\1(?!0000)\d{4}\z", "SSN_US"),
    "GB": (
        r"\A(?!(?:BG|GB|KN|NK|NT|TN|ZZ))(?!(?:[DFIQUV]))[A-Z](?![DFIOQUV])[A-Z] ?\d{2} ?\d{2}"
        r" ?\d{2} ?[ABCD]\z",
        "NINO_GB",
    ),
    "IN": (r"\A[A-Z]{3}[ABCFGHJLPT][A-Z]\d{4}[A-Z]\z", "PAN_IN"),
}
"""DQX's national id patterns by country (``DQPattern.SSN_US``, ``NINO_GB``,
``PAN_IN``): the format and number ranges, no checksum."""


def _national_id(a: Args) -> Mapped:
    node = a.values.get("country")
    country = "US"
    if node is not None:
        if node.value is None:
            raise node.error("DQX: 'country' is not provided.", hint="DQX: MissingParameterError")
        if not isinstance(node.value, str):
            raise node.error(f"DQX: 'country' must be a string, got {type(node.value)} instead.")
        country = node.value
    found = NATIONAL_IDS.get(country.upper())
    if found is None:
        assert node is not None
        raise node.error(
            f"DQX: Unsupported country code for national ID validation: '{country}'. "
            f"Supported: [{', '.join(sorted(NATIONAL_IDS))}]."
        )
    pattern, label = found
    return _pattern(pattern, label.lower(), label)(a)


_HEX = "[0-9A-Fa-f]"
UUID = rf"\A{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\z"
"""The canonical 8-4-4-4-12 hexadecimal form of a UUID (RFC 9562), any case."""
UUID_STRICT = rf"\A{_HEX}{{8}}-{_HEX}{{4}}-[1-8]{_HEX}{{3}}-[89ABab]{_HEX}{{3}}-{_HEX}{{12}}\z"
"""As :data:`UUID`, with a version (1-8) and the RFC variant (8, 9, a, b)."""


def _is_valid_uuid(a: Args) -> Mapped:
    strict = a.flag("strict")
    pattern = UUID_STRICT if strict else UUID
    label, suffix = ("UUID_STRICT", "uuid_strict") if strict else ("UUID", "uuid")
    return _pattern(pattern, suffix, label)(a)


FUNCTIONS: dict[str, Function] = {
    "is_valid_ipv4_address": Function(
        _pattern(IPV4_ADDRESS, "ipv4_address", "IPV4_ADDRESS"), COLUMN
    ),
    "is_ipv4_address_in_cidr": Function(_ipv4_in_cidr, takes("column", "cidr_block")),
    "has_num_decimal_places": Function(_decimal_places, LIMIT),
    "is_valid_json": Function(_is_valid_json, COLUMN),
    "is_valid_uuid": Function(_is_valid_uuid, takes("column", "strict")),
    "has_json_keys": Function(_has_json_keys, takes("column", "keys", "require_all")),
    "has_valid_string_case": Function(_string_case, takes("column", "case")),
    "is_valid_email": Function(_pattern(EMAIL_ADDRESS, "email_address", "EMAIL_ADDRESS"), COLUMN),
    "is_valid_url": Function(_pattern(URL, "url", "URL"), COLUMN),
    "is_valid_national_id": Function(_national_id, takes("column", "country")),
}
"""The row-level functions on a value's text, by DQX's name."""

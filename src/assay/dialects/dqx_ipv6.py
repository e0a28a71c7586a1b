"""DQX's IPv6 checks (databricks-labs-dqx 0.17, ``check_funcs.py``):
``is_valid_ipv6_address`` and ``is_ipv6_address_in_cidr``. DQX runs Python's
``ipaddress.IPv6Address`` in a pandas UDF; assay runs no UDF on the server, so the same
grammar is a Java pattern here (:data:`IPV6_ADDRESS`) and the address's 128 bits are
read in Spark SQL (:func:`address_hex`): the tests compare both with ``ipaddress`` on
tricky addresses (compressed, IPv4-mapped, zone ids, leading zeros, too many groups).
Every part of the SQL is total (``try_element_at``, ``TRY_CAST``): an invalid value never
raises under ANSI mode, whatever Spark evaluates first.
"""

from __future__ import annotations

import ipaddress

from assay.dialects.dqx_args import COLUMN, Args, Function, Mapped, row, sql_string, takes

_H = "[0-9A-Fa-f]{1,4}"
_V4_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_V4 = rf"{_V4_OCTET}(?:\.{_V4_OCTET}){{3}}"


def _tail(n: int) -> str:
    """What may follow ``::`` when ``n`` groups are left: nothing, up to ``n`` groups, or
    up to ``n - 2`` groups and an IPv4 address (two groups)."""
    forms = [""]
    if n >= 1:
        forms.append(f"(?:{_H}:){{0,{n - 1}}}{_H}")
    if n >= 2:
        forms.append(f"(?:{_H}:){{0,{n - 2}}}{_V4}")
    return "(?:" + "|".join(forms) + ")"


def _grammar() -> str:
    forms = [f"(?:{_H}:){{7}}{_H}", f"(?:{_H}:){{6}}{_V4}"]
    for before in range(8):
        head = f"(?:{_H}:){{{before - 1}}}{_H}" if before else ""
        forms.append(f"{head}::{_tail(7 - before)}")
    return "(?:" + "|".join(forms) + ")"


IPV6_ADDRESS = rf"\A{_grammar()}(?:%[^%/]+)?\z"
"""What Python's ``ipaddress.IPv6Address(str(value))`` accepts: eight groups of one to
four hex digits, the last two of which may be an IPv4 address (no leading zeros), one
``::`` standing for at least one zero group, and an optional zone id (``%`` and text
without ``%`` or ``/``)."""


def _bind(sql: str, var: str, body: str) -> str:
    """``body`` with ``var`` standing for ``sql`` (computed once, by a lambda)."""
    return f"element_at(transform(array({sql}), {var} -> {body}), 1)"


def address_hex(sql: str) -> str:
    """The 32 hex digits of a valid IPv6 address (its zone id dropped, an IPv4 tail read
    as two groups, ``::`` filled with zero groups); meaningless for an invalid one."""
    v4 = "substring_index(a6, ':', -1)"
    octet = [f"TRY_CAST(try_element_at(split({v4}, '\\\\.'), {i}) AS INT)" for i in (1, 2, 3, 4)]
    groups = f"hex({octet[0]} * 256 + {octet[1]}), ':', hex({octet[2]} * 256 + {octet[3]})"
    no_v4 = (f"CASE WHEN instr(a6, '.') > 0 THEN concat(substring(a6, 1, length(a6) - "
             f"length({v4})), {groups}) ELSE a6 END")  # fmt: skip
    head = "substring_index(b6, '::', 1)"
    tail = "CASE WHEN instr(b6, '::') > 0 THEN substring_index(b6, '::', -1) ELSE '' END"

    def parts(text: str) -> str:
        return f"CASE WHEN {text} = '' THEN array() ELSE split({text}, ':') END"

    full = (f"concat({parts(head)}, array_repeat('0', 8 - size({parts(head)}) - "
            f"size({parts(tail)})), {parts(tail)})")  # fmt: skip
    digits = f"array_join(transform({full}, g6 -> lpad(lower(g6), 4, '0')), '')"
    plain = f"substring_index(CAST({sql} AS STRING), '%', 1)"
    return _bind(plain, "a6", _bind(no_v4, "b6", digits))


def _invalid(sql: str) -> str:
    return f"NOT (CAST({sql} AS STRING) RLIKE {sql_string(IPV6_ADDRESS)})"


def _is_valid_ipv6(a: Args) -> Mapped:
    t = a.target()
    condition = f"CASE WHEN {t.sql} IS NOT NULL THEN {_invalid(t.sql)} ELSE NULL END"
    message = f"Value '{{value}}' in Column '{t.shown}' does not match pattern 'IPV6_ADDRESS'"
    return row(condition, (t,), f"{t.norm}_does_not_match_pattern_ipv6_address", message)


def _network(a: Args) -> tuple[str, ipaddress.IPv6Network]:
    node = a.require("cidr_block")
    if not isinstance(node.value, str):
        raise node.error(
            f"DQX: 'cidr_block' must be a string, got {type(node.value)} instead.",
            hint="DQX: InvalidParameterError",
        )
    block: str = node.value
    if not block:
        raise node.error("DQX: 'cidr_block' must be a non-empty string.")
    try:
        if "/" not in block:
            raise ValueError(block)
        return block, ipaddress.IPv6Network(block, strict=False)
    except ValueError:
        raise node.error(f"DQX: CIDR block '{block}' is not a valid IPv6 CIDR block.") from None


def in_network(sql: str, network: ipaddress.IPv6Network) -> str:
    """TRUE when the valid IPv6 address ``sql`` is in ``network``: its first prefix bits
    are the network's (whole hex digits compared as text, the last partial one masked)."""
    digits = f"{int(network.network_address):032x}"
    whole, bits = divmod(network.prefixlen, 4)
    h = "h6"  # the address's hex digits, computed once (a lambda's variable)
    inside = f"substring({h}, 1, {whole}) = '{digits[:whole]}'" if whole else "TRUE"
    if bits:
        mask = (0xF << (4 - bits)) & 0xF
        nibble = f"TRY_CAST(conv(substring({h}, {whole + 1}, 1), 16, 10) AS INT)"
        inside += f" AND ({nibble} & {mask}) = {int(digits[whole], 16) & mask}"
    return _bind(address_hex(sql), h, inside)


def _ipv6_in_cidr(a: Args) -> Mapped:
    """An invalid address fails, a valid one fails when its first prefix bits are not
    the block's (NULL passes)."""
    block, network = _network(a)
    t = a.target()
    condition = (f"CASE WHEN {t.sql} IS NULL THEN NULL WHEN {_invalid(t.sql)} THEN TRUE "
                 f"ELSE NOT {in_network(t.sql, network)} END")  # fmt: skip
    message = f"Value '{{value}}' in Column '{t.shown}' is not in the CIDR block '{block}'"
    return row(condition, (t,), f"{t.norm}_is_not_ipv6_in_cidr", message)


FUNCTIONS: dict[str, Function] = {
    "is_valid_ipv6_address": Function(_is_valid_ipv6, COLUMN),
    "is_ipv6_address_in_cidr": Function(_ipv6_in_cidr, takes("column", "cidr_block")),
}
"""The IPv6 functions, by DQX's name."""

"""Soda's named formats (``valid format``, ``missing format``, ``invalid format``): their
regular expressions exactly as soda-core 3.5.6 builds them
(``soda/core/soda/execution/data_source.py``, ``FormatHelper.build_default_formats``, commit
52d80e67a7b8248e60964a64dd3476630ed04592). Soda's Spark data sources search them with
``rlike`` (a match anywhere, as :class:`~assay.ir.expr.Matches`); they are anchored with
``^``/``$`` but ``credit card number``, whose alternatives are not grouped, as Soda's.
"""

from __future__ import annotations

_PARTS = {
    "s": r" *",  # an optional set of spaces
    "sign_any_opt": r"[-+]?",
    "plus_opt": r"\+?",
    "min": r"\-",
    "digits": r"[0-9]+",
    "decimal_point_comma": r"(\d+([\.,]\d+)?|([\.,]\d+))",
    "decimal_point": r"(\d+(\.\d+)?|(\.\d+))",
    "decimal_comma": r"(\d+(,\d+)?|(,\d+))",
    "zero_integer": r"0+",
    "zero_point_comma": r"(0+([\.,]0+)?|([\.,]0+))",
    "zero_point": r"(0+(\.0+)?|(\.0+))",
    "zero_comma": r"(0+(,0+)?|(,0+))",
    "money_point": r"\d{1,3}(\,\d\d\d)*(.\d+)?",
    "money_comma": r"\d{1,3}(\.\d\d\d)*(,\d+)?",
    "currency": r"([A-Z]{3}|[a-z]{3})",
    "day": r"(0?[1-9]|[12][0-9]|3[01])",
    "month": r"(0?[1-9]|1[012])",
    "year": r"([12][0-9])?\d\d",
    "hour24": r"(0?[0-9]|[01]\d|2[0-3])",
    "hour12": r"(0?[0-9]|1[0-2])",
    "minute": r"[0-5]?[0-9]",
    "second": r"[0-5]?[0-9]([.,]\d+)?",
    "year4": r"[12][0-9]{3}",
    "month2": r"(0[1-9]|1[012])",
    "day2": r"(0[1-9]|[12][0-9]|3[01])",
    "hour2": r"(0[0-9]|1[012])",  # unused in Soda too
    "minute2": r"[0-5][0-9]",
    "second2": r"[0-5][0-9]",  # minute2
}
"""The pieces Soda's formats are built of (its local variables, by their names)."""

_TEMPLATES = {
    "integer": "^{s}{sign_any_opt}{s}{digits}{s}$",
    "positive integer": "^{s}{plus_opt}{s}{digits}{s}$",
    "negative integer": "^{s}({min}{s}{digits}|{zero_integer}){s}$",
    "decimal": "^{s}{sign_any_opt}{s}{decimal_point_comma}{s}$",
    "positive decimal": "^{s}{plus_opt}{s}{decimal_point_comma}{s}$",
    "negative decimal": "^{s}({min}{s}{decimal_point_comma}|{zero_point_comma}){s}$",
    "decimal point": "^{s}{sign_any_opt}{s}{decimal_point}{s}$",
    "positive decimal point": "^{s}{plus_opt}{s}{decimal_point}{s}$",
    "negative decimal point": "^{s}({min}{s}{decimal_point}|{zero_point}){s}$",
    "decimal comma": "^{s}{sign_any_opt}{s}{decimal_comma}{s}$",
    "positive decimal comma": "^{s}{plus_opt}{s}{decimal_comma}{s}$",
    "negative decimal comma": "^{s}({min}{s}{decimal_comma}|{zero_comma}){s}$",
    "percentage": "^{s}{sign_any_opt}{s}{decimal_point_comma}{s}%{s}$",
    "positive percentage": "^{s}{plus_opt}{s}{decimal_point_comma}{s}%{s}$",
    "negative percentage": "^{s}({min}{s}{decimal_point_comma}|{zero_point_comma}){s}%{s}$",
    "percentage point": "^{s}{sign_any_opt}{s}{decimal_point}{s}%{s}$",
    "positive percentage point": "^{s}{plus_opt}{s}{decimal_point}{s}%{s}$",
    "negative percentage point": "^{s}({min}{s}{decimal_point}|{zero_point}){s}%{s}$",
    "percentage comma": "^{s}{sign_any_opt}{s}{decimal_comma}{s}%{s}$",
    "positive percentage comma": "^{s}{plus_opt}{s}{decimal_comma}{s}%{s}$",
    "negative percentage comma": "^{s}({min}{s}{decimal_comma}|{zero_comma}){s}%{s}$",
    "money": "^{s}{sign_any_opt}{s}{decimal_point_comma}{s}{currency}{s}$",
    "money point": "^{s}{sign_any_opt}{s}{money_point}{s}{currency}{s}$",
    "money comma": "^{s}{sign_any_opt}{s}{money_comma}{s}{currency}{s}$",
    "date us": r"^{s}{month}[-\./]{day}[-\./]{year}{s}$",
    "date eu": r"^{s}{day}[-\./]{month}[-\./]{year}{s}$",
    "date inverse": r"^{s}{year}[-\./]{month}[-\./]{day}{s}$",
    "date iso 8601": "^{s}"
    r"{year4}-?({month2}-?{day2}|W[0-5]\d(-?[1-7])?|[0-3]\d\d)"
    r"([ T]{hour24}(:?{minute2}(:?{second2}([.,]\d+)?)?)?([+-]{hour24}:?{minute2}|Z)?)?"
    "{s}$",
    "time 24h": "^{s}{hour24}:{minute}(:{second})?{s}$",
    "time 24h nosec": "^{s}{hour24}:{minute}{s}$",
    "time 12h": "^{s}{hour12}:{minute}(:{second})?{s}$",
    "time 12h nosec": "^{s}{hour12}:{minute}{s}$",
    "timestamp 24h": "^{s}{hour24}:{minute}:{second}{s}$",
    "timestamp 12h": "^{s}{hour12}:{minute}:{second}{s}$",
}
"""Soda's formats built of :data:`_PARTS` (its f-strings, each ``{name}`` a part)."""

_VERBATIM = {
    "uuid": r"^[0-9a-fA-F]{8}\-[0-9a-fA-F]{4}\-[0-9a-fA-F]{4}\-[0-9a-fA-F]{4}\-[0-9a-fA-F]{12}$",  # noqa: E501 (Soda's text, unchanged)
    "ip address": r"^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$",
    "ipv4 address": r"^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$",
    # scary - but covers all cases
    "ipv6 address": r"^(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))$",  # noqa: E501 (Soda's text, unchanged)
    "email": r"^[a-zA-ZÀ-ÿĀ-ſƀ-ȳ0-9.\-_%+]+@[a-zA-ZÀ-ÿĀ-ſƀ-ȳ0-9.\-_%]+\.[A-Za-z]{2,4}$",
    "phone number": r"^((\+[0-9]{1,2}\s)?\(?[0-9]{3}\)?[\s.-])?[0-9]{3}[\s.-][0-9]{4}$",
    "credit card number": r"^[0-9]{14}|[0-9]{15}|[0-9]{16}|[0-9]{17}|[0-9]{18}|[0-9]{19}|([0-9]{4}-){3}[0-9]{4}|([0-9]{4} ){3}[0-9]{4}$",  # noqa: E501 (Soda's text, unchanged)
}
"""Soda's formats written out whole (their ``{n}`` are regex counts, not parts)."""

FORMATS: dict[str, str] = {
    **{name: template.format_map(_PARTS) for name, template in _TEMPLATES.items()},
    **_VERBATIM,
}
NUMERIC_FORMATS = frozenset(
    {
        "integer",
        "positive integer",
        "negative integer",
        "decimal",
        "positive decimal",
        "negative decimal",
        "decimal point",
        "positive decimal point",
        "negative decimal point",
        "decimal comma",
        "positive decimal comma",
        "negative decimal comma",
        "percentage",
        "positive percentage",
        "negative percentage",
        "percentage point",
        "positive percentage point",
        "negative percentage point",
        "percentage comma",
        "positive percentage comma",
        "negative percentage comma",
        "money",
        "money point",
        "money comma",
    }
)
"""The formats Soda reads as numbers (``FormatHelper.is_numeric``): with ``valid min``/``valid
max`` or an aggregate it casts the text to a number."""

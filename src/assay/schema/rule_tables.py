"""The rule tables of the docs, generated from the rule catalogue's declarations.

docs/rules.md lists every rule type (``<!-- rule-table: all -->``); docs/config.md lists the
row-level rules and the others (``<!-- rule-table: row -->``, ``<!-- rule-table: metric
-->``). Each table sits between its marker and ``<!-- rule-table: end -->``; what is between
is rewritten by ``python -m assay.schema.generate`` (with the JSON Schema), and checked by
``--check`` and the tests: a rule type's documentation is its :class:`RuleDoc`, written once.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay.dialects.catalogue import RULES
from assay.dialects.rule_spec import RuleSpec

DOCS = Path(__file__).resolve().parents[3] / "docs"
FILES = ("rules.md", "config.md")
END = "<!-- rule-table: end -->"
_MARKER = re.compile(r"<!-- rule-table: (\w+) -->\n.*?" + re.escape(END), re.S)

_HEADERS = {
    "all": (
        "| type | aliases | parameters (besides `type`, `name`, `level`, `code`, `targets`)"
        " | fails when | nulls | column kind | plan |\n|---|---|---|---|---|---|---|"
    ),
    "row": (
        "| type | parameters | a row fails when | nulls | column kind |\n|---|---|---|---|---|"
    ),
    "metric": "| type | parameters | fails when | nulls | column kind |\n|---|---|---|---|---|",
}
_OWN_SECTIONS = ("schema", "sql")
"""Rule types docs/config.md explains in sections of their own."""


def _builtin() -> dict[str, RuleSpec]:
    return {kind: spec for kind, spec in RULES.items() if not spec.custom}


def _names(kind: str, spec: RuleSpec) -> str:
    aliases = ", ".join(f"`{a}`" for a in spec.aliases)
    return f"`{kind}`" + (
        f" (alias{'es' if len(spec.aliases) > 1 else ''} {aliases})" if aliases else ""
    )


def table(which: str) -> str:
    """The Markdown of one rule table: ``all``, ``row`` or ``metric``."""
    rows = [_HEADERS[which]]
    for kind, spec in _builtin().items():
        doc = spec.doc
        assert doc is not None, kind
        if which == "all":
            aliases = ", ".join(f"`{a}`" for a in spec.aliases)
            cells = [f"`{kind}`", aliases, doc.params, doc.fails, doc.nulls, doc.columns, doc.plan]
        elif (which == "row") == spec.row_level and kind not in _OWN_SECTIONS:
            cells = [_names(kind, spec), doc.params, doc.fails, doc.nulls, doc.columns]
        else:
            continue
        rows.append(f"| {' | '.join(cells)} |".replace("|  |", "| |"))
    return "\n".join(rows)


def rewritten(text: str) -> str:
    """``text`` with every rule table between its markers regenerated."""
    return _MARKER.sub(lambda m: f"<!-- rule-table: {m[1]} -->\n{table(m[1])}\n{END}", text)


def stale() -> list[Path]:
    """The docs whose rule tables differ from the catalogue's."""
    return [p for p in (DOCS / f for f in FILES) if p.exists() and rewritten(_read(p)) != _read(p)]


def write() -> list[Path]:
    """Rewrite the rule tables of the docs; return the files changed."""
    changed = stale()
    for path in changed:
        path.write_text(rewritten(_read(path)), encoding="utf-8")
    return changed


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")

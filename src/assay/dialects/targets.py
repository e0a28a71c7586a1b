"""``targets``: one rule entry expanded into independent rules at config time.

Everything beside ``targets`` is a default shared by every target; each target
overrides what it needs. Each expanded rule has its own result, its own origin
(``tables[0].rules[2].targets[1]``) and its own position among the table's rules.
Refused, so a report is never ambiguous: a target carrying ``type`` (one entry is one
rule type) or nested ``targets``, and ``code``/``output`` beside the list (every expanded
rule would share one identifier or one destination).
"""

from __future__ import annotations

from assay.config.node import Node
from assay.errors import ConfigError, ConfigErrors

BESIDE_REFUSED = ("code", "output")
IN_TARGET_REFUSED = ("type", "targets")


def expand_targets(node: Node) -> list[Node]:
    """The rules one rule entry stands for: itself, or one merged mapping per target
    (origin: the target's). A non-mapping is returned as is for the rule builder to
    report.

    Raises:
        ConfigError(s): the refusals above, or ``targets`` not a non-empty list of mappings.
    """
    if not isinstance(node.value, dict) or "targets" not in node.value:
        return [node]
    shared = {k: v for k, v in node.value.items() if k != "targets"}
    errors: list[ConfigError] = [
        shared[key].error(
            f"'{key}' cannot sit beside 'targets': every expanded rule would share it",
            hint=f"put '{key}' inside each target",
        )
        for key in BESIDE_REFUSED
        if key in shared
    ]
    items = node.value["targets"].as_list("a list of targets (mappings)", non_empty=True)
    expanded: list[Node] = []
    for item in items:
        mapping = item.as_mapping("a target (a mapping of rule parameters)")
        refused = [k for k in IN_TARGET_REFUSED if k in mapping]
        for key in refused:
            why = (
                "one entry is one rule type; write another rule for another type"
                if key == "type"
                else "targets cannot be nested"
            )
            errors.append(mapping[key].error(f"a target cannot carry '{key}': {why}"))
        if not refused:
            expanded.append(Node({**shared, **mapping}, item.origin))
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigErrors(errors)
    return expanded

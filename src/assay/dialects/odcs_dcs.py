"""A datacontract.com data contract (``dataContractSpecification`` 0.9.x, 1.1.0, 1.2.x)
-> the tables of the ODCS reading (docs/dialects.md, "Data contracts").

As datacontract-cli does (``dcs_importer.convert_dcs_to_odcs``), each model is read as
an ODCS schema object and each field as a property: its ``type`` is the property's
physical type (``decimal`` with ``precision`` and ``scale`` is ``decimal(p,s)``; a
``config.physicalType``, ``sparkType`` or ``databricksType`` wins), ``minLength``,
``maxLength``, ``pattern``, ``minimum``, ``maximum``, ``exclusiveMinimum``,
``exclusiveMaximum`` and ``format`` its ``logicalTypeOptions``, the model's
``primaryKey`` list its primary key, a field's ``fields`` its nested properties and its
``items`` its items. Quality entries are ODCS's; the 0.9.x top-level
``quality`` of ``type: SodaCL`` is a SodaCL checks file whose sections go to their
models. The nodes built keep the lines of the file, so errors name them.
"""

from __future__ import annotations

from assay.config.node import Node
from assay.dialects import odcs_validation
from assay.dialects.base import Context
from assay.dialects.odcs_engines import embedded
from assay.dialects.odcs_tables import chosen_server, contract_tables
from assay.ir.suite import Table

TOP = frozenset({"dataContractSpecification", "models", "servers", "quality"})
TOP_DESCRIPTIVE = frozenset(
    {"id", "info", "terms", "definitions", "servicelevels", "links", "tags", "$schema"}
)
MODEL = frozenset({"fields", "primaryKey", "quality", "config"})
MODEL_DESCRIPTIVE = frozenset(
    {"description", "type", "title", "examples", "additionalFields", "namespace", "tags", "links"}
)
FIELD = frozenset(
    {"type", "required", "unique", "primary", "primaryKey", "enum", "quality", "config",
     "precision", "scale", "references", "fields", "items"}
)  # fmt: skip
OPTIONS = ("minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
           "exclusiveMaximum", "format")  # fmt: skip
FIELD_DESCRIPTIVE = frozenset(
    {"description", "title", "example", "examples", "pii", "classification", "tags", "links",
     "lineage"}
)  # fmt: skip
FIELD_REFUSED = {
    "keys": "the keys of a map are not checked (datacontract-cli 1.2.8 does not check them)",
    "values": "the values of a map are not checked (datacontract-cli 1.2.8 does not check them)",
    "$ref": "references to definitions are not read",
}
RENAMED = {
    "mustBeGreaterThanOrEqualTo": "mustBeGreaterOrEqualTo",
    "mustBeLessThanOrEqualTo": "mustBeLessOrEqualTo",
}
"""datacontract.com's deprecated comparators and ODCS's names of them."""
TYPE_KEYS = ("physicalType", "sparkType", "databricksType")


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The tables of a datacontract.com contract, one per model."""
    version_node = doc.require("dataContractSpecification")
    version = version_node.as_str("a specification version (1.2.1, 1.1.0, 0.9.3...)")
    schema = odcs_validation.DCS_SCHEMAS.get(version)
    if schema is None:
        raise version_node.error(
            f"dataContractSpecification '{version}' is not supported",
            hint="assay reads " + ", ".join(odcs_validation.DCS_SCHEMAS),
        )
    odcs_validation.validate(doc, schema, f"Data Contract Specification {version}")
    _keys(doc, TOP | TOP_DESCRIPTIVE, "contract key")
    models_node = doc.get("models")
    models = models_node.as_mapping() if models_node is not None else {}
    extra = ctx.attempt(_soda_sections, doc.get("quality"), models) or {}
    objects = []
    for name, model in models.items():
        built = ctx.attempt(_schema_object, name, model, extra.get(name, []))
        if built is not None:
            objects.append(built)
    servers = doc.get("servers")
    named = list(servers.as_mapping().items()) if servers is not None else []
    return contract_tables(objects, chosen_server(doc, named, ctx), ctx)


def _keys(node: Node, allowed: frozenset[str], what: str) -> None:
    for key in node.as_mapping():
        if key not in allowed:
            raise node.require(key).error(f"{what} '{key}' is not supported")


def _schema_object(name: str, model: Node, more: list[Node]) -> Node:
    """A model as an ODCS schema object."""
    model.as_mapping("a model (a mapping)")
    _keys(model, MODEL | MODEL_DESCRIPTIVE, "model key")
    keys_node = model.get("primaryKey")
    primary = [k.as_str("a field name") for k in keys_node.as_list()] if keys_node else []
    fields = model.get("fields")
    props = [
        _property(field_name, field, primary)
        for field_name, field in (fields.as_mapping() if fields is not None else {}).items()
    ]
    obj: dict[str, Node] = {
        "name": Node(name, model.origin),
        "properties": Node(props, fields.origin if fields is not None else model.origin),
    }
    quality = [*_quality_list(model.get("quality")), *more]
    if quality:
        obj["quality"] = Node(quality, model.origin.child("quality"))
    return Node(obj, model.origin)


def _property(name: str, field: Node, primary: list[str]) -> Node:
    """A field as an ODCS property."""
    field.as_mapping("a field (a mapping)")
    for key in field.as_mapping():
        if key in FIELD_REFUSED:
            raise field.require(key).error(f"'{key}': {FIELD_REFUSED[key]}")
    _keys(field, FIELD | FIELD_DESCRIPTIVE | frozenset(OPTIONS), "field key")
    prop: dict[str, Node] = {"name": Node(name, field.origin)}
    typed = _type(field)
    if typed is not None:
        prop["physicalType"] = typed
    for key in ("required", "unique"):
        if field.get(key) is not None:
            prop[key] = field.require(key)
    flag = field.get("primaryKey") or field.get("primary")
    if flag is not None:
        prop["primaryKey"] = flag
    elif name in primary:
        prop["primaryKey"] = Node(True, field.origin)
        prop["primaryKeyPosition"] = Node(primary.index(name) + 1, field.origin)
    options = {k: field.require(k) for k in OPTIONS if field.get(k) is not None}
    if options:
        prop["logicalTypeOptions"] = Node(options, field.origin)
    if field.get("enum") is not None:
        prop["enum"] = field.require("enum")
    quality = _quality_list(field.get("quality"))
    if quality:
        prop["quality"] = Node(quality, field.require("quality").origin)
    nested = field.get("fields")
    if nested is not None and nested.value is not None:
        # an object's fields are its properties, an array's items its items (dcs_importer)
        inner = [_property(n, f, []) for n, f in nested.as_mapping("fields (a mapping)").items()]
        prop["properties"] = Node(inner, nested.origin)
    items = field.get("items")
    if items is not None and items.value is not None:
        prop["items"] = _property("item", items, [])
    references = field.get("references")
    if references is not None and references.value is not None:
        # datacontract-cli's import: a foreign key relationship to the field it names
        relationship = Node({"to": references}, references.origin)
        prop["relationships"] = Node([relationship], references.origin)
    return Node(prop, field.origin)


def _type(field: Node) -> Node | None:
    """The field's type as a physical type (a ``config`` type wins)."""
    config = field.get("config")
    if config is not None and isinstance(config.value, dict):
        for key in TYPE_KEYS:
            if config.get(key) is not None:
                return config.require(key)
    node = field.get("type")
    if node is None:
        return None
    written = node.as_str("a field type")
    precision, scale = field.get("precision"), field.get("scale")
    if written.lower() in ("decimal", "numeric") and precision is not None and scale is not None:
        p = precision.as_int("a precision", minimum=1)
        s = scale.as_int("a scale", minimum=0)
        return Node(f"decimal({p},{s})", node.origin, node.text)
    return node


def _quality_list(node: Node | None) -> list[Node]:
    """A quality list with ODCS's names of the comparators."""
    if node is None or node.value is None:
        return []
    if isinstance(node.value, dict):
        raise node.error(
            "a model's or field's 'quality' is a list of quality checks",
            hint="the 0.9 form {type: SodaCL, specification: ...} is the contract's own 'quality'",
        )
    entries = []
    for item in node.as_list("a list of quality checks"):
        if isinstance(item.value, dict):
            renamed = {RENAMED.get(k, k): v for k, v in item.value.items()}
            item = Node(renamed, item.origin, item.text)
        entries.append(item)
    return entries


def _soda_sections(node: Node | None, models: dict[str, Node]) -> dict[str, list[Node]]:
    """The 0.9.x top-level ``quality: {type: SodaCL, specification: ...}``: each model's
    sections as a custom soda quality entry of that model."""
    if node is None or node.value is None:
        return {}
    node.as_mapping("the contract's quality ({type: SodaCL, specification: ...})")
    _keys(node, frozenset({"type", "specification", "description"}), "quality key")
    kind = node.require("type")
    if kind.as_str("a quality type") != "SodaCL":
        raise kind.error(
            f"quality type '{kind.value}' is not supported",
            hint="the contract's own 'quality' is run when of type SodaCL",
        )
    spec = embedded(node.require("specification"))
    sections = spec.as_mapping("a SodaCL checks file ('checks for <model>:' sections)")
    filters = {h: c for h, c in sections.items() if h.startswith("filter ")}
    found: dict[str, list[Node]] = {}
    for header, content in sections.items():
        if header in filters:
            continue
        dataset = header.removeprefix("checks for ").split(" [")[0].strip()
        if not header.startswith("checks for ") or dataset not in models:
            raise content.error(
                f"'{header}': a section of the contract's SodaCL checks names a model",
                hint="models: " + ", ".join(models),
            )
        mine = {h: c for h, c in filters.items() if h.split(" ")[1] == dataset}
        implementation = Node({**mine, header: content}, spec.origin)
        entry = {
            "type": Node("custom", kind.origin),
            "engine": Node("soda", kind.origin),
            "implementation": implementation,
        }
        found.setdefault(dataset, []).append(Node(entry, node.origin))
    return found

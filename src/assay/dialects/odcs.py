"""A data contract -> one IR table per schema object (docs/dialects.md, "Data
contracts"): the Open Data Contract Standard v3 (``apiVersion: v3.x``, ``kind:
DataContract``) and datacontract.com's specification (``dataContractSpecification``,
read by :mod:`assay.dialects.odcs_dcs`).

The file is checked against its standard's JSON Schema before anything else
(:mod:`assay.dialects.odcs_validation`); its schema objects are tables
(:mod:`assay.dialects.odcs_tables`).
"""

from __future__ import annotations

from assay.config.node import Node
from assay.dialects import odcs_dcs, odcs_validation
from assay.dialects.base import Context, Dialect
from assay.dialects.odcs_tables import chosen_server, contract_tables
from assay.ir.suite import Table

NAME = "odcs"
DESCRIPTIVE = frozenset(
    {"version", "id", "name", "tenant", "tags", "status", "dataProduct", "description",
     "domain", "context", "support", "price", "team", "roles", "slaDefaultElement",
     "slaProperties", "authoritativeDefinitions", "customProperties", "contractCreatedTs"}
)  # fmt: skip
"""Top-level keys of a contract that describe it: read and ignored."""


def matches(doc: Node) -> bool:
    """An ODCS contract (``kind: DataContract`` with ``apiVersion``) or a datacontract.com
    one (``dataContractSpecification``)."""
    value = doc.value
    if not isinstance(value, dict):
        return False
    if "dataContractSpecification" in value:
        return True
    kind = value.get("kind")
    return "apiVersion" in value and kind is not None and kind.value == "DataContract"


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """One table per schema object of the contract."""
    if "dataContractSpecification" in doc.as_mapping():
        return odcs_dcs.build(doc, ctx)
    version_node = doc.require("apiVersion")
    version = version_node.as_str("an ODCS apiVersion (v3.0.2, v3.1.0, v3.2.0)")
    schema = odcs_validation.ODCS_SCHEMAS.get(version)
    if schema is None:
        raise version_node.error(
            f"ODCS apiVersion '{version}' is not supported",
            hint="assay reads ODCS " + ", ".join(odcs_validation.ODCS_SCHEMAS),
        )
    odcs_validation.validate(doc, schema, f"ODCS {version}")
    objects = doc.get("schema")
    servers = doc.get("servers")
    named = [(str(s.require("server").value), s) for s in servers.as_list()] if servers else []
    server = chosen_server(doc, named, ctx)
    return contract_tables(objects.as_list() if objects is not None else [], server, ctx)


DIALECT = Dialect(
    name=NAME,
    shape="a data contract (ODCS: 'apiVersion' and 'kind: DataContract'; or "
    "datacontract.com's 'dataContractSpecification')",
    matches=matches,
    build=build,
)

"""JSON Schemas: of the native config format (generated, :mod:`assay.schema.generate`)
and of the events on stdout (``events.schema.json``)."""

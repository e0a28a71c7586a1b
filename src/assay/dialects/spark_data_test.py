"""spark-data-test's ``ComparisonJobConfig`` (JSON or YAML) -> dataset comparisons with
its semantics and its four reports (docs/compare.md).

Read as its code reads it (``dacite.from_dict``, not strict): keys it does not know are
ignored, defaults are its dataclasses' defaults. Where its README and its code disagree,
both spellings are accepted (``difference_margin``, ``difference_tolerance``).
"""

from __future__ import annotations

from decimal import Decimal

from assay.config.node import Node
from assay.dialects.base import Context, Dialect
from assay.errors import ConfigError, ConfigErrors
from assay.ir.compare import CompareCheck, DatasetComparison, NumericTolerance, SdtReports
from assay.ir.suite import CatalogSource, PathSource
from assay.ir.values import Comparison, Op

TABLE_FORMAT = "table"
"""``file_format: table`` reads ``path`` as a catalog table (its ``read_dataframe``)."""


def matches(doc: Node) -> bool:
    """A mapping with ``job_name`` and ``dataset_configs``."""
    return isinstance(doc.value, dict) and {"job_name", "dataset_configs"} <= doc.value.keys()


def build(doc: Node, ctx: Context) -> tuple:
    """No tables: the job's comparisons go to ``ctx.comparisons``."""
    job = doc.require("job_name").as_str("a job name")
    reports = ctx.attempt(_reports, doc.require("output_config"), job, ctx)
    items = doc.require("dataset_configs").as_list("a list of dataset configs", non_empty=True)
    first: DatasetComparison | None = None
    for item in items:
        built = ctx.attempt(_dataset, item, reports, ctx)
        if built is None:
            continue
        # Its row-level report is the datasets' union by position (keys first): as in
        # spark-data-test, every dataset of a job needs as many keys (it fails at the
        # write, NUM_COLUMNS_MISMATCH; here before any scan).
        if first is not None and len(built.keys) != len(first.keys):
            ctx.attempt(_refuse_key_count, item, first, built)
            continue
        first = first or built
        ctx.comparisons.append(built)
    return ()


def _refuse_key_count(item: Node, first: DatasetComparison, built: DatasetComparison) -> None:
    raise item.error(
        f"dataset {built.name} has {len(built.keys)} primary keys and dataset {first.name}"
        f" {len(first.keys)}: one job's row-level report unions its datasets by position,"
        " so they need as many keys (put them in separate jobs)"
    )


def _str(node: Node, key: str, what: str, default: str | None = None) -> str:
    child = node.get(key)
    if child is None:
        if default is None:
            raise node.error(f"missing '{key}' ({what})")
        return default
    return child.as_str(what)


def _options(node: Node | None) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    found = []
    for key, value in node.as_mapping("a mapping of Spark option to value").items():
        v = value.value
        found.append((key, ("true" if v else "false") if isinstance(v, bool) else str(v)))
    return tuple(found)


def _path(path: str, ctx: Context) -> str:
    from assay.dialects.sources import resolve

    return resolve(path, ctx.base_dir)


def _reports(node: Node, job: str, ctx: Context) -> SdtReports:
    node.as_mapping("an output config (a mapping with 'output_dir')")
    partitions = node.get("no_of_partitions")
    return SdtReports(
        job_name=job,
        output_dir=_path(_str(node, "output_dir", "a directory"), ctx),
        format=_str(node, "output_file_format", "a Spark data source format", "parquet"),
        options=_options(node.get("spark_options")),
        partitions=partitions.as_int("a number of partitions") if partitions is not None else -1,
        origin=node.origin,
    )


def _side(node: Node, ctx: Context) -> CatalogSource | PathSource:
    node.as_mapping("a dataframe config (a mapping with 'path')")
    path = _str(node, "path", "a path or, with file_format table, a table name")
    fmt = _str(node, "file_format", "a Spark data source format", "parquet")
    if fmt == TABLE_FORMAT:
        return CatalogSource(path)
    return PathSource(fmt, (_path(path, ctx),), _options(node.get("spark_options")))


def _columns(node: Node | None, what: str) -> tuple[str, ...] | None:
    if node is None:
        return None
    return tuple(item.as_str(what) for item in node.as_list(f"a list of {what}s"))


def _tolerance(params: Node) -> NumericTolerance:
    test = params.get("test_params")
    if test is None:
        return NumericTolerance()
    test.as_mapping("test params (a mapping with 'difference_tolerance')")
    given = [k for k in ("difference_tolerance", "difference_margin") if test.get(k) is not None]
    if len(given) == 2:
        raise test.error(
            "give 'difference_tolerance' or its README name 'difference_margin', not both"
        )
    if not given:
        return NumericTolerance()
    node = test.require(given[0])
    value = Decimal(str(node.as_number("a tolerance")))
    if not value.is_finite() or value < 0:
        # spark-data-test compares |source - target| <= tolerance: below 0 nothing matches
        raise node.error(f"a tolerance must be a finite number >= 0, got {value}")
    return NumericTolerance(absolute=value)


def _dataset(node: Node, reports: SdtReports | None, ctx: Context) -> DatasetComparison:
    node.as_mapping("a dataset config (params, source_config, target_config)")
    errors: list[ConfigError] = []
    params = node.require("params")
    params.as_mapping("dataset params (dataset_name, primary_keys, ...)")
    name = _str(params, "dataset_name", "a dataset name")
    keys = _columns(params.require("primary_keys"), "primary key")
    select_cols = _columns(params.get("select_cols"), "column")
    drop_cols = _columns(params.get("drop_cols"), "column") or ()
    tolerance = _tolerance(params)
    sides = []
    for key in ("source_config", "target_config"):
        try:
            sides.append(_side(node.require(key), ctx))
        except ConfigError as e:
            errors.append(e)
    if errors:
        raise ConfigErrors(errors)
    if not keys:
        raise params.require("primary_keys").error("expected at least one primary key")
    # Its test_status: PASSED when both row counts equal the matched count.
    check = CompareCheck("unreconciled", Comparison(Op.EQ, Decimal(0), "= 0"), node.origin)
    return DatasetComparison(
        name=name,
        source=sides[0],
        target=sides[1],
        keys=keys,
        origin=node.origin,
        select_cols=select_cols if select_cols != ("*",) else None,
        drop_cols=drop_cols,
        tolerance=tolerance,
        checks=(check,),
        semantics="spark-data-test",
        reports=reports,
        places=node.places(
            {
                "keys": "params.primary_keys",
                "columns": "params.select_cols",
                "source.format": "source_config.file_format",
                "target.format": "target_config.file_format",
            }
        ),
    )


DIALECT = Dialect(
    name="spark-data-test",
    shape="a spark-data-test comparison job (a mapping with 'job_name' and 'dataset_configs')",
    matches=matches,
    build=build,
)

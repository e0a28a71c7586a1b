"""A unit's writes all land or none does (assay.executor.staging), on the real server:
each save mode's commit, a failure before and during the commit, what is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import SparkFailure
from assay.executor.staging import Staging, local_path, shares_filesystem

pytestmark = pytest.mark.spark


def _write(spark, rows: list[int], place: str, mode: str | None = None) -> None:
    writer = spark.createDataFrame([(r,) for r in rows], "n int").write.format("parquet")
    (writer.mode(mode) if mode else writer).save(place)


def _rows(spark, path: Path) -> list[int]:
    return sorted(r.n for r in spark.read.parquet(str(path)).collect())


def _everything(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_the_test_server_shares_the_filesystem(spark):
    assert shares_filesystem(spark)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/data/out", Path("/data/out")),
        ("file:///data/out", Path("/data/out")),
        ("s3a://bucket/out", None),
        ("hdfs:///out", None),
        ("relative/out", None),
    ],
)
def test_local_path(target, expected):
    assert local_path(target) == expected


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("overwrite", [7, 8]), ("append", [1, 2, 7, 8]), ("ignore", [1, 2])],
)
def test_commit_applies_the_save_mode_to_an_existing_target(spark, tmp_path, mode, expected):
    target = tmp_path / "out"
    _write(spark, [1, 2], str(target))
    with Staging(spark) as staging:
        place = staging.place(str(target), "parquet", mode)
        assert staging.staged(place) and Path(place).parent == tmp_path
        _write(spark, [7, 8], place)
        assert _rows(spark, target) == [1, 2]  # nothing moves before the commit
        staging.commit()
    assert _rows(spark, target) == expected
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # nothing staged or set aside left


def test_a_new_target_and_its_directories_appear_at_the_commit(spark, tmp_path):
    target = tmp_path / "a" / "b" / "out"
    with Staging(spark) as staging:
        place = staging.place(str(target), "parquet", None)
        _write(spark, [3], place)
        assert not target.exists()
        staging.commit()
    assert _rows(spark, target) == [3]
    assert (target / "_SUCCESS").exists()


def test_an_existing_target_under_save_mode_error_fails_the_unit_before_anything_moves(
    spark, tmp_path
):
    taken = tmp_path / "taken"
    _write(spark, [1], str(taken))
    fresh = tmp_path / "fresh"
    replaced = tmp_path / "replaced"
    _write(spark, [5], str(replaced))
    before = _everything(tmp_path)
    with pytest.raises(SparkFailure, match="already exists"), Staging(spark) as staging:
        _write(spark, [2], staging.place(str(fresh), "parquet", None))
        _write(spark, [6], staging.place(str(replaced), "parquet", "overwrite"))
        _write(spark, [3], staging.place(str(taken), "parquet", "error"))
        staging.commit()
    assert _everything(tmp_path) == before  # no fresh, replaced as it was, nothing staged
    assert _rows(spark, replaced) == [5] and _rows(spark, taken) == [1]


def test_a_failed_write_leaves_nothing_of_the_unit(spark, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory\n")
    first = tmp_path / "made" / "for" / "first"
    with pytest.raises(Exception), Staging(spark) as staging:  # noqa: B017 - Spark's own
        _write(spark, [1], staging.place(str(first), "parquet", "overwrite"))
        assert (tmp_path / "made").exists()  # Spark made the staging path's parents
        _write(spark, [2], staging.place(str(blocker / "second"), "parquet", "overwrite"))
        staging.commit()
    assert _everything(tmp_path) == ["blocker"]  # the directories made for it are gone too


def test_a_failed_move_puts_back_what_moved(spark, tmp_path):
    old = tmp_path / "old"
    _write(spark, [1], str(old))
    clash = tmp_path / "clash"
    _write(spark, [2], str(clash))
    with pytest.raises(SparkFailure, match="cannot move"), Staging(spark) as staging:
        _write(spark, [9], staging.place(str(old), "parquet", "overwrite"))
        place = staging.place(str(clash), "parquet", "append")
        _write(spark, [3], place)
        # a staged file whose name the target already has: the append cannot move it
        part = next(Path(place).glob("part-*"))
        (clash / part.name).write_bytes(part.read_bytes())
        staging.commit()
    assert _rows(spark, old) == [1]  # overwritten, then put back
    assert not [p for p in _everything(tmp_path) if "assay-" in p]


@pytest.mark.parametrize(
    ("target", "fmt", "is_table"),
    [("db.report", "parquet", True), ("s3a://b/out", "parquet", False), ("/x/d", "delta", False)],
)
def test_what_cannot_be_moved_is_written_in_place(spark, target, fmt, is_table):
    staging = Staging(spark)
    assert staging.place(target, fmt, "overwrite", is_table) == target
    assert not staging.staged(target)

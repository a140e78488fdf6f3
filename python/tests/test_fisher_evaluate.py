"""ordinate.spark.fisher_distances and ordinate.spark.evaluate in local[2]
mode against the one-machine CLI on the same files, bit for bit, and their
failures."""

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ordinate
from ordinate import describe
from ordinate import OrdinateError
from ordinate import spark as ospark

REPO = Path(__file__).resolve().parents[2]
SONAR = REPO / "testdata" / "similarity" / "aural_sonar.parquet"
THYROID = str(REPO / "testdata" / "ordinal" / "newthyroid.csv")
THYROID = REPO / "testdata" / "ordinal" / "newthyroid.csv"


def sorted_pairs(t):
    return t.select(["i", "j", "distance"]).sort_by([("i", "ascending"), ("j", "ascending")])


def same_bits(got, want):
    assert got.num_rows == want.num_rows
    for name in want.column_names:
        g, w = got.column(name).to_numpy(), want.column(name).to_numpy()
        if g.dtype == np.float64:
            assert np.array_equal(g.view(np.int64), w.view(np.int64)), name
        else:
            assert np.array_equal(g, w), name


@pytest.mark.parametrize("tiles,upper", [(1, True), (3, True), (2, False)])
def test_fisher_tiles_match_cli(spark, tmp_path, tiles, upper):
    opts = {"id": "id", "label": "label", "upper": upper}
    df = ospark.fisher_distances(str(SONAR), tiles=tiles, session=spark, **opts)
    assert df.columns == ["i", "j", "distance"]
    # One task per tile.
    assert df.rdd.getNumPartitions() == (tiles * (tiles + 1) // 2 if upper else tiles * tiles)
    got = sorted_pairs(ospark._collect(df))
    out = tmp_path / "fisher.parquet"
    ordinate.run(["fisher", "--similarity", SONAR, "--out", out, "--quiet", *describe.flags("fisher", opts)])
    want = sorted_pairs(pq.read_table(out))
    same_bits(got, want)
    assert want.num_rows == (100 * 99 // 2 if upper else 100 * 99)


@pytest.mark.parametrize("tiles,upper", [(2, True), (3, False)])
def test_fisher_local_tiles_match_cli(spark, tmp_path, tiles, upper):
    """The local mode (a feature table, a kernel and neighbours) in tiles: the
    driver writes the lists and σ once, the tasks sum their tiles."""
    opts = {"label": "label", "kernel": "rbf", "neighbors": 40, "upper": upper}
    df = ospark.fisher_distances(features=THYROID, tiles=tiles, session=spark, **opts)
    assert df.rdd.getNumPartitions() == (tiles * (tiles + 1) // 2 if upper else tiles * tiles)
    got = sorted_pairs(ospark._collect(df))
    out = tmp_path / "fisher.parquet"
    ordinate.run(["fisher", "--in", THYROID, "--out", out, "--quiet", *describe.flags("fisher", opts)])
    want = sorted_pairs(pq.read_table(out))
    same_bits(got, want)
    assert want.num_rows > 0


def test_fisher_options_checked_on_driver(spark):
    with pytest.raises(OrdinateError) as e:
        ospark.fisher_distances(str(SONAR), tiles=2, session=spark, id="id", label="no_such_label")
    assert "no_such_label" in e.value.stderr
    with pytest.raises(ValueError, match="tile"):
        ospark.fisher_distances(str(SONAR), tiles=2, session=spark, tile="0,0/2")
    with pytest.raises(ValueError, match="tiles"):
        ospark.fisher_distances(str(SONAR), tiles=0, session=spark)
    with pytest.raises(OrdinateError, match="no such file"):
        ospark.fisher_distances(str(SONAR) + ".missing", tiles=2, session=spark)
    with pytest.raises(ValueError, match="one of them"):
        ospark.fisher_distances(str(SONAR), features=THYROID, tiles=2, session=spark)
    with pytest.raises(OrdinateError) as e:
        ospark.fisher_distances(str(SONAR), tiles=2, session=spark, id="id", label="label", neighbors=5)
    assert "--neighbors" in e.value.stderr


@pytest.fixture(scope="module")
def thyroid_tsne(tmp_path_factory):
    d = tmp_path_factory.mktemp("evaluate")
    emb = d / "tsne.parquet"
    ordinate.run(["tsne", "--in", THYROID, "--label", "label", "--out", emb, "--quiet"])
    return emb


@pytest.mark.parametrize("blocks", [1, 4, 7])
def test_evaluate_blocks_match_cli(spark, thyroid_tsne, tmp_path, blocks):
    opts = {"label": "label", "ordinal": True, "k": [3, 10, 30]}
    got = ospark._collect(ospark.evaluate(str(thyroid_tsne), str(THYROID), blocks=blocks, session=spark, **opts))
    out = tmp_path / "metrics.parquet"
    ordinate.run(["evaluate", "--embedding", thyroid_tsne, "--in", THYROID, "--out", out, "--quiet", *describe.flags("evaluate", opts)])
    want = pq.read_table(out)
    assert got.column_names == ["metric", "k", "subset", "value"]
    assert got.num_rows == want.num_rows > 30
    # Same rows in the same order, the same bits.
    for name in ["metric", "k", "subset"]:
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name
    same_bits(got.select(["value"]), want.select(["value"]))


def test_evaluate_task_failure_carries_stderr(spark, thyroid_tsne):
    df_err = None
    with pytest.raises(Exception) as e:
        ospark.evaluate(str(thyroid_tsne), str(THYROID), blocks=2, session=spark, label="no_such_label")
    df_err = str(e.value)
    assert "DataError" in df_err and "no_such_label" in df_err  # OrdinateError of the data kind: a column the table lacks


def test_evaluate_more_blocks_than_points(spark, thyroid_tsne):
    with pytest.raises(Exception, match="a block would be empty"):
        ospark.evaluate(str(thyroid_tsne), str(THYROID), blocks=216, session=spark, label="label")


def test_flags():
    assert describe.flags("fisher", {"upper": True, "exclude_endpoints": False, "id": None, "steps": 5}) == [
        "--upper", "--exclude-endpoints=false", "--steps", "5"]
    assert describe.flags("evaluate", {"k": [5, 10]}) == ["--k", "5,10"]


def test_evaluate_transform_output_folder(spark, tmp_path):
    """The pipeline as a user runs it: transform on Spark writes a folder of
    parts, and evaluate scores that folder (shipped as a folder)."""
    import pyarrow.csv as pacsv

    t = pacsv.read_csv(THYROID)
    t = t.append_column("id", pa.array(np.arange(t.num_rows, dtype=np.int64) * 11))
    table = tmp_path / "thyroid.parquet"
    pq.write_table(t, table)
    model = tmp_path / "pca.model.parquet"
    ordinate.run(["pca", "--in", table, "--id", "id", "--label", "label", "--out", tmp_path / "pca.parquet",
                  "--model-out", model, "--quiet"])
    df = spark.read.parquet(str(table)).repartition(3)
    folder = tmp_path / "emb"
    ospark.transform(df, str(model), id="id").write.parquet(str(folder))
    opts = {"id": "id", "label": "label", "k": [5]}
    for _ in range(2):  # shipping the same folder again is a no-op
        got = ospark._collect(ospark.evaluate(str(folder), str(table), blocks=3, session=spark, **opts))
    out = tmp_path / "metrics.parquet"
    ordinate.run(["evaluate", "--embedding", folder, "--in", table, "--out", out, "--quiet", *describe.flags("evaluate", opts)])
    want = pq.read_table(out)
    assert got.column("metric").to_pylist() == want.column("metric").to_pylist()
    same_bits(got.select(["value"]), want.select(["value"]))

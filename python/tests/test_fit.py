"""ordinate.spark.fit in local Spark against the CLI's fit of the same rows
on one machine: the models place the rows within 1e-12 relative."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import ordinate
from ordinate import OrdinateError
from ordinate import spark as ospark

from thyroid import noisy_rows

TOL = 1e-12


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """A four-file Parquet dataset of 3,000 rows around newthyroid's, with
    an id and a text grade."""
    import pyarrow as pa

    d = tmp_path_factory.mktemp("fit")
    rng = np.random.default_rng(38)
    n = 3000
    cols = {"id": np.arange(n, dtype=np.int64), **noisy_rows(rng, n)}
    cols["grade"] = np.array(["low", "mid", "high"])[cols["label"] - 1]
    table = pa.table(cols)
    parts = d / "parts"
    parts.mkdir()
    for i, start in enumerate(range(0, n, 750)):
        pq.write_table(table.slice(start, 750), parts / f"part-{i}.parquet", row_group_size=200)
    return {"dir": d, "parts": parts}


def placed(model, parts, out):
    ordinate.run(["apply", "--model", model, "--in", parts, "--id", "id", "--out", out, "--quiet"])
    t = pq.read_table(out).sort_by("id")
    return np.column_stack([t.column(c).to_numpy() for c in t.column_names if c.startswith("emb_")])


def cli_fit(method, rows, out, options):
    ordinate.run([method, "--in", rows["parts"], "--out", out.with_suffix(".emb.parquet"), "--model-out", out,
                  "--stream", "off", "--quiet", *ordinate.describe.flags(method, options)])
    return out


@pytest.mark.parametrize("method,options", [
    ("bvp", {"label": "grade", "order": ["low", "mid", "high"]}),
    ("bvp", {"label": "label", "dims": 3, "features": ["x1", "x2", "x3", "x4"]}),
    ("pca", {"label": "label", "standardize": False}),
    ("lda", {"label": "grade", "shrinkage": 1e-3}),
])
def test_fit_matches_cli(spark, rows, tmp_path, method, options):
    # More partitions than files, in shuffled order: the statistics of
    # other splits of the rows.
    df = spark.read.parquet(str(rows["parts"])).repartition(7)
    model = ospark.fit(df, method, model_out=tmp_path / "spark.model.parquet", **options)
    assert model == str(tmp_path / "spark.model.parquet")
    want = placed(cli_fit(method, rows, tmp_path / "cli.model.parquet", options), rows["parts"], tmp_path / "cli.parquet")
    got = placed(model, rows["parts"], tmp_path / "spark.parquet")
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    assert err <= TOL, f"{method}: placed rows differ by {err:.3g} relative"
    # The model records how it was fitted: from the partitions' partials,
    # every row once.
    prov = json.loads(pq.read_schema(model).metadata[b"ordinate"])
    [inp] = prov["inputs"]
    assert (prov["stage"], inp["role"], inp["kind"], inp["rows"]) == (method, "from-partials", "partials", 3000)
    assert len(inp["files"]) == 7


def test_fit_refusals(spark, rows, tmp_path):
    df = spark.read.parquet(str(rows["parts"]))
    with pytest.raises(ValueError, match="bvp, pca, lda"):
        ospark.fit(df, "tsne", label="label")
    with pytest.raises(ValueError, match="fit sets stream itself"):
        ospark.fit(df, "pca", stream="on")
    with pytest.raises(TypeError, match="no option 'lable'"):
        ospark.fit(df, "lda", lable="label")
    with pytest.raises(Exception, match="nope"):  # the executors' error, with the binary's message
        ospark.fit(df, "lda", label="nope")
    with pytest.raises(OrdinateError, match="no rows"):
        ospark.fit(df.limit(0), "pca")
    with pytest.raises(OrdinateError, match="order"):
        ospark.fit(df, "bvp", label="grade")  # text labels need an order

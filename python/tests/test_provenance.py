"""Provenance that survives pyarrow and pandas.

Every output of ordinate carries its provenance (and a model its header) in
its Arrow schema metadata, the Parquet footer's stored Arrow schema
included, which is where pyarrow reads a Parquet file's schema metadata from
and writes it back to. A table read with pyarrow or pandas, filtered and
written back with pyarrow (with its schema metadata) keeps the very JSON,
which `ordinate inspect` shows; one whose rows were all kept (sorted, a
column added) is scored by `ordinate evaluate` in the space the embedding
was fitted in, with no options. (evaluate scores an embedding against the
whole table it was made from, and refuses a subset of its rows whatever the
provenance says.)
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import ordinate

REPO = Path(__file__).resolve().parents[2]
THYROID = REPO / "testdata" / "ordinal" / "newthyroid.csv"
FEATURES = "x1,x2,x3,x4,x5"


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """newthyroid with an id and a loud numeric column that the fit leaves
    out (evaluate would use it by default, without the fitted space), and a
    PCA fitted on x1..x5: (folder, input, embedding, model)."""
    d = tmp_path_factory.mktemp("provenance")
    t = pacsv.read_csv(THYROID)
    n = t.num_rows
    rng = np.random.default_rng(35)
    t = t.add_column(0, "id", pa.array([f"r{i}" for i in range(n)]))
    t = t.append_column("noise", pa.array(rng.normal(scale=1000.0, size=n)))
    inp = d / "in.parquet"
    pq.write_table(t, inp)
    emb, model = d / "pca.parquet", d / "pca.model.parquet"
    ordinate.run(["pca", "--in", inp, "--id", "id", "--label", "label", "--features", FEATURES,
                  "--out", emb, "--model-out", model, "--quiet"])
    return d, inp, emb, model


def provenance(metadata):
    assert metadata is not None and b"ordinate" in metadata, f"no provenance in {metadata and list(metadata)}"
    return json.loads(metadata[b"ordinate"])


def inspect(path):
    return json.loads(ordinate.run(["inspect", "--json", path]))


def metrics(emb, inp, out, *options):
    ordinate.run(["evaluate", "--embedding", emb, "--in", inp, "--id", "id", "--label", "label",
                  "--k", "5,10", "--out", out, "--quiet", *options])
    return pq.read_table(out)


def every_other_row(n):
    return pa.array([i % 2 == 0 for i in range(n)])


def test_pyarrow_reads_provenance(fitted):
    _, _, emb, model = fitted
    p = provenance(pq.read_table(emb).schema.metadata)
    assert p["stage"] == "pca" and p["kind"] == "embedding"
    assert p["rows_written"] == pq.read_metadata(emb).num_rows
    assert p["params"]["features"] == FEATURES.split(",")
    # The same as in the footer, where ordinate has always put it.
    assert pq.read_metadata(emb).metadata[b"ordinate"] == pq.read_table(emb).schema.metadata[b"ordinate"]
    md = pq.read_table(model).schema.metadata
    assert provenance(md)["kind"] == "model"
    assert json.loads(md[b"ordinate.model"])["stage"] == "pca"
    # pandas reads through pyarrow.
    assert provenance(pq.read_schema(emb).metadata)["run_id"] == p["run_id"]


def write_back(how, emb, path, keep_rows):
    """Reads emb with pyarrow or pandas, keeps every other row (or, with
    keep_rows, sorts the rows and adds a column), and writes it back with
    pyarrow. Returns the table read."""
    t = pq.read_table(emb)
    if how == "pyarrow":
        if keep_rows:
            back = t.sort_by([("emb_0", "descending")])
            back = back.append_column("note", pa.array(["kept"] * back.num_rows))
        else:
            back = t.filter(every_other_row(t.num_rows))
    else:
        df = pd.read_parquet(emb)
        if keep_rows:
            df = df.sort_values("emb_0", ascending=False)
            df["note"] = "kept"
            schema = t.schema.append(pa.field("note", pa.string()))
        else:
            df = df[np.arange(len(df)) % 2 == 0]
            schema = t.schema
        # A DataFrame has no schema metadata: the table it came from has.
        back = pa.Table.from_pandas(df, schema=schema, preserve_index=False)
    assert back.num_rows == (t.num_rows if keep_rows else (t.num_rows + 1) // 2)
    pq.write_table(back, path)
    return t


@pytest.mark.parametrize("how", ["pyarrow", "pandas"])
def test_filtered_round_trip_keeps_provenance(fitted, how):
    d, _, emb, _ = fitted
    back = d / f"{how}-subset.parquet"
    original = write_back(how, emb, back, keep_rows=False).schema.metadata[b"ordinate"]

    # The very JSON, in pyarrow's schema and footer and in inspect.
    assert pq.read_table(back).schema.metadata[b"ordinate"] == original
    assert pq.read_metadata(back).metadata[b"ordinate"] == original
    assert inspect(back)["provenance"] == json.loads(original)


@pytest.mark.parametrize("how", ["pyarrow", "pandas"])
def test_round_trip_keeps_fitted_space(fitted, how):
    d, inp, emb, _ = fitted
    back = d / f"{how}-sorted.parquet"
    original = provenance(write_back(how, emb, back, keep_rows=True).schema.metadata)
    assert inspect(back)["provenance"]["run_id"] == original["run_id"]

    # evaluate finds the fitted space: x1..x5 standardised, not the
    # default columns (which would take in the loud noise column); rows
    # are matched by id.
    m = metrics(back, inp, d / f"{how}-metrics.parquet")
    explicit = metrics(back, inp, d / f"{how}-explicit.parquet", "--features", FEATURES, "--standardize", "true")
    assert m.column("metric").to_pylist() == explicit.column("metric").to_pylist()
    np.testing.assert_allclose(m.column("value").to_numpy(), explicit.column("value").to_numpy(), rtol=1e-12)
    used = provenance(m.schema.metadata)
    e = [i for i in used["inputs"] if i["role"] == "embedding"]
    assert e and e[0]["stage"] == "pca" and e[0]["run_id"] == original["run_id"]
    # And it scores the embedding as it was written.
    direct = metrics(emb, inp, d / f"{how}-direct.parquet")
    np.testing.assert_allclose(m.column("value").to_numpy(), direct.column("value").to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("ext", ["arrow", "arrows"])
def test_ipc_outputs_keep_provenance(fitted, ext):
    d, inp, _, _ = fitted
    out = d / f"pca.{ext}"
    ordinate.run(["pca", "--in", inp, "--id", "id", "--label", "label", "--features", FEATURES,
                  "--out", out, "--quiet"])
    with pa.OSFile(str(out), "rb") as f:
        t = (pa.ipc.open_file(f) if ext == "arrow" else pa.ipc.open_stream(f)).read_all()
    p = provenance(t.schema.metadata)
    assert p["stage"] == "pca"
    # Filtered and written back by pyarrow, as IPC and as Parquet.
    sub = t.filter(every_other_row(t.num_rows))
    ipc_back = d / f"ipc-subset.{ext}"
    with pa.OSFile(str(ipc_back), "wb") as f:
        w = pa.ipc.new_file(f, sub.schema) if ext == "arrow" else pa.ipc.new_stream(f, sub.schema)
        w.write_table(sub)
        w.close()
    pq_back = d / f"ipc-subset-{ext}.parquet"
    pq.write_table(sub, pq_back)
    for path in (ipc_back, pq_back):
        assert inspect(path)["provenance"]["run_id"] == p["run_id"], path

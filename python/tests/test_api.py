"""The in-memory API: every stage from ordinate.fit on pyarrow, pandas,
polars and numpy inputs, models that transform, pickle, save and load, and
no table written to disk."""

import os
import pickle
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import ordinate
from ordinate import OrdinateError

from thyroid import REPO, THYROID

CONTROL = REPO / "testdata" / "ckpca" / "thyroid-control.csv"
ZOO = REPO / "testdata" / "zoo" / "zoo.csv"


@pytest.fixture
def no_disk(tmp_path, monkeypatch):
    """A temporary directory for Python and the binary (TMPDIR) that must
    stay empty."""
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    yield d
    assert list(d.iterdir()) == [], "a table was written to disk"


def thyroid():
    return pacsv.read_csv(THYROID)


def as_type(table, kind):
    if kind == "pandas":
        return table.to_pandas()
    if kind == "polars":
        pl = pytest.importorskip("polars")
        return pl.from_arrow(table)
    return table


def triplets():
    """Triplets of zoo's animals, made by the binary in memory."""
    zoo = pacsv.read_csv(ZOO)
    return ordinate.fit("triplets", zoo, exclude=["animal_name", "type_name"], per_aspect=300).embedding


# Every stage that fits: the input, the options, whether it writes a model.
STAGES = [
    ("bvp", thyroid, {"label": "label"}, True),
    ("pca", thyroid, {"label": "label"}, True),
    ("lda", thyroid, {"label": "label"}, True),
    ("tsne", thyroid, {"label": "label", "perplexity": 20}, True),
    ("nerv", thyroid, {"label": "label"}, True),
    ("ckpca", lambda: pacsv.read_csv(CONTROL), {"label": "label", "control": ["cx", "cy"], "scale": "auto"}, True),
    ("lsp", lambda: pacsv.read_csv(CONTROL), {"label": "label", "control": ["cx", "cy"]}, True),
    ("fisher", thyroid, {"label": "label", "kernel": "rbf", "neighbors": 20}, True),
    ("triplets", lambda: pacsv.read_csv(ZOO), {"exclude": ["animal_name", "type_name"], "per_aspect": 200}, False),
    ("score", triplets, {}, False),
    ("soe", triplets, {}, False),
    ("tste", triplets, {}, False),
]


@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars"])
@pytest.mark.parametrize("stage,data,options,has_model", STAGES, ids=[s[0] for s in STAGES])
def test_every_stage_in_memory(no_disk, kind, stage, data, options, has_model):
    table = data()
    want = ordinate.fit(stage, table, **options).embedding if kind != "arrow" else None
    got = ordinate.fit(stage, as_type(table, kind), **options)
    emb = got.embedding
    if kind == "arrow":
        assert isinstance(emb, pa.Table) and emb.num_rows > 0
    else:
        # The caller's type back, with the same rows and bits.
        back = pa.Table.from_pandas(emb, preserve_index=False) if kind == "pandas" else emb.to_arrow()
        assert back.column_names == want.column_names
        for name in want.column_names:
            assert back.column(name).to_pylist() == want.column(name).to_pylist(), name
    assert (got.model is not None) == has_model, stage
    if has_model:
        assert got.model.stage == stage


def test_numpy_and_models(no_disk, tmp_path):
    t = thyroid()
    X = np.column_stack([t.column(f"x{j}").to_numpy() for j in range(1, 6)])
    y = t.column("label").to_numpy()
    fit = ordinate.fit("lda", X, label=y)
    assert isinstance(fit.embedding, np.ndarray) and fit.embedding.shape == (215, 2)
    # The same fit from the table with the columns x0 … x4 and label.
    named = pa.table({**{f"x{j}": X[:, j] for j in range(5)}, "label": y})
    ref = ordinate.fit("lda", named, label="label").embedding
    assert np.array_equal(fit.embedding, np.column_stack([ref.column("emb_0"), ref.column("emb_1")]))

    # A model pickles as its bytes, places new rows as the fit placed them,
    # and saves to every model format the binary reads.
    model = pickle.loads(pickle.dumps(fit.model))
    assert np.array_equal(model.transform(X), fit.embedding)
    for name in ["m.parquet", "m.arrow", "m.arrows"]:
        path = tmp_path / name
        fit.model.save(path)
        assert np.array_equal(ordinate.Model.load(path).transform(X), fit.embedding), name
    with pytest.raises(ValueError, match="label: 3 classes for 215 rows"):
        ordinate.fit("lda", X, label=y[:3])


def test_outputs_and_tables(no_disk):
    """Other outputs come back by role, other inputs go by role."""
    trip = triplets()
    fit = ordinate.fit("score", trip, outputs=["aspects-out", "sphere-out"])
    assert set(fit.outputs) == {"aspects-out", "sphere-out"}
    assert all(t.num_rows > 0 for t in fit.outputs.values())
    control = pacsv.read_csv(CONTROL).select(["cx", "cy"]).append_column("id", pa.array(range(215), pa.int64()))
    rows = pacsv.read_csv(CONTROL).drop_columns(["cx", "cy"]).append_column("id", pa.array(range(215), pa.int64()))
    control = control.filter(pa.compute.is_valid(control.column("cx")))
    got = ordinate.fit("lsp", rows, id="id", label="label", control_table=control, control=["cx", "cy"])
    want = ordinate.fit("lsp", pacsv.read_csv(CONTROL), label="label", control=["cx", "cy"])
    assert got.embedding.column("emb_0").to_pylist() == want.embedding.column("emb_0").to_pylist()


def test_errors(no_disk):
    with pytest.raises(TypeError, match="no option 'dimz'"):
        ordinate.fit("pca", thyroid(), dimz=3)
    with pytest.raises(ValueError, match="fit sets quiet itself"):
        ordinate.fit("pca", thyroid(), quiet=True)
    with pytest.raises(ValueError, match="writes no 'sphere-out'"):
        ordinate.fit("pca", thyroid(), outputs=["sphere-out"])
    bad = thyroid().set_column(0, "x1", pa.array([float("nan")] + [1.0] * 214))
    with pytest.raises(OrdinateError) as e:
        ordinate.fit("pca", bad)
    assert e.value.returncode == 2 and "x1" in e.value.stderr and "row 0" in e.value.stderr
    with pytest.raises(TypeError, match="want a pyarrow Table"):
        ordinate.fit("pca", [[1, 2], [3, 4]])
    with pytest.raises(OrdinateError, match="not a model"):
        ordinate.Model(b"not arrow")


@pytest.mark.parametrize("kind", ["arrow", "pandas", "polars"])
def test_evaluate_and_plot(no_disk, tmp_path, kind):
    """evaluate and plot in memory give the CLI's metrics and figure."""
    t = thyroid()
    fit = ordinate.fit("pca", as_type(t, kind), label="label")
    # A polars result cannot carry the fit's provenance: give the Fit.
    given = fit if kind == "polars" else fit.embedding
    metrics = ordinate.evaluate(given, as_type(t, kind), label="label", k=[5, 10])
    if kind == "pandas":
        metrics = pa.Table.from_pandas(metrics, preserve_index=False)
    elif kind == "polars":
        metrics = metrics.to_arrow()
    emb, out = tmp_path / "emb.parquet", tmp_path / "metrics.parquet"
    ordinate.run(["pca", "--in", THYROID, "--label", "label", "--out", emb, "--quiet"])
    ordinate.run(["evaluate", "--embedding", emb, "--in", THYROID, "--label", "label", "--k", "5,10", "--out", out, "--quiet"])
    import pyarrow.parquet as pq

    want = pq.read_table(out)
    assert metrics.column("metric").to_pylist() == want.column("metric").to_pylist()
    assert metrics.column("value").to_pylist() == want.column("value").to_pylist()

    fig = ordinate.plot(given, color="label")
    assert fig._repr_svg_().startswith("<?xml") and "</svg>" in fig._repr_svg_()
    fig.save(tmp_path / "fig.svg")
    assert (tmp_path / "fig.svg").read_bytes() == fig.svg


def test_error_kinds(no_disk):
    """Failures keep the binary's kind and place, and its stderr as the CLI
    writes it."""
    with pytest.raises(ordinate.OptionError) as e:
        ordinate.fit("pca", thyroid(), order=["1", "2", "3"])  # an order without a label: the binary's rule
    assert e.value.option == "order" and e.value.returncode == 2 and isinstance(e.value, ValueError)
    assert "ordinate: --order" in e.value.stderr and "{" not in e.value.stderr
    bad = thyroid().set_column(1, "x2", pa.array([1.0, float("inf")] + [1.0] * 213))
    with pytest.raises(ordinate.DataError) as e:
        ordinate.fit("pca", bad)
    assert (e.value.column, e.value.row) == ("x2", 1) and e.value.file == "-"
    with pytest.raises(ordinate.DataError) as e:
        ordinate.run(["pca", "--in", THYROID, "--features", "x1", "--exclude", "x2", "--on-invalid", "drop",
                      "--out", "-", "--dims", "1", "--id", "label"])  # ids repeat
    assert e.value.column == "label"
    # Python's own checks come first, as ValueError and TypeError.
    with pytest.raises(ValueError, match="dims"):
        ordinate.fit("pca", thyroid(), dims=0)


def test_warnings_and_progress(no_disk, capsys):
    """The binary's warnings arrive as Python warnings; progress=True shows
    its progress records (here without tqdm's bar, as lines, when tqdm is
    missing, or as tqdm's bar)."""
    t = thyroid().append_column("k", pa.array([3.0] * 215))  # a constant feature: dropped with a warning
    with pytest.warns(ordinate.OrdinateWarning, match='"k" is constant'):
        ordinate.fit("pca", t, label="label")
    fit = ordinate.fit("tsne", thyroid(), label="label", progress=True)
    assert fit.embedding.num_rows == 215

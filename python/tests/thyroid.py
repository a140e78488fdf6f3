"""Test data around newthyroid: models fitted on it, and rows drawn from its
rows with seeded noise."""

from pathlib import Path

import pyarrow.csv as pacsv

import ordinate

REPO = Path(__file__).resolve().parents[2]
THYROID = REPO / "testdata" / "ordinal" / "newthyroid.csv"
FEATURES = ["x1", "x2", "x3", "x4", "x5"]


def fit_models(d, stages=("pca", "tsne")):
    """stage -> path of the model each stage fits on newthyroid, in d."""
    models = {}
    for stage in stages:
        models[stage] = d / f"{stage}.model.parquet"
        if stage == "fisher-tsne":
            # A Fisher t-SNE map: the local Fisher metric, then t-SNE of its distances.
            ordinate.run(["fisher", "--in", THYROID, "--label", "label", "--kernel", "rbf", "--neighbors", "40",
                          "--exclude-endpoints", "--out", d / "fisher.parquet", "--model-out", d / "fisher.model.parquet", "--quiet"])
            ordinate.run(["tsne", "--distances", d / "fisher.parquet", "--fisher-model", d / "fisher.model.parquet",
                          "--out", d / f"{stage}.parquet", "--model-out", models[stage], "--quiet"])
            continue
        ordinate.run([stage, "--in", THYROID, "--label", "label", "--out", d / f"{stage}.parquet",
                      "--model-out", models[stage], "--quiet"])
    return models


def noisy_rows(rng, n):
    """Columns x1 … x5 and label of n rows drawn from newthyroid's rows, each
    feature with Gaussian noise of 5 % of its standard deviation."""
    base = pacsv.read_csv(THYROID)
    pick = rng.integers(0, base.num_rows, n)
    cols = {}
    for f in FEATURES:
        x = base.column(f).to_numpy()[pick]
        cols[f] = x + rng.normal(0, 0.05 * x.std(), n)
    cols["label"] = base.column("label").to_numpy()[pick]
    return cols

"""ordinate.sklearn: the estimators in scikit-learn's own checks, in
Pipelines and GridSearchCV, on numpy and pandas."""

import numpy as np
import pandas as pd
import pyarrow.csv as pacsv
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import ordinate
from ordinate.sklearn import BVP, CKPCA, LDA, LSP, PCA, TSNE, FisherTSNE, SoftClassNeRV

from thyroid import REPO, THYROID

# The checks that cannot hold for an embedding placed by optimisation, each
# with why: scikit-learn's own TSNE has no transform at all.
PLACED = {
    "check_transformer_general": "t-SNE and NeRV place new rows by optimisation against the fixed map, so "
    "transform of the training rows is not the map fit_transform returns (openTSNE's transform is the same)",
    "check_transformer_data_not_an_array": "as check_transformer_general: transform places rows against the map",
}


def expected_failed(est):
    return PLACED if isinstance(est, (TSNE, SoftClassNeRV, FisherTSNE)) else {}


# LSP is not among them: it needs control points (control=[…] columns of
# X), which the checks' arrays cannot name; test_lsp_with_control covers it.
@parametrize_with_checks([BVP(), PCA(), LDA(), CKPCA(), TSNE(), SoftClassNeRV(), FisherTSNE()],
                         expected_failed_checks=expected_failed)
def test_sklearn_checks(estimator, check):
    check(estimator)


def thyroid():
    t = pacsv.read_csv(THYROID).to_pandas()
    return t[[f"x{j}" for j in range(1, 6)]], t["label"].to_numpy()


def test_nerv_fit_transform_numpy_and_pandas():
    X, y = thyroid()
    for data in (X, X.to_numpy()):
        emb = SoftClassNeRV().fit(data, y).transform(data[:20] if isinstance(data, np.ndarray) else data.iloc[:20])
        assert emb.shape == (20, 2) and np.isfinite(emb).all()


def test_pipeline_in_grid_search():
    X, y = thyroid()
    pipe = Pipeline([("scale", StandardScaler()), ("bvp", BVP()), ("knn", KNeighborsClassifier())])
    grid = GridSearchCV(pipe, {"bvp__dims": [1, 2], "bvp__standardize": [True, False]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.8
    # The best pipeline places rows as the CLI's bvp does on the same scaled rows.
    emb = make_pipeline(StandardScaler(), BVP(dims=2)).fit(X, y).transform(X)
    assert emb.shape == (215, 2)


def test_linear_estimators_match_the_cli():
    X, y = thyroid()
    for est, stage in [(BVP(), "bvp"), (LDA(), "lda"), (PCA(), "pca")]:
        got = est.fit(X, y).transform(X)
        want = ordinate.fit(stage, pacsv.read_csv(THYROID), label="label").embedding
        assert np.array_equal(got, np.column_stack([want.column("emb_0"), want.column("emb_1")])), stage


def test_set_output_pandas():
    X, y = thyroid()
    out = LDA(dims=2).set_output(transform="pandas").fit(X, y).transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["emb_0", "emb_1"]


def test_lsp_with_control():
    t = pacsv.read_csv(REPO / "testdata" / "ckpca" / "thyroid-control.csv").to_pandas()
    X = t.drop(columns=["label"])
    emb = LSP(control=["cx", "cy"]).fit_transform(X)
    want = ordinate.fit("lsp", pacsv.read_csv(REPO / "testdata" / "ckpca" / "thyroid-control.csv"), label="label",
                        control=["cx", "cy"]).embedding
    assert np.allclose(emb, np.column_stack([want.column("emb_0"), want.column("emb_1")]), rtol=0, atol=1e-12)


def test_bad_parameters_fail_before_the_binary():
    X, y = thyroid()
    with pytest.raises(ValueError, match="solver"):
        BVP(solver="newton").fit(X, y)
    with pytest.raises(TypeError):
        BVP(dimz=2)


def test_fisher_tsne():
    """FisherTSNE is fisher's local metric, then t-SNE of its distances, as
    the CLI runs them; transform places new rows by their Fisher distances."""
    X, y = thyroid()
    est = FisherTSNE(neighbors=40)
    emb = est.fit_transform(X, y)
    t = pacsv.read_csv(THYROID)
    dist = ordinate.fit("fisher", t, label="label", kernel="rbf", neighbors=40, features=[f"x{j}" for j in range(1, 6)])
    want = ordinate.fit("tsne", None, distances=dist.table, fisher_model=dist.model, perplexity=40 / 3).embedding
    assert np.array_equal(emb, np.column_stack([want.column("emb_0"), want.column("emb_1")]))
    placed = est.transform(X.iloc[:10])
    assert placed.shape == (10, 2) and np.isfinite(placed).all()

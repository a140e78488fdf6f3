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
from sklearn.utils.estimator_checks import check_estimator

from ordinate.sklearn import BVP, CKPCA, LDA, LSP, PCA, SCORE, TSNE, FisherTSNE, SoftClassNeRV

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


# The checks of scikit-learn that apply to SCORE: its X is triplets of
# object ids, not a matrix of features, so every check that fits random
# float features (or compares n_features_in_ with a feature count, or wants
# a feature matrix's error messages) does not apply; those are the rest.
SCORE_APPLICABLE = {
    "check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types", "check_estimator_repr",
    "check_no_attributes_set_in_init", "check_estimators_unfitted", "check_do_not_raise_errors_in_init_or_set_params",
    "check_mixin_order", "check_complex_data", "check_estimator_sparse_tag", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_transformers_unfitted", "check_parameters_default_constructible",
    "check_get_params_invariance", "check_set_params", "check_fit1d",
}


def zoo_triplets():
    zoo = pacsv.read_csv(REPO / "testdata" / "zoo" / "zoo.csv")
    return ordinate.fit("triplets", zoo, exclude=["animal_name", "type_name"], per_aspect=300).embedding


def test_score_checks():
    """SCORE passes the checks that apply to an estimator of triplets; the
    others fail for the reason SCORE_APPLICABLE gives, and only those."""
    results = check_estimator(SCORE(max_iter=5), on_fail=None)
    ran = {r["check_name"] for r in results}
    assert SCORE_APPLICABLE <= ran, f"checks not run: {SCORE_APPLICABLE - ran}"
    bad = {r["check_name"]: r["exception"] for r in results
           if r["check_name"] in SCORE_APPLICABLE and r["status"] == "failed"}
    assert not bad, f"SCORE fails applicable checks: {bad}"


def test_score_matches_the_cli():
    """SCORE on a table and on an array of ids gives the maps of `ordinate
    score` bit for bit; transform looks objects up, aspect by aspect."""
    t = zoo_triplets()
    est = SCORE(seed=3, max_iter=50)
    assert est.fit(t) is est
    cli = ordinate.fit("score", t, seed=3, max_iter=50, outputs=["aspects-out", "sphere-out"])
    maps = cli.embedding.to_pandas()
    assert est.embedding_.shape == (17, 101, 2), est.embedding_.shape
    hair = maps[maps.aspect == "hair"].set_index("id").loc[list(est.objects_), ["emb_0", "emb_1"]].to_numpy()
    assert np.array_equal(est.map("hair"), hair)
    assert np.array_equal(est.sphere_, np.column_stack([cli.outputs["sphere-out"].column(c) for c in ("y_0", "y_1", "y_2")]))
    assert est.poles_.shape == (17, 3) and est.deltas_.shape == (17,)
    assert est.n_iter_ > 1

    rows = t.to_pandas()[["i", "j", "k", "aspect"]].to_numpy()
    again = SCORE(seed=3, max_iter=50).fit(rows)
    assert np.array_equal(again.embedding_, est.embedding_)

    got = est.transform([5, 0])
    assert got.shape == (2, 34)
    assert np.array_equal(got[1, :2], est.map("hair")[list(est.objects_).index("0")])
    names = est.get_feature_names_out()
    assert list(names[:3]) == ["hair:emb_0", "hair:emb_1", "feathers:emb_0"]
    df = SCORE(seed=3, max_iter=50).set_output(transform="pandas").fit(t).transform([5, 0])
    assert list(df.columns) == list(names) and np.array_equal(df.to_numpy(), got)
    with pytest.raises(ValueError, match="object '1000' is in no triplet"):
        est.transform([1000])
    with pytest.raises(ValueError, match="17 aspects"):
        est.map()


def test_score_single_map_and_objects():
    """Triplets without an aspect column form one map; objects= gives a
    place to objects in no triplet."""
    rows = zoo_triplets().to_pandas()[["i", "j", "k"]].to_numpy()[:2000]
    est = SCORE(objects=list(range(120)), max_iter=20).fit(rows)
    assert est.embedding_.shape[:2] == (1, 120)
    assert est.map().shape == (120, 2) and np.isfinite(est.map()).all()


@pytest.mark.parametrize("triplets, want", [
    (np.array([[0, 1, 2.5]]), "column k .* non-integer id 2.5 at row 0"),
    (np.array([[0, 1, 2], [0, np.nan, 2]]), "column j .* missing id at row 1"),
    (np.array([[0, 1]]), r"shape \(n, 3\) or \(n, 4\)"),
    (np.array([[0, 0, 1]]), "column \"i\", row 0: .*three different objects"),
])
def test_score_bad_triplets(triplets, want):
    with pytest.raises(ValueError, match=want):
        SCORE().fit(triplets)

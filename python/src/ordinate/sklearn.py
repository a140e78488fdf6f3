"""scikit-learn estimators of ordinate's methods, on the in-memory API.

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from ordinate.sklearn import BVP, SoftClassNeRV

    emb = SoftClassNeRV().fit(X, y).transform(X_new)       # placement of new rows
    make_pipeline(StandardScaler(), BVP(dims=2)).fit(X, y)

Each estimator's parameters are its method's keyword options, by the
binary's description (the names, defaults None: the binary's own default);
fit(X, y) runs the method on X (numpy: columns x0, x1, …; pandas: its
columns) with y as the label, transform(X) places rows with the fitted model
(`ordinate apply`: in closed form for the linear and kernel maps, by
optimisation against the fixed map for t-SNE and NeRV), and fit_transform
returns the fit's own embedding. Outputs are numpy arrays (set_output
gives pandas), with feature names emb_0, emb_1, ….
"""

import json

import numpy as np
import pyarrow as pa
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ordinate import api, describe

__all__ = ["BVP", "CKPCA", "FisherTSNE", "LDA", "LSP", "PCA", "SoftClassNeRV", "TSNE"]

# Options a scikit-learn estimator does not take: the columns come from X
# and y, and a fit in memory streams nothing.
_COLUMNS = {"id", "features", "exclude", "label", "keep", "on_invalid", "stream", "soft_labels"}

# The label column's name in the table built from X and y.
_Y = "__y__"


class _Ordinate(TransformerMixin, BaseEstimator):
    """The shared fit and transform; subclasses set _method and their
    parameters (generated from the method's options)."""

    _method = None
    _needs_y = False

    def _table(self, X, y, fitting):
        """X (and y) checked as scikit-learn checks them (validate_data:
        2-d, numbers, no sparse matrix, n_features_in_ and
        feature_names_in_ kept or compared), as a pyarrow table with y as
        the column _Y."""
        pandas = type(X).__module__.split(".")[0] == "pandas" and hasattr(X, "columns")
        control = list(getattr(self, "control", None) or ())
        kw = {"reset": fitting, "dtype": np.float64, "ensure_min_samples": 2 if fitting else 1,
              "ensure_all_finite": not control}
        if fitting and y is not None:
            x, y = validate_data(self, X, y, y_numeric=False, multi_output=False, **kw)
        elif fitting:
            x = validate_data(self, X, y=None if self._needs_y else "no_validation", **kw)
            if isinstance(x, tuple):
                x = x[0]
        else:
            x = validate_data(self, X, **kw)
        names = [str(c) for c in X.columns] if pandas else [f"x{j}" for j in range(x.shape[1])]
        if control:
            keep = [j for j, n in enumerate(names) if n not in control]
            if not np.isfinite(x[:, keep]).all():
                raise ValueError("Input X contains NaN, infinity or a value too large for dtype('float64')")
        # A control column's NaN is a row without a target: a null.
        table = pa.table({n: pa.array(x[:, j], mask=np.isnan(x[:, j]) if n in control else None)
                          for j, n in enumerate(names)})
        if y is not None:
            table = table.append_column(_Y, pa.array(np.asarray(y)))
        return table, names

    def _options(self):
        return {k: v for k, v in self.get_params(deep=False).items() if v is not None}

    def fit(self, X, y=None):
        """Fit the method on X (and y, the classes); returns self."""
        self._fit(X, y)
        return self

    def _fit(self, X, y):
        table, names = self._table(X, y, fitting=True)
        opts = self._options()
        features = [n for n in names if n not in set(opts.get("control") or ())]
        if "dims" in self.get_params() and self.dims is None:
            opts["dims"] = min(2, len(features))  # the binary's 2, or fewer features
        if self._method in ("tsne", "nerv") and self.perplexity is None and table.num_rows < 91:
            # The binary's 30 needs 3 × 30 neighbours; fewer rows get a
            # perplexity they can give.
            opts["perplexity"] = max(1.0, (table.num_rows - 1) / 3)
        if y is not None:
            opts["label"] = _Y
        # Every column of X is a feature, but control targets (CKPCA, LSP).
        fit = api.fit(self._method, table, features=features, **opts)
        self.model_ = fit.model
        self.embedding_ = _coordinates(fit.embedding)
        if "max_iter" in self.get_params():
            self.n_iter_ = _iterations(fit)
        return self.embedding_

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, and return the fit's own embedding of X."""
        return self._fit(X, y)

    def transform(self, X):
        """Place the rows of X with the fitted model."""
        check_is_fitted(self, "model_")
        table, _ = self._table(X, None, fitting=False)
        return _coordinates(self.model_.transform(table))

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "model_")
        return np.array([f"emb_{j}" for j in range(self.embedding_.shape[1])], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_y
        tags.input_tags.allow_nan = False
        return tags


def _iterations(fit):
    """The optimiser's iterations the fit's provenance records (summed over
    BVP's deflation steps), or 1 for a solve in closed form."""
    figures = json.loads((fit.table.schema.metadata or {}).get(b"ordinate", b"{}")).get("figures", {})
    its = figures.get("iterations", 1)
    return int(sum(its) if isinstance(its, list) else its) or 1


def _coordinates(table):
    emb = [c for c in table.column_names if c.startswith("emb_")]
    return np.column_stack([table.column(c).to_numpy() for c in emb])


def _estimator(name, method, needs_y, doc, extra=()):
    """An estimator class whose __init__ takes method's options (those not
    about columns) by keyword, each defaulting to None (the binary's
    default): scikit-learn reads the parameters from __init__'s
    signature."""
    st = describe.stage(method)
    keys = [o["key"] for o in st["options"] if o["key"] not in _COLUMNS] + list(extra)
    args = ", ".join(f"{k}=None" for k in keys)
    body = "".join(f"\n    self.{k} = {k}" for k in keys) or "\n    pass"
    ns = {}
    exec(f"def __init__(self, *, {args}):{body}", ns)  # noqa: S102 - the keys are option names of the binary's description
    lines = []
    for o in st["options"]:
        if o["key"] in keys:
            lines.append(f"    {o['key']}: {o.get('help', '')} (binary default: {o.get('default')!r})")
    cls = type(name, (_Ordinate,), {"__init__": ns["__init__"], "_method": method, "_needs_y": needs_y,
                                    "__doc__": doc + "\n\nParameters (None: the binary's default):\n" + "\n".join(lines),
                                    "__module__": __name__})
    cls.__init__.__qualname__ = f"{name}.__init__"
    return cls


BVP = _estimator("BVP", "bvp", True, "Best-view projection for ordinal classes: y holds the classes (numbers in order, or text with order=[…]).")
PCA = _estimator("PCA", "pca", False, "Principal component analysis (y is ignored).")
LDA = _estimator("LDA", "lda", True, "Fisher's linear discriminant analysis of the classes y.")
CKPCA = _estimator("CKPCA", "ckpca", False, "Constrained kernel PCA: control=[…] names the columns of X's control targets.")
LSP = _estimator("LSP", "lsp", False, "Least-squares projection through control points: control=[…] names their columns.")
TSNE = _estimator("TSNE", "tsne", False, "t-SNE; transform places new rows against the fixed map.")
SoftClassNeRV = _estimator("SoftClassNeRV", "nerv", False,
                           "NeRV with classes: y holds each row's class (ClassNeRV); without y, plain NeRV. "
                           "transform places new rows against the fixed map.")


class FisherTSNE(_Ordinate):
    """Fisher t-SNE (paper 004): the local Fisher metric of the classes y in
    an RBF kernel space, then t-SNE of those distances. fit runs `ordinate
    fisher --kernel rbf --neighbors K` and `ordinate tsne --distances …
    --fisher-model …`; transform places new rows by their Fisher distances
    to the fitted rows. neighbors, gamma, steps and the t-SNE options are
    its parameters (None: the binary's defaults)."""

    _method = "tsne"
    _needs_y = True

    def __init__(self, *, neighbors=None, gamma=None, steps=None, perplexity=None, max_iter=None, seed=None, dims=None):
        self.neighbors = neighbors
        self.gamma = gamma
        self.steps = steps
        self.perplexity = perplexity
        self.max_iter = max_iter
        self.seed = seed
        self.dims = dims

    def _fit(self, X, y):
        table, names = self._table(X, y, fitting=True)
        n = table.num_rows
        k = self.neighbors if self.neighbors is not None else min(90, n - 1)
        fisher = {"kernel": "rbf", "neighbors": k, "label": _Y}
        if k <= 30:
            fisher["perplexity"] = max(1.0, k / 3)  # the metric's σ is calibrated over the K listed rows
        fisher.update({key: v for key, v in {"gamma": self.gamma, "steps": self.steps}.items() if v is not None})
        dist = api.fit("fisher", table, features=names, **fisher)
        tsne = {key: v for key, v in {"max_iter": self.max_iter, "seed": self.seed, "dims": self.dims}.items() if v is not None}
        # t-SNE of K neighbours per row: the perplexity K can carry.
        tsne["perplexity"] = self.perplexity if self.perplexity is not None else max(1.0, min(30.0, k / 3))
        fit = api.fit("tsne", None, distances=dist.table, fisher_model=dist.model, **tsne)
        self.model_ = fit.model
        self.embedding_ = _coordinates(fit.embedding)
        self.n_iter_ = _iterations(fit)
        return self.embedding_

"""scikit-learn estimators of ordinate's methods, on the in-memory API.

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from ordinate.sklearn import BVP, SoftClassNeRV

    emb = SoftClassNeRV().fit(X, y).transform(X_new)       # placement of new rows
    make_pipeline(StandardScaler(), BVP(dims=2)).fit(X, y)

Each estimator's parameters are its method's keyword options, by the
binary's description (the names, types and docs; defaults None: the
binary's own default); the classes are generated from it
(python/tools/gen_estimators.py), and the values are checked against it
before the binary runs. fit(X, y) runs the method on X (numpy: columns x0,
x1, …; pandas: its columns) with y as the label, transform(X) places rows
with the fitted model (`ordinate apply`: in closed form for the linear and
kernel maps, by optimisation against the fixed map for t-SNE and NeRV), and
fit_transform returns the fit's own embedding. Outputs are numpy arrays
(set_output gives pandas), with feature names emb_0, emb_1, ….

SCORE is fitted on triplets of object ids, not on rows of features: its
transform looks objects up in the fitted maps.
"""

from __future__ import annotations

import json
from typing import Any, Literal, Sequence

import numpy as np
import pyarrow as pa
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ordinate import api

__all__ = ["BVP", "CKPCA", "FisherTSNE", "LDA", "LSP", "PCA", "SCORE", "SoftClassNeRV", "TSNE"]

# The label column's name in the table built from X and y.
_Y = "__y__"

Array = np.ndarray[Any, np.dtype[Any]]


# scikit-learn has no type information: its bases are Any to mypy.
class _Ordinate(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """The shared fit and transform; subclasses set _method and their
    parameters (generated from the method's options)."""

    _method: str = ""
    _needs_y = False

    def _table(self, X: Any, y: Any, fitting: bool) -> tuple[pa.Table, list[str]]:
        """X (and y) checked as scikit-learn checks them (validate_data:
        2-d, numbers, no sparse matrix, n_features_in_ and
        feature_names_in_ kept or compared), as a pyarrow table with y as
        the column _Y."""
        pandas = type(X).__module__.split(".")[0] == "pandas" and hasattr(X, "columns")
        control = list(getattr(self, "control", None) or ())
        kw: dict[str, Any] = {"reset": fitting, "dtype": np.float64, "ensure_min_samples": 2 if fitting else 1,
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

    def _options(self) -> dict[str, Any]:
        return {k: v for k, v in self.get_params(deep=False).items() if v is not None}

    def fit(self, X: Any, y: Any = None) -> Any:
        """Fit the method on X (and y, the classes); returns self."""
        self._fit(X, y)
        return self

    def _fit(self, X: Any, y: Any) -> Array:
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

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Array:
        """Fit, and return the fit's own embedding of X."""
        return self._fit(X, y)

    def transform(self, X: Any) -> Array:
        """Place the rows of X with the fitted model."""
        check_is_fitted(self, "model_")
        table, _ = self._table(X, None, fitting=False)
        if self.model_ is None:  # every method here writes a model
            raise RuntimeError(f"ordinate {self._method} wrote no model to place rows with")
        return _coordinates(self.model_.transform(table))

    def get_feature_names_out(self, input_features: Any = None) -> Array:
        check_is_fitted(self, "model_")
        return np.array([f"emb_{j}" for j in range(self.embedding_.shape[1])], dtype=object)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_y
        tags.input_tags.allow_nan = False
        return tags


def _iterations(fit: api.Fit, figure: str = "iterations") -> int:
    """The optimiser's iterations the fit's provenance records (summed over
    BVP's deflation steps; SCORE's figure is epochs), or 1 for a solve in
    closed form."""
    figures = json.loads((fit.table.schema.metadata or {}).get(b"ordinate", b"{}")).get("figures", {})
    its = figures.get(figure, 1)
    return int(sum(its) if isinstance(its, list) else its) or 1


def _coordinates(table: pa.Table, prefix: str = "emb_") -> Array:
    """The columns of table whose names begin with prefix, as an array."""
    cols = [c for c in table.column_names if c.startswith(prefix)]
    return np.column_stack([table.column(c).to_numpy() for c in cols])


# BEGIN GENERATED by python/tools/gen_estimators.py from `ordinate describe --json`; do not edit.


class BVP(_Ordinate):
    """Best-view projection for ordinal classes: y holds the classes (numbers in order, or text with order=[…]).

    The options of `ordinate bvp` (best-view projection for ordinal classes (Zine-El-Abidine et al.)).

    Parameters (None: the binary's default)
    ----------
    order : list of string
        class order as a comma list, e.g. low,mid,high (required for text
        labels; numeric labels default to ascending)
    dims : int, binary default 2
        output dimensions, at most the number of features; axes beyond
        classes − 1 are filled with directions of largest variance, with a
        warning (≥ 1)
    standardize : bool, binary default True
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    solver : enum, binary default 'svd'
        how the subspace is found: svd exactly, rgd by the paper's Algorithm
        1 (svd, rgd)
    max_iter : int, binary default 100
        rgd: updates per deflation step (≥ 1)
    tol : float, binary default 1e-05
        rgd: stop when the angle between iterates is below this (radians) (>
        0)
    step0 : float, binary default 0.05
        rgd: first step size γ₀ (> 0)
    seed : uint, binary default 1
        random seed (rgd's random starts); the same input, seed and thread
        count give bit-identical output
    """

    _method = "bvp"
    _needs_y = True

    def __init__(
        self,
        *,
        order: Sequence[str] | str | None = None,
        dims: int | None = None,
        standardize: bool | None = None,
        solver: Literal["svd", "rgd"] | None = None,
        max_iter: int | None = None,
        tol: float | None = None,
        step0: float | None = None,
        seed: int | None = None,
    ) -> None:
        self.order = order
        self.dims = dims
        self.standardize = standardize
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.step0 = step0
        self.seed = seed


class PCA(_Ordinate):
    """Principal component analysis (y is ignored).

    The options of `ordinate pca` (principal component analysis (unsupervised baseline)).

    Parameters (None: the binary's default)
    ----------
    order : list of string
        class order of the label as a comma list, recorded so that plot and
        report colour the classes in this order with an ordered palette (PCA
        itself ignores the label; needs label)
    dims : int, binary default 2
        output dimensions, at most the number of features (≥ 1)
    standardize : bool, binary default True
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    """

    _method = "pca"
    _needs_y = False

    def __init__(
        self,
        *,
        order: Sequence[str] | str | None = None,
        dims: int | None = None,
        standardize: bool | None = None,
    ) -> None:
        self.order = order
        self.dims = dims
        self.standardize = standardize


class LDA(_Ordinate):
    """Fisher's linear discriminant analysis of the classes y.

    The options of `ordinate lda` (Fisher linear discriminant analysis (supervised baseline)).

    Parameters (None: the binary's default)
    ----------
    order : list of string
        class order as a comma list (default: ascending values, or byte
        order of text); fixes the sign of axis 1 (the last class on its
        positive side)
    dims : int, binary default 2
        output dimensions, at most the number of features; axes beyond
        classes − 1 are filled with directions of largest variance, with a
        warning (≥ 1)
    standardize : bool, binary default True
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    shrinkage : float, binary default 0
        ridge ε added to the within-class scatter; 0: 1e-6·trace/D (≥ 0)
    """

    _method = "lda"
    _needs_y = True

    def __init__(
        self,
        *,
        order: Sequence[str] | str | None = None,
        dims: int | None = None,
        standardize: bool | None = None,
        shrinkage: float | None = None,
    ) -> None:
        self.order = order
        self.dims = dims
        self.standardize = standardize
        self.shrinkage = shrinkage


class CKPCA(_Ordinate):
    """Constrained kernel PCA: control=[…] names the columns of X that hold control targets.

    The options of `ordinate ckpca` (constrained kernel PCA through user-placed control points (Paurat, Oglic & Gärtner)).

    Parameters (None: the binary's default)
    ----------
    standardize : bool, binary default True
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    control : list of string
        columns of target coordinates, one per output dimension, null on
        non-control rows
    dims : int, binary default 0
        output dimensions (0: one per control column, or per coordinate
        column of the control table; 2 without control points) (≥ 0)
    kernel : enum, binary default 'linear'
        kernel on the (standardised) features, or precomputed: the selected
        columns (or the similarity table) are the n×n kernel matrix (linear,
        rbf, poly, cosine, precomputed)
    gamma : float, binary default 0
        rbf: exp(−γ‖a − b‖²), 0: 1/median squared distance; poly: γ·aᵀb, 0:
        1/D (the value used is recorded as the figure resolved_gamma) (≥ 0)
    degree : int, binary default 3
        poly degree (≥ 1)
    coef0 : float, binary default 1
        poly: (γ·aᵀb + coef0)^degree; any finite number
    path : enum, binary default 'auto'
        auto: the linear kernel in feature space (D×D, never forming the n×n
        kernel), other kernels with the kernel matrix; primal or dual force
        one (auto, primal, dual)
    nu : float, binary default 1
        ν: penalty on overlap with earlier dimensions (the paper's soft
        orthogonality) (≥ 0)
    scale : enum, binary default 'none'
        none (infeasible targets are an error) or auto (rescale the targets,
        solve, scale back) (none, auto)
    budget : float, binary default 0.5
        with scale auto: share of the squared norm the constraints may use
        (in (0, 1))
    soft : float, binary default 0
        penalty weight for soft constraints instead of exact ones (0: exact)
        (≥ 0)
    landmarks : int, binary default 0
        Nyström approximation with this many random landmark rows, at most
        the rows (0: exact) (≥ 0)
    correction : enum, binary default 'none'
        precomputed kernel: eigenvalue correction before the PSD check
        (none: an indefinite matrix is an error) (none, clip, flip, shift)
    seed : uint, binary default 1
        random seed (landmark choice)
    """

    _method = "ckpca"
    _needs_y = False

    def __init__(
        self,
        *,
        standardize: bool | None = None,
        control: Sequence[str] | str | None = None,
        dims: int | None = None,
        kernel: Literal["linear", "rbf", "poly", "cosine", "precomputed"] | None = None,
        gamma: float | None = None,
        degree: int | None = None,
        coef0: float | None = None,
        path: Literal["auto", "primal", "dual"] | None = None,
        nu: float | None = None,
        scale: Literal["none", "auto"] | None = None,
        budget: float | None = None,
        soft: float | None = None,
        landmarks: int | None = None,
        correction: Literal["none", "clip", "flip", "shift"] | None = None,
        seed: int | None = None,
    ) -> None:
        self.standardize = standardize
        self.control = control
        self.dims = dims
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.path = path
        self.nu = nu
        self.scale = scale
        self.budget = budget
        self.soft = soft
        self.landmarks = landmarks
        self.correction = correction
        self.seed = seed


class LSP(_Ordinate):
    """Least-squares projection through control points: control=[…] names their columns.

    The options of `ordinate lsp` (control-point baselines: the minimum-norm linear map (InVis) or Paulovich's least square projection).

    Parameters (None: the binary's default)
    ----------
    standardize : bool, binary default True
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    control : list of string
        columns of target coordinates, one per output dimension, null on
        non-control rows
    dims : int, binary default 0
        output dimensions (0: one per control column, or per coordinate
        column of the control table) (≥ 0)
    variant : enum, binary default 'linear'
        linear (min-norm map, InVis) or laplacian (Paulovich 2008) (linear,
        laplacian)
    neighbors : int, binary default 10
        laplacian: neighbours per row (below N) (≥ 1)
    """

    _method = "lsp"
    _needs_y = False

    def __init__(
        self,
        *,
        standardize: bool | None = None,
        control: Sequence[str] | str | None = None,
        dims: int | None = None,
        variant: Literal["linear", "laplacian"] | None = None,
        neighbors: int | None = None,
    ) -> None:
        self.standardize = standardize
        self.control = control
        self.dims = dims
        self.variant = variant
        self.neighbors = neighbors


class TSNE(_Ordinate):
    """t-SNE; transform places new rows against the fixed map.

    The options of `ordinate tsne` (t-SNE of feature rows or of a distance table (e.g. Fisher distances)).

    Parameters (None: the binary's default)
    ----------
    standardize : bool, binary default False
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    dims : int, binary default 2
        output dimensions (bh: at most 3, fft: at most 2) (≥ 1)
    perplexity : float, binary default 30
        perplexity of the input affinities: below N − 1, and 3·perplexity ≤
        N − 1 for bh and fft (≥ 1)
    method : enum, binary default 'auto'
        exact is O(N²), bh Barnes-Hut, fft FIt-SNE interpolation (1 or 2
        dims), auto exact up to 1000 rows, bh up to 20000, fft above (auto,
        exact, bh, fft)
    knn : enum, binary default 'auto'
        input neighbours of bh and fft: exact (a k-d tree for up to 8
        features), approx (NN-descent), auto (exact up to 20000 rows or 8
        features) (auto, exact, approx)
    knn_recall : float, binary default 0.99
        with approximate neighbours: the recall NN-descent must reach,
        estimated on 300 seeded rows against their exact neighbours; below
        it the search widens its join (twice at most), then warns (0: no
        check) (in [0, 1])
    theta : float, binary default 0.5
        Barnes-Hut accuracy (0: exact repulsion) (≥ 0)
    max_iter : int, binary default 1000
        gradient iterations, all of which are run (≥ 1)
    learning_rate : float, binary default 0
        step size (0: max(N/12, 50) during exaggeration, max(N, 50) after,
        as openTSNE) (≥ 0)
    early_exaggeration : float, binary default 12
        P is multiplied by this for the first 250 iterations (> 0)
    init : enum, binary default 'pca'
        initial embedding: pca (classical MDS for distances) scaled to std
        1e-4, or random (pca, random)
    seed : uint, binary default 1
        random seed (any whole number ≥ 0); the same input, seed and thread
        count give bit-identical output
    """

    _method = "tsne"
    _needs_y = False

    def __init__(
        self,
        *,
        standardize: bool | None = None,
        dims: int | None = None,
        perplexity: float | None = None,
        method: Literal["auto", "exact", "bh", "fft"] | None = None,
        knn: Literal["auto", "exact", "approx"] | None = None,
        knn_recall: float | None = None,
        theta: float | None = None,
        max_iter: int | None = None,
        learning_rate: float | None = None,
        early_exaggeration: float | None = None,
        init: Literal["pca", "random"] | None = None,
        seed: int | None = None,
    ) -> None:
        self.standardize = standardize
        self.dims = dims
        self.perplexity = perplexity
        self.method = method
        self.knn = knn
        self.knn_recall = knn_recall
        self.theta = theta
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.early_exaggeration = early_exaggeration
        self.init = init
        self.seed = seed


class SoftClassNeRV(_Ordinate):
    """NeRV with classes: y holds each row's class (ClassNeRV); without y, plain NeRV. transform places new rows against the fixed map.

    The options of `ordinate nerv` (SoftClassNeRV embedding with soft class labels; ClassNeRV with hard labels, NeRV without (Mustatea et al.)).

    Parameters (None: the binary's default)
    ----------
    standardize : bool, binary default False
        z-score every feature with its training mean and sample standard
        deviation (N−1) before fitting; the default depends on the stage
        (see above); constant columns are dropped with a warning either way
    dims : int, binary default 2
        output dimensions, at most 3 with methods bh and cutoff, 2 with grid
        (≥ 1)
    alpha : float, binary default 0.5
        weight of the class community in Λ (in [0, 1])
    gamma : float, binary default 0.5
        recall/precision trade-off without classes (in [0, 1])
    perplexity : float, binary default 32
        effective number of neighbours K, below N − 1 (≥ 1)
    multiscale : bool, binary default True
        perplexity schedule max(N/2^h, K), warm-started (--multiscale=false:
        K only)
    method : enum, binary default 'auto'
        exact (O(N²) time and memory), bh (sparse input, Barnes–Hut sums,
        global width), cutoff (bh's objective, exact sums within reach of
        each point's output Gaussian; more accurate and faster than bh),
        grid (bh's objective, every sum by a Gaussian convolution on a grid
        over the map, soft labels rounded to eighths for pairs beyond the
        neighbour lists; 1 or 2 dims; the fastest above 400 rows) or auto
        (exact up to 400 rows; above, grid, or cutoff for 3 dims) (auto,
        exact, bh, cutoff, grid)
    knn : enum, binary default 'auto'
        input neighbours of methods bh, cutoff and grid: exact (a k-d tree
        for up to 8 features), approx (NN-descent) or auto (exact up to 4c²
        rows, c = 4 × the schedule's largest perplexity, NN-descent's
        candidates per point; and for up to 8 features) (auto, exact,
        approx)
    bh_tol : float, binary default 0.01
        Barnes–Hut (bh, and the dense points of cutoff): largest error of a
        cell's kernel sum relative to the row's neighbour kernels; 0: exact
        sums (≥ 0)
    cutoff_tol : float, binary default 0.01
        cutoff: bound on the relative error of each point's output
        normaliser from the points left out; 0: every pair (≥ 0)
    start : enum, binary default 'auto'
        start of the map: pca, sample (methods bh, cutoff and grid: fit a
        quarter of the rows first, itself started the same way above 50,000
        rows, scale it to the sample map's own density, place the other rows
        next to their sampled neighbours, and run the last perplexity only,
        its first 30 iterations exaggerated, 30·√(N/250,000) above 250,000
        rows) or auto (sample above 50,000 rows with bh, cutoff and grid,
        pca otherwise) (auto, pca, sample)
    output_scale : enum, binary default 'auto'
        output widths: transfer (sᵢ = σᵢ), global (one width), or auto
        (transfer; global with methods bh, cutoff and grid) (auto, transfer,
        global)
    output_kernel : enum, binary default 'gaussian'
        output neighbourhood: gaussian (the papers') or t (a last level
        under Student's t, heavy-tailed, whose maps keep neighbourhoods
        apart without crowding, T(10) near t-SNE's; costs a plane per class:
        72 s at 20,000 rows of 30 classes, 17 minutes at 10⁵; method grid or
        auto, 1 or 2 dims) (gaussian, t)
    max_iter : int, binary default 150
        L-BFGS iterations of the last (finest) scale (≥ 1)
    tol : float, binary default 0.0001
        relative stress decrease over 10 iterations that ends the last scale
        (≥ 0)
    neighbour_tol : float, binary default 0.005
        methods bh, cutoff and grid: largest change over 10 iterations of a
        1,000-row sample's 10-NN preservation and class accuracy (among all
        rows and within the sample) that ends the last scale; 0: stop on
        --tol and --max-iter only (in [0, 1])
    coarse_max_iter : int, binary default 30
        L-BFGS iterations of each earlier scale of the multiscale schedule;
        0: as --max-iter; the rule before issue 15 is --coarse-max-iter 0
        --coarse-tol 0 --max-iter 500 --tol 1e-5 (≥ 0)
    coarse_tol : float, binary default 0.001
        relative stress decrease over 10 iterations that ends an earlier
        scale; 0: as --tol (≥ 0)
    """

    _method = "nerv"
    _needs_y = False

    def __init__(
        self,
        *,
        standardize: bool | None = None,
        dims: int | None = None,
        alpha: float | None = None,
        gamma: float | None = None,
        perplexity: float | None = None,
        multiscale: bool | None = None,
        method: Literal["auto", "exact", "bh", "cutoff", "grid"] | None = None,
        knn: Literal["auto", "exact", "approx"] | None = None,
        bh_tol: float | None = None,
        cutoff_tol: float | None = None,
        start: Literal["auto", "pca", "sample"] | None = None,
        output_scale: Literal["auto", "transfer", "global"] | None = None,
        output_kernel: Literal["gaussian", "t"] | None = None,
        max_iter: int | None = None,
        tol: float | None = None,
        neighbour_tol: float | None = None,
        coarse_max_iter: int | None = None,
        coarse_tol: float | None = None,
    ) -> None:
        self.standardize = standardize
        self.dims = dims
        self.alpha = alpha
        self.gamma = gamma
        self.perplexity = perplexity
        self.multiscale = multiscale
        self.method = method
        self.knn = knn
        self.bh_tol = bh_tol
        self.cutoff_tol = cutoff_tol
        self.start = start
        self.output_scale = output_scale
        self.output_kernel = output_kernel
        self.max_iter = max_iter
        self.tol = tol
        self.neighbour_tol = neighbour_tol
        self.coarse_max_iter = coarse_max_iter
        self.coarse_tol = coarse_tol


# END GENERATED


class FisherTSNE(_Ordinate):
    """Fisher t-SNE (paper 004): the local Fisher metric of the classes y in
    an RBF kernel space, then t-SNE of those distances. fit runs `ordinate
    fisher --kernel rbf --neighbors K` and `ordinate tsne --distances …
    --fisher-model …`; transform places new rows by their Fisher distances
    to the fitted rows. neighbors, gamma, steps and the t-SNE options are
    its parameters (None: the binary's defaults)."""

    _method = "tsne"
    _needs_y = True

    def __init__(
        self,
        *,
        neighbors: int | None = None,
        gamma: float | None = None,
        steps: int | None = None,
        perplexity: float | None = None,
        max_iter: int | None = None,
        seed: int | None = None,
        dims: int | None = None,
    ) -> None:
        self.neighbors = neighbors
        self.gamma = gamma
        self.steps = steps
        self.perplexity = perplexity
        self.max_iter = max_iter
        self.seed = seed
        self.dims = dims

    def _fit(self, X: Any, y: Any) -> Array:
        table, names = self._table(X, y, fitting=True)
        n = table.num_rows
        k = self.neighbors if self.neighbors is not None else min(90, n - 1)
        fisher: dict[str, Any] = {"kernel": "rbf", "neighbors": k, "label": _Y}
        if k <= 30:
            fisher["perplexity"] = max(1.0, k / 3)  # the metric's σ is calibrated over the K listed rows
        fisher.update({key: v for key, v in {"gamma": self.gamma, "steps": self.steps}.items() if v is not None})
        dist = api.fit("fisher", table, features=names, **fisher)
        tsne: dict[str, Any] = {key: v for key, v in {"max_iter": self.max_iter, "seed": self.seed, "dims": self.dims}.items() if v is not None}
        # t-SNE of K neighbours per row: the perplexity K can carry.
        tsne["perplexity"] = self.perplexity if self.perplexity is not None else max(1.0, min(30.0, k / 3))
        fit = api.fit("tsne", None, distances=dist.table, fisher_model=dist.model, **tsne)
        self.model_ = fit.model
        self.embedding_ = _coordinates(fit.embedding)
        self.n_iter_ = _iterations(fit)
        return self.embedding_


class SCORE(TransformerMixin, BaseEstimator):  # type: ignore[misc]  # scikit-learn's bases are Any to mypy
    """SCORE (paper 002): one map per aspect from conditional ordinal
    triplets, on a shared sphere.

    fit(T) takes triplets of object ids, "i is closer to j than to k" (under
    an aspect): a pandas or polars DataFrame or pyarrow table with columns
    i, j, k and optionally aspect (triplet_columns names others), or an
    array of shape (n, 3) or (n, 4) whose columns are i, j, k and aspect. Ids
    are whole numbers or text. The parameters are `ordinate score`'s options
    (None: the binary's default); objects is an optional list of every
    object's id, so that objects in no triplet get a place too.

    After fit: objects_ (the ids, as text), aspects_, embedding_ (array of
    shape (aspects, objects, dims): aspect a's map), poles_ and deltas_
    (each aspect's pole on the sphere and its δ), sphere_ (each object's
    sphere coordinates) and maps_ (the maps table: aspect, id, emb_*).
    transform(ids) looks objects up: one row per id, each aspect's map
    coordinates side by side (feature names "aspect:emb_0", …), and
    map(aspect) is one aspect's map.
    """

    def __init__(
        self,
        *,
        objects: Sequence[Any] | None = None,
        triplet_columns: Sequence[str] | str | None = None,
        single_map: bool | None = None,
        dims: int | None = None,
        alpha: float | None = None,
        learning_rate: float | None = None,
        kappa: float | None = None,
        max_iter: int | None = None,
        tol: float | None = None,
        deterministic: bool | None = None,
        seed: int | None = None,
    ) -> None:
        self.objects = objects
        self.triplet_columns = triplet_columns
        self.single_map = single_map
        self.dims = dims
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.kappa = kappa
        self.max_iter = max_iter
        self.tol = tol
        self.deterministic = deterministic
        self.seed = seed

    def fit(self, X: Any, y: Any = None) -> SCORE:
        """Fit the maps to the triplets X (y is ignored); returns self."""
        triplets = _triplets(X)
        opts = {k: v for k, v in self.get_params(deep=False).items() if v is not None and k != "objects"}
        if isinstance(opts.get("triplet_columns"), (list, tuple)):
            opts["triplet_columns"] = ",".join(opts["triplet_columns"])
        if self.objects is not None:
            opts["objects"] = pa.table({"id": pa.array([str(o) for o in self.objects])})
            opts["id"] = "id"
        fit = api.fit("score", triplets, outputs=["aspects-out", "sphere-out"], **opts)
        maps, aspects, sphere = fit.table, fit.outputs["aspects-out"], fit.outputs["sphere-out"]
        self.maps_ = maps
        self.objects_ = np.array(sphere.column("id").to_pylist(), dtype=object)
        self.aspects_ = np.array(aspects.column("aspect").to_pylist(), dtype=object)
        self.deltas_ = aspects.column("delta").to_numpy()
        self.poles_ = _coordinates(aspects, "pole_")
        self.sphere_ = _coordinates(sphere, "y_")
        # embedding_[a, o]: object o in aspect a's map, in objects_' order.
        where = {o: n for n, o in enumerate(self.objects_)}
        which = {a: n for n, a in enumerate(self.aspects_)}
        coords = _coordinates(maps)
        emb = np.full((len(self.aspects_), len(self.objects_), coords.shape[1]), np.nan)
        rows_a = [which[a] for a in maps.column("aspect").to_pylist()]
        rows_o = [where[o] for o in maps.column("id").to_pylist()]
        emb[rows_a, rows_o] = coords
        self.embedding_ = emb
        self.n_features_in_ = triplets.num_columns
        self.n_iter_ = _iterations(fit, "epochs")
        return self

    def map(self, aspect: Any = None) -> Array:
        """One aspect's map, shape (objects, dims), in objects_' order; the
        only aspect when aspect is None and there is one."""
        check_is_fitted(self, "embedding_")
        if aspect is None:
            if len(self.aspects_) != 1:
                raise ValueError(f"map(aspect): the fit has {len(self.aspects_)} aspects; name one of {list(self.aspects_)}")
            return np.asarray(self.embedding_[0])
        found = np.flatnonzero(self.aspects_ == str(aspect))
        if found.size == 0:
            raise ValueError(f"map({aspect!r}): no such aspect; the aspects are {list(self.aspects_)}")
        return np.asarray(self.embedding_[found[0]])

    def transform(self, X: Any) -> Array:
        """The objects X (a sequence of ids) in every aspect's map: shape
        (len(X), aspects × dims); ValueError names an id the fit does not
        know."""
        check_is_fitted(self, "embedding_")
        ids = [str(i) for i in np.asarray(X, dtype=object).ravel()]
        where = {o: n for n, o in enumerate(self.objects_)}
        unknown = [i for i in ids if i not in where]
        if unknown:
            raise ValueError(f"SCORE.transform: object {unknown[0]!r} is in no triplet of the fit ({len(unknown)} unknown ids)")
        at = [where[i] for i in ids]
        return np.concatenate([self.embedding_[a][at] for a in range(len(self.aspects_))], axis=1)

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Array:
        """Fit, and return every object's place (transform(objects_))."""
        return self.fit(X).transform(self.objects_)

    def get_feature_names_out(self, input_features: Any = None) -> Array:
        check_is_fitted(self, "embedding_")
        dims = self.embedding_.shape[2]
        return np.array([f"{a}:emb_{j}" for a in self.aspects_ for j in range(dims)], dtype=object)


def _triplets(X: Any) -> pa.Table:
    """Triplets as a pyarrow table: a table or DataFrame as it is, an array
    of shape (n, 3) or (n, 4) as columns i, j, k (and aspect)."""
    if isinstance(X, (pa.Table, pa.RecordBatch)) or hasattr(X, "columns"):
        table, _ = api._table(X, None)
        return table
    if hasattr(X, "toarray"):
        raise TypeError("SCORE: sparse input is not supported: triplets are rows of object ids")
    if np.iscomplexobj(np.asarray(X)):
        raise ValueError("SCORE: Complex data not supported: triplets are rows of object ids")
    x = np.asarray(X, dtype=object)
    if x.ndim != 2 or x.shape[1] not in (3, 4):
        raise ValueError(f"SCORE: triplets must be a table or an array of shape (n, 3) or (n, 4), not {x.shape}")
    if x.shape[0] == 0:
        raise ValueError("SCORE: no triplets")
    cols: dict[str, Any] = {}
    for j, name in enumerate(("i", "j", "k", "aspect")[: x.shape[1]]):
        col = x[:, j]
        for row, v in enumerate(col):
            if v is None or (isinstance(v, (float, np.floating)) and not (np.isfinite(v) and float(v).is_integer())):
                what = "a missing id" if v is None or v != v else f"a non-integer id {v!r}"
                raise ValueError(f"SCORE: column {name} (column {j} of the triplets) holds {what} at row {row}")
        if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in col):
            ints = col.astype(np.int64)
            cols[name] = pa.array(ints) if name != "aspect" else pa.array([str(v) for v in ints])
        else:
            cols[name] = pa.array([str(v) for v in col])
    return pa.table(cols)

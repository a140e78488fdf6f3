"""Score large NeRV (or t-SNE) maps on a fixed sample, independently of ordinate.

Reads the input table and one or more embeddings (emb_0, emb_1 in input row
order, as `ordinate nerv` and `ordinate tsne` write them), draws a fixed
random sample of 5,000 rows (numpy seed 0) and prints, within that sample,
scikit-learn's trustworthiness T(10), continuity C(10) (T with the spaces
swapped) and the leave-one-out 10-NN class accuracy in the map; the first
row is the input space's own 10-NN class accuracy. With --all-rows it adds,
for the input and each map, the 10-NN class accuracy with neighbours among
all rows (not only the sample's). With --penalty it splits each map's
1 − T(10) by where the false neighbours come from: the share of the penalty
from map neighbours of the row's own class and from other classes, and the
share of map neighbours from other classes. With --preserved it adds, for
each map, the share of each row's 10 nearest input neighbours among its 10
nearest map neighbours, both among all rows, over every (N/1,000)-th row
(the neighbourhood monitor's local score, computed here independently):

    python scripts/nervbh/score.py four-clusters-1m.parquet nerv-1m.parquet tsne-1m.parquet
    python scripts/nervbh/score.py --label label --features f0,f1,… data.parquet map.parquet

The defaults (--label class, --features x,y,z) read the tables of
`go run ./scripts/nervbh -write`; --features all takes every numeric column
but the label. Needs numpy, pyarrow and scikit-learn (pip), not the Go test
suite.
"""
import argparse

import numpy as np
import pyarrow.parquet as pq
import pyarrow.types as pat
from sklearn.manifold import trustworthiness
from sklearn.neighbors import NearestNeighbors

SAMPLE, K = 5000, 10


def knn_accuracy(z, lab):
    idx = NearestNeighbors(n_neighbors=K + 1).fit(z).kneighbors(z, return_distance=False)[:, 1:]
    return np.mean([np.bincount(lab[v]).argmax() == l for v, l in zip(idx, lab)])


def penalty_split(xs, ys, ls):
    """Shares of trustworthiness's penalty Σ max(0, r − K) (r the input rank
    of a map neighbour) from neighbours of the row's own class and of other
    classes, the share of map neighbours of another class, and T itself."""
    n = len(xs)
    d = ((xs[:, None, :] - xs[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    order = np.argsort(d, axis=1, kind="stable")
    rank = np.empty_like(order)
    rank[np.arange(n)[:, None], order] = np.arange(1, n + 1)[None, :]
    nb = NearestNeighbors(n_neighbors=K + 1).fit(ys).kneighbors(ys, return_distance=False)[:, 1:]
    pen = np.maximum(rank[np.arange(n)[:, None], nb] - K, 0).astype(float)
    same = ls[nb] == ls[:, None]
    total = pen.sum()
    t = 1 - total * 2.0 / (n * K * (2 * n - 3 * K - 1))
    if total == 0:
        return 0.0, 0.0, 1 - same.mean(), t
    return pen[same].sum() / total, pen[~same].sum() / total, 1 - same.mean(), t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", default="class")
    ap.add_argument("--features", default="x,y,z", help="comma list, or all")
    ap.add_argument("--all-rows", action="store_true", help="also the 10-NN class accuracy among all rows")
    ap.add_argument("--penalty", action="store_true", help="split 1 − T(10) by the false neighbours' class")
    ap.add_argument("--preserved", action="store_true", help="also the 10-NN preservation among all rows, on 1,000 rows")
    ap.add_argument("data")
    ap.add_argument("maps", nargs="+")
    a = ap.parse_args()
    t = pq.read_table(a.data)
    if a.features == "all":
        feats = [f.name for f in t.schema if f.name != a.label and (pat.is_floating(f.type) or pat.is_integer(f.type))]
    else:
        feats = a.features.split(",")
    x = np.column_stack([t[c].to_numpy() for c in feats])
    lab = np.unique(t[a.label].to_numpy(zero_copy_only=False), return_inverse=True)[1]
    s = np.random.default_rng(0).permutation(len(x))[:SAMPLE]
    xs, ls = x[s], lab[s]
    print("| embedding | rows | T(10) | C(10) | 10-NN accuracy |")
    print("|---|---:|---:|---:|---:|")
    print(f"| the input space ({len(feats)} features) | {len(x)} | – | – | {knn_accuracy(xs, ls):.4f} |")
    maps = []
    nx = None
    for path in a.maps:
        e = pq.read_table(path)
        y = np.column_stack([e[c].to_numpy() for c in e.column_names if c.startswith("emb_")])
        if len(y) != len(x):
            raise SystemExit(f"{path}: {len(y)} rows, the input has {len(x)}")
        ys = y[s]
        tr = trustworthiness(xs, ys, n_neighbors=K)
        co = trustworthiness(ys, xs, n_neighbors=K)
        print(f"| {path} | {len(y)} | {tr:.4f} | {co:.4f} | {knn_accuracy(ys, ls):.4f} |")
        if a.penalty:
            same, other, frac, t = penalty_split(xs, ys, ls)
            if abs(t - tr) > 1e-9:
                raise SystemExit(f"{path}: the split's T(10) {t} is not scikit-learn's {tr}")
            print(f"|   1 − T(10) from: own class {same:.2f}, other classes {other:.2f}; map neighbours of another class {frac:.3f} | | | | |")
        if a.preserved:
            if nx is None:
                rows = np.arange(0, len(x), max(1, len(x) // 1000))[:1000]
                nx = NearestNeighbors(n_neighbors=K + 1).fit(x).kneighbors(x[rows], return_distance=False)
            ny = NearestNeighbors(n_neighbors=K + 1).fit(y).kneighbors(y[rows], return_distance=False)
            kept = np.mean([len(set(u[u != r][:K]) & set(v[v != r][:K])) / K for r, u, v in zip(rows, nx, ny)])
            print(f"|   10-NN preserved among all rows: {kept:.4f} | | | | |")
        if a.all_rows:
            maps.append((path, y))
    if a.all_rows:
        print(f"10-NN class accuracy among all {len(x)} rows: the input {knn_accuracy(x, lab):.4f}, "
              + ", ".join(f"{p} {knn_accuracy(y, lab):.4f}" for p, y in maps))


if __name__ == "__main__":
    main()

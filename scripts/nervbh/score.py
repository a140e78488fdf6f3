"""Score large NeRV maps on a fixed sample, independently of ordinate.

Reads the input table (feature columns x, y, z and a class column, as
`go run ./scripts/nervbh -write` writes them) and one or more embeddings
(emb_0, emb_1 in input row order, as `ordinate nerv` writes them), draws a
fixed random sample of 5,000 rows (numpy seed 0) and prints, within that
sample, scikit-learn's trustworthiness T(10), continuity C(10) (T with the
spaces swapped) and the leave-one-out 10-NN class accuracy in the map:

    python scripts/nervbh/score.py four-clusters-1m.parquet nerv-1m.parquet

Needs numpy, pyarrow and scikit-learn (pip), not the Go test suite.
"""
import sys

import numpy as np
import pyarrow.parquet as pq
from sklearn.manifold import trustworthiness
from sklearn.neighbors import NearestNeighbors

SAMPLE, K = 5000, 10


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    t = pq.read_table(sys.argv[1], columns=["x", "y", "z", "class"])
    x = np.column_stack([t[c].to_numpy() for c in ("x", "y", "z")])
    lab = np.unique(t["class"].to_numpy(zero_copy_only=False), return_inverse=True)[1]
    s = np.random.default_rng(0).permutation(len(x))[:SAMPLE]
    print("| embedding | rows | T(10) | C(10) | 10-NN accuracy |")
    print("|---|---:|---:|---:|---:|")
    for path in sys.argv[2:]:
        e = pq.read_table(path)
        y = np.column_stack([e[c].to_numpy() for c in e.column_names if c.startswith("emb_")])
        if len(y) != len(x):
            sys.exit(f"{path}: {len(y)} rows, the input has {len(x)}")
        xs, ys, ls = x[s], y[s], lab[s]
        idx = NearestNeighbors(n_neighbors=K + 1).fit(ys).kneighbors(ys, return_distance=False)[:, 1:]
        acc = np.mean([np.bincount(ls[v]).argmax() == l for v, l in zip(idx, ls)])
        tr = trustworthiness(xs, ys, n_neighbors=K)
        co = trustworthiness(ys, xs, n_neighbors=K)
        print(f"| {path} | {len(y)} | {tr:.4f} | {co:.4f} | {acc:.4f} |")


if __name__ == "__main__":
    main()

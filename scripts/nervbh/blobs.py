"""Overlapping Gaussian blobs of unequal widths, as a new user would make them.

    python scripts/nervbh/blobs.py OUT.parquet [ROWS] [FEATURES] [CENTRES]

scikit-learn's make_blobs with cluster_std drawn uniformly from [0.5, 6]
and centres in a box of ±6 (defaults: 10⁶ rows, 50 features, 12 centres),
written as f0 … f{d-1} and a text label c0 … c{k-1}. BENCHMARKS.md's
10⁶ × 50 run ("A new user's 10⁶ rows of overlapping blobs") used this
recipe with a seed that was not kept.
"""
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from sklearn.datasets import make_blobs


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    d = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    k = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    rng = np.random.default_rng(40)
    x, y = make_blobs(n_samples=n, n_features=d, centers=k, cluster_std=rng.uniform(0.5, 6, k),
                      center_box=(-6, 6), random_state=40)
    cols = {f"f{j}": x[:, j] for j in range(d)}
    cols["label"] = np.array([f"c{v}" for v in y])
    pq.write_table(pa.table(cols), out)


if __name__ == "__main__":
    main()

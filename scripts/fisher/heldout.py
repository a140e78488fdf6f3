#!/usr/bin/env python3
"""New rows placed into a Fisher t-SNE map (issue 37, point 3).

Each data set is split 80/20 (seeded). The training rows are fitted as a
data team would: `fisher --in train --kernel rbf --label y --neighbors K
--model-out F` (the local mode), `tsne --distances D --fisher-model F
--model-out M`, and the held-out rows are placed with `apply --model M`,
which sees their features only (no label). Reported:

- the training rows' own 10-NN class accuracy in the map (each training row
  by its 10 nearest other training rows, leave-one-out), the held-out rows'
  (each by its 10 nearest training rows in the map) and the difference;
- the held-out rows' 10-NN accuracy in the input features (z-scored by the
  training rows, their 10 nearest training rows): what the features alone
  tell; a new row's Fisher distances use the training rows' posterior, not
  its own label, so they cannot know more than its neighbourhood does;
- the held-out rows' accuracy in a plain t-SNE map of the same training rows
  placed the same way (`tsne --in train --model-out`, `apply`);
- seconds of each step and the placement rate.

Data: the real tables of sparse_vs_dense.py (votes, digits, cancer, mnist)
and its overlapping Gaussians. Two threads, seed 1.

  python scripts/fisher/heldout.py --bin /tmp/ordinate --data votes,cancer,digits,mnist,overlap --n 20000

Needs numpy, pyarrow and scikit-learn; not a test dependency.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sparse_vs_dense import load  # noqa: E402


def run(argv):
    t = time.perf_counter()
    subprocess.run(argv, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def emb(path, key):
    import pyarrow.parquet as pq
    t = pq.read_table(path).sort_by(key)
    return np.column_stack([t["emb_0"].to_numpy(), t["emb_1"].to_numpy()])


def acc_loo(e, y, k=10):
    from sklearn.neighbors import NearestNeighbors
    nn = NearestNeighbors(n_neighbors=k + 1).fit(e).kneighbors(e, return_distance=False)[:, 1:]
    return float((vote(y[nn]) == y).mean())


def acc_placed(e_train, y_train, e_new, y_new, k=10):
    from sklearn.neighbors import NearestNeighbors
    nn = NearestNeighbors(n_neighbors=k).fit(e_train).kneighbors(e_new, return_distance=False)
    return float((vote(y_train[nn]) == y_new).mean())


def vote(labels):
    # Majority of each row, ties to the smallest class (as scikit-learn's mode).
    out = np.empty(len(labels), dtype=labels.dtype)
    for r, row in enumerate(labels):
        v, c = np.unique(row, return_counts=True)
        out[r] = v[np.argmax(c)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="ordinate")
    ap.add_argument("--k", type=int, default=90, help="neighbors K of the local mode")
    ap.add_argument("--n", type=int, default=20000, help="rows of mnist and overlap")
    ap.add_argument("--data", default="votes,cancer,digits,mnist,overlap")
    ap.add_argument("--exclude-endpoints", action="store_true", help="fit the Fisher distances with --exclude-endpoints")
    ap.add_argument("--json", default="fisher-heldout.json")
    a = ap.parse_args()
    import pyarrow as pa, pyarrow.parquet as pq
    rows = []
    print("| data | train | new | Fisher map: train 10-NN acc | placed | difference | features | plain t-SNE placed | fisher s | tsne s | apply s | rows/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in a.data.split(","):
        x, y = load(name, a.n)
        keep = x.std(0) > 0
        x = x[:, keep]
        perm = np.random.default_rng(1).permutation(len(x))
        cut = int(0.8 * len(x))
        tr, te = np.sort(perm[:cut]), np.sort(perm[cut:])
        with tempfile.TemporaryDirectory() as w:
            def table(idx, path, label=True):
                cols = {"id": idx.astype(np.int64)}
                if label:
                    cols["label"] = y[idx].astype(np.int64)
                cols.update({f"f{c}": x[idx, c] for c in range(x.shape[1])})
                pq.write_table(pa.table(cols), path)
            train, new = os.path.join(w, "train.parquet"), os.path.join(w, "new.parquet")
            table(tr, train)
            table(te, new, label=False)
            th = ["--threads", "2", "--quiet"]
            d, f, e, m, p = (os.path.join(w, s) for s in ("d.parquet", "f.parquet", "e.parquet", "m.parquet", "p.parquet"))
            t_fisher = run([a.bin, "fisher", "--in", train, "--id", "id", "--label", "label", "--kernel", "rbf",
                            "--neighbors", str(a.k), "--out", d, "--model-out", f] + th
                           + (["--exclude-endpoints"] if a.exclude_endpoints else []))
            t_tsne = run([a.bin, "tsne", "--distances", d, "--fisher-model", f, "--out", e, "--model-out", m] + th)
            t_apply = run([a.bin, "apply", "--model", m, "--in", new, "--id", "id", "--out", p] + th)
            e_tr, e_te = emb(e, "id"), emb(p, "id")
            y_tr, y_te = y[tr], y[te]
            own, placed = acc_loo(e_tr, y_tr), acc_placed(e_tr, y_tr, e_te, y_te)
            mu, sd = x[tr].mean(0), x[tr].std(0, ddof=1)
            sd[sd == 0] = 1
            feat = acc_placed((x[tr] - mu) / sd, y_tr, (x[te] - mu) / sd, y_te)
            pe, pm, pp = (os.path.join(w, s) for s in ("pe.parquet", "pm.parquet", "pp.parquet"))
            run([a.bin, "tsne", "--in", train, "--id", "id", "--label", "label", "--standardize", "--out", pe, "--model-out", pm] + th)
            run([a.bin, "apply", "--model", pm, "--in", new, "--id", "id", "--out", pp] + th)
            plain = acc_placed(emb(pe, "id"), y_tr, emb(pp, "id"), y_te)
        r = dict(data=name, train=len(tr), new=len(te), own=own, placed=placed, features=feat, plain_placed=plain,
                 fisher_s=t_fisher, tsne_s=t_tsne, apply_s=t_apply, rows_per_s=len(te) / t_apply)
        rows.append(r)
        print(f"| {name} | {len(tr):,} | {len(te):,} | {own:.4f} | {placed:.4f} | {placed - own:+.4f} | {feat:.4f} | {plain:.4f} "
              f"| {t_fisher:.1f} | {t_tsne:.1f} | {t_apply:.2f} | {len(te) / t_apply:,.0f} |", flush=True)
    with open(a.json, "w") as fh:
        json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()

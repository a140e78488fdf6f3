"""Does a heavy-tailed output kernel close ClassNeRV's T(10) gap to t-SNE?

An exact prototype, outside ordinate, for BENCHMARKS.md's "Where the T(10) gap
comes from": it draws a sample of a table (numpy seed 0), fits `ordinate nerv
--method exact` and `ordinate tsne` on it, and then continues the NeRV map for
a fixed number of L-BFGS iterations under the same ClassNeRV stress (α, γ,
perplexity 32, exact conditional Gaussian input neighbourhoods) with two output
kernels, a Gaussian of one global width, q ∝ exp(−d²/2), and Student's t with
one degree of freedom, q ∝ 1/(1 + d²), each normalised per row as NeRV's
q_j|i is. The stress and its gradient come from jax; the map is put into the
kernel's unit first (mean 10-NN distance 1). Scores as score.py does.

    python scripts/nervbh/tkernel.py --bin ordinate --label label sets/overlap.parquet
    python scripts/nervbh/tkernel.py --bin ordinate --label label --rows 3000 --iters 300 sets/diamonds.parquet

O(N²) memory and time: 3,000 rows take about 4 minutes a kernel on two cores.
Needs jax, numpy, scipy, pyarrow and scikit-learn (pip), not the Go test
suite.
"""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.types as pat
from scipy.optimize import minimize
from sklearn.manifold import trustworthiness
from sklearn.neighbors import NearestNeighbors

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

K = 32.0


def input_neighbourhoods(x, k):
    """Row-wise log p_j|i of Gaussians calibrated to perplexity k (nats)."""
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    n = len(x)
    lo, hi = np.zeros(n), np.full(n, np.inf)
    beta = np.full(n, 1 / np.median(d2[np.isfinite(d2)]))
    for _ in range(100):
        a = -beta[:, None] * d2
        a -= a.max(1, keepdims=True)
        p = np.exp(a)
        p /= p.sum(1, keepdims=True)
        h = -(p * np.log(np.where(p > 0, p, 1))).sum(1)
        wide = h > np.log(k)
        lo = np.where(wide, beta, lo)
        hi = np.where(wide, hi, beta)
        beta = np.where(np.isfinite(hi), (lo + hi) / 2, beta * 2)
    a = -beta[:, None] * d2
    a -= a.max(1, keepdims=True)
    logp = a - np.log(np.exp(a).sum(1, keepdims=True))
    np.fill_diagonal(logp, 0.0)
    return logp


def classnerv_stress(logp, lam, kernel):
    n = len(logp)
    off = jnp.asarray(1.0 - np.eye(n))
    p = jnp.exp(jnp.asarray(logp)) * off
    logp, lam = jnp.asarray(logp), jnp.asarray(lam)

    def stress(flat):
        y = flat.reshape(n, 2)
        d2 = ((y[:, None, :] - y[None, :, :]) ** 2).sum(-1)
        lw = -jnp.log1p(d2) if kernel == "t" else -d2 / 2
        lw = jnp.where(off > 0, lw, -jnp.inf)
        logq = lw - jax.scipy.special.logsumexp(lw, axis=1, keepdims=True)
        logq = jnp.where(off > 0, logq, 0.0)
        q = jnp.exp(logq) * off
        recall = lam * p * (logp - logq)
        precision = (1 - lam) * q * (logq - logp)
        return jnp.sum((recall + precision) * off) / n

    vg = jax.jit(jax.value_and_grad(stress))

    def f(v):
        s, g = vg(jnp.asarray(v))
        return float(s), np.asarray(g)

    return f


def scores(x, y, lab):
    idx = NearestNeighbors(n_neighbors=11).fit(y).kneighbors(y, return_distance=False)[:, 1:]
    acc = np.mean([np.bincount(lab[v]).argmax() == l for v, l in zip(idx, lab)])
    return trustworthiness(x, y, n_neighbors=10), trustworthiness(y, x, n_neighbors=10), acc


def read_map(path):
    e = pq.read_table(path)
    return np.column_stack([e["emb_0"].to_numpy(), e["emb_1"].to_numpy()])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="ordinate")
    ap.add_argument("--label", default="label")
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--alpha", type=float, default=0.5)
    ap.add_argument("--gamma", type=float, default=0.5)
    ap.add_argument("data")
    a = ap.parse_args()

    t = pq.read_table(a.data)
    feats = [f.name for f in t.schema if f.name != a.label and (pat.is_floating(f.type) or pat.is_integer(f.type))]
    total = t.num_rows
    rows = np.sort(np.random.default_rng(0).permutation(total)[: a.rows])
    t = t.take(pa.array(rows)).select(feats + [a.label])
    x = np.column_stack([t[c].to_numpy() for c in feats]).astype(float)
    lab = np.unique(t[a.label].to_numpy(zero_copy_only=False), return_inverse=True)[1]

    with tempfile.TemporaryDirectory() as tmp:
        sample = os.path.join(tmp, "sample.parquet")
        pq.write_table(t, sample)
        maps = {}
        for name, cmd in [
            ("ordinate nerv --method exact (Gaussian, transferred widths)", ["nerv", "--method", "exact", "--label", a.label,
                                                                             "--alpha", str(a.alpha), "--gamma", str(a.gamma)]),
            ("ordinate tsne", ["tsne", "--features", ",".join(feats)]),
        ]:
            out = os.path.join(tmp, f"{len(maps)}.parquet")
            subprocess.run([a.bin, *cmd, "--in", sample, "--out", out, "--quiet"], check=True)
            maps[name] = read_map(out)

    start = next(iter(maps.values()))
    d = NearestNeighbors(n_neighbors=11).fit(start).kneighbors(start)[0][:, 1:].mean()
    y0 = ((start - start.mean(0)) / d).ravel()
    logp = input_neighbourhoods(x, K)
    same = (lab[:, None] == lab[None, :]).astype(float)
    lam = (1 - a.alpha) * a.gamma + a.alpha * same
    rows_out = [(name, *scores(x, y, lab), "") for name, y in maps.items()]
    for kernel, label in [("gauss", "Gaussian, one width"), ("t", "Student t (1 dof)")]:
        t0 = time.time()
        r = minimize(classnerv_stress(logp, lam, kernel), y0, jac=True, method="L-BFGS-B",
                     options={"maxiter": a.iters, "maxcor": 10})
        y = r.x.reshape(-1, 2)
        rows_out.append((f"the NeRV map, {r.nit} more iterations: {label}", *scores(x, y, lab),
                         f"stress {r.fun:.4f}, {time.time() - t0:.0f} s"))

    print(f"{a.data}: {len(x)} rows of {total}, {len(feats)} features, α = {a.alpha}, γ = {a.gamma}, K = {K:g}")
    print("| map | T(10) | C(10) | 10-NN accuracy | note |")
    print("|---|---:|---:|---:|---|")
    print(f"| the input space | – | – | {scores(x, x, lab)[2]:.4f} | |")
    for name, tr, co, acc, note in rows_out:
        print(f"| {name} | {tr:.4f} | {co:.4f} | {acc:.4f} | {note} |")


if __name__ == "__main__":
    main()

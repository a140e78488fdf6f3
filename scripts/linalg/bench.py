#!/usr/bin/env python3
"""Dense kernels side by side: ordinate (Go) and numpy on OpenBLAS, one run.

Runs the Go benchmarks of package kernels (Gemm, SqDistances, EigenSym) and
times numpy on the same shapes with the same two threads, then prints one
Markdown table with seconds, GFLOP/s, the share of the machine's peak and
the ratio numpy ÷ ordinate (above 1: ordinate is faster).

  - matrix multiply: square n = 1,000 and 2,000 (A·B), and the Gram shape
    X·Xᵀ of all-pairs distances at N = 10,000, D = 32 and 512; 2mnk flops;
  - all-pairs squared distances at N = 10,000, D = 32 and 512. ordinate sums
    (a − b)² term by term (exact up to the rounding of each term; 3 flops per
    term of each of the N(N−1)/2 pairs); numpy's usual formula
    ‖a‖² + ‖b‖² − 2⟨a, b⟩ through a Gram product is faster but loses digits
    to cancellation, and is counted with the same flops;
  - symmetric eigendecomposition with vectors at n = 500, 1,000, 2,000:
    kernels.EigenSym against numpy.linalg.eigh (LAPACK dsyevd).

Peak: the cores times the speed of Gemm's micro-kernel on cache-resident
panels on one core (BenchmarkGemmKernel: twelve independent FMA chains,
nothing else), which
is what two 256-bit FMA pipes per core give at the clock the cores really
run (the "cpu MHz" of /proc/cpuinfo, 16 flops per cycle per core, is
printed too; it is below the boost clock). numpy's X·Xᵀ calls dsyrk,
which computes one triangle: its GFLOP/s counts the 2mnk flops of the
full product, so they can exceed the peak.

  python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy
  /tmp/venv/bin/python scripts/linalg/bench.py            # from the repository root

Needs Go and numpy; not a test dependency.
"""
import os, re, subprocess, sys, time

THREADS = 2
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(THREADS))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
import numpy as np  # noqa: E402  (after the thread variables)


def clock_ghz():
    with open("/proc/cpuinfo") as f:
        mhz = [float(l.split(":")[1]) for l in f if l.startswith("cpu MHz")]
    return max(mhz) / 1000


def go_bench():
    env = dict(os.environ, GOMAXPROCS=str(THREADS))
    res = {}
    for bench, times in (("BenchmarkGemmKernel$", "1000000x"),
                         ("BenchmarkGemm$|BenchmarkSqDistances/N=10000/D=(32|512)$|BenchmarkEigenSym/n=(500|1000|2000)/impl=dandc", "1x")):
        cmd = ["go", "test", "./kernels", "-run", "^$", "-benchtime", times, "-bench", bench]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        for line in out.splitlines():
            m = re.match(r"Benchmark(\S+?)-\d+\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) GFLOP/s)?", line)
            if m:
                res[m.group(1)] = float(m.group(2)) / 1e9
                if m.group(3):
                    res[m.group(1) + ":gflops"] = float(m.group(3))
    return res


def best(f, reps=3):
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t)


def main():
    ghz = clock_ghz()
    nominal = THREADS * 16 * ghz
    rng = np.random.default_rng(1)
    rows = []
    go = go_bench()
    peak = THREADS * go["GemmKernel:gflops"]

    for n in (1000, 2000):
        a, b = rng.normal(size=(n, n)), rng.normal(size=(n, n))
        rows.append((f"A·B, n = {n:,}", 2 * n**3, go[f"Gemm/square/n={n}"], best(lambda: a @ b)))
    for d in (32, 512):
        x = rng.normal(size=(10000, d))
        rows.append((f"X·Xᵀ, N = 10,000, D = {d}", 2 * 10000**2 * d, go[f"Gemm/gram/N=10000/D={d}"], best(lambda: x @ x.T)))
    for d in (32, 512):
        x = rng.normal(size=(10000, d))

        def dist():
            s = (x * x).sum(1)
            g = x @ x.T
            g *= -2
            g += s[:, None]
            g += s[None, :]
            return g
        rows.append((f"all-pairs squared distances, N = 10,000, D = {d}", 1.5 * 10000 * 9999 * d,
                     go[f"SqDistances/N=10000/D={d}"], best(dist)))
    for n in (500, 1000, 2000):
        q = rng.normal(size=(n, n))
        s = q + q.T
        rows.append((f"eigendecomposition with vectors, n = {n:,}", None, go[f"EigenSym/n={n}/impl=dandc"],
                     best(lambda: np.linalg.eigh(s), reps=1 if n == 2000 else 3)))

    blas = "unknown"
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]["name"] + " " + cfg["Build Dependencies"]["blas"].get("version", "")
    except Exception:
        pass
    print(f"numpy {np.__version__} ({blas}), {THREADS} threads; peak {peak:.1f} GFLOP/s measured "
          f"({THREADS} × BenchmarkGemmKernel; nominal {nominal:.1f} = {THREADS} cores × 16 flops/cycle × {ghz:.2f} GHz); "
          f"load {os.getloadavg()[0]:.2f}\n")
    print("| what | ordinate s | GFLOP/s | % of peak | numpy s | GFLOP/s | numpy ÷ ordinate |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, flops, tg, tn in rows:
        if flops:
            print(f"| {name} | {tg:.3f} | {flops/tg/1e9:.1f} | {100*flops/tg/1e9/peak:.0f} % | {tn:.3f} | {flops/tn/1e9:.1f} | {tn/tg:.2f} |")
        else:
            print(f"| {name} | {tg:.3f} | – | – | {tn:.3f} | – | {tn/tg:.2f} |")


if __name__ == "__main__":
    sys.exit(main())

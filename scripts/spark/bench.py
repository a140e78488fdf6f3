"""ordinate.spark on a two-worker standalone cluster against the CLI alone.

1. transform: a PCA model applied to 10,000,000 rows x 32 float64 columns
   (ten Parquet files) by `ordinate apply` alone (2 threads) and through the
   cluster (two workers of one core), with two baselines on the cluster that
   split the time: Spark reading and writing the same rows without Python
   (plain columns), and the same rows through a pass-through mapInArrow
   (the Python hop without ordinate). Python hop = pass-through - plain;
   ordinate's share = transform - pass-through. Then transform as Spark
   column expressions (the default for an affine model: no Python at all),
   against Spark reading all 32 columns (the plain run reads only the id).
2. fit: PCA fitted on the same rows by the CLI (the model alone, streamed in
   one pass; and in memory with the embedding) against ordinate.spark.fit on
   the cluster (the partitions' statistics, merged on the driver); and the
   model applied by `ordinate sql` run in DuckDB (2 threads, Parquet out)
   against `ordinate apply`.
3. fisher: the dense Fisher distances of a square similarity (n objects)
   on one machine against fisher_distances in tiles on the cluster (the
   set-up once on the driver), and with --features the local mode of a
   feature table the same way.

Usage (from the repository root, in a venv with the package installed:
pip install './python[spark]'):
    python scripts/spark/bench.py [WORKDIR] [--rows 10000000] [--fisher-n 1500] [--fisher-only | --fit-only]
        [--features overlap100k.parquet --neighbors 90]
The data (about 2.6 GB for 10M rows) is made once in WORKDIR. Takes about
15 minutes on 2 cores.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tests"))

import ordinate  # noqa: E402
from cluster import Cluster  # noqa: E402
from ordinate import describe  # noqa: E402
from ordinate import spark as ospark  # noqa: E402

COLS = 32
FILES = 10


def make_rows(work, rows):
    d = work / f"rows-{rows}"
    if d.exists():
        return d
    tmp = work / f"rows-{rows}.tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(14)
    per = rows // FILES
    centres = rng.normal(0, 3, (8, COLS))
    for f in range(FILES):
        c = rng.integers(0, 8, per)
        x = centres[c] + rng.normal(0, 1, (per, COLS))
        cols = {"id": np.arange(f * per, (f + 1) * per, dtype=np.int64)}
        cols.update({f"x{j}": x[:, j] for j in range(COLS)})
        pq.write_table(pa.table(cols), tmp / f"part-{f}.parquet", row_group_size=1 << 17, compression="zstd")
    tmp.rename(d)
    return d


def make_similarity(work, n):
    path = work / f"similarity-{n}.parquet"
    if path.exists():
        return path
    rng = np.random.default_rng(7)
    k = 4
    labels = rng.integers(0, k, n)
    x = rng.normal(0, 1, (k, 10))[labels] + rng.normal(0, 1.5, (n, 10))
    sq = (x * x).sum(1)
    s = np.exp(-(sq[:, None] + sq[None, :] - 2 * x @ x.T) / 20)
    cols = {"id": np.arange(n, dtype=np.int64), "label": labels.astype(np.int64)}
    cols.update({f"s{j}": s[:, j] for j in range(n)})
    pq.write_table(pa.table(cols), path)
    return path


def timed(label, fn):
    t0 = time.monotonic()
    out = fn()
    dt = time.monotonic() - t0
    print(f"{label}: {dt:.1f} s", flush=True)
    return dt, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--fisher-n", type=int, default=1500)
    ap.add_argument("--tiles", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--fisher-only", action="store_true", help="skip the transform and fit benchmarks (parts 1 and 2)")
    ap.add_argument("--fit-only", action="store_true", help="only the fit and SQL benchmark (part 2)")
    ap.add_argument("--features", default=None, help="also the local mode on this feature table (id, label, features)")
    ap.add_argument("--neighbors", type=int, default=90, help="neighbors K of the local mode")
    ap.add_argument("--local-tiles", type=int, nargs="+", default=[2, 3])
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="ordinate-spark-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work: {work}; binary: {ordinate.binary()}", flush=True)

    if not a.fisher_only:
        rows = make_rows(work, a.rows)
        sample = work / "sample.parquet"
        if not sample.exists():
            pq.write_table(pq.read_table(rows / "part-0.parquet").slice(0, 100_000), sample)
        model = work / "pca.model.parquet"
        if not model.exists():
            ordinate.run(["pca", "--in", sample, "--id", "id", "--out", work / "pca-sample.parquet", "--model-out", model, "--quiet"])
    results = {}
    out = work / "out"
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir()
    if a.fit_only:
        return fit_bench(a, results, rows, model, out)
    sim = make_similarity(work, a.fisher_n)
    if not a.fisher_only:
        results["cli"], _ = timed(f"CLI alone: ordinate apply, {a.rows:,} rows x {COLS} (2 threads)",
                                  lambda: ordinate.run(["apply", "--model", model, "--in", rows, "--id", "id",
                                                        "--out", out / "cli.parquet", "--quiet"]))
        fit_cli(a, results, rows, model, out)

    fisher_opts = {"id": "id", "label": "label", "upper": True}
    results["fisher_cli"], _ = timed(f"CLI alone: ordinate fisher, n = {a.fisher_n} (2 threads)",
                                     lambda: ordinate.run(["fisher", "--similarity", sim, "--out", out / "fisher.parquet",
                                                           "--quiet", *describe.flags("fisher", fisher_opts)]))
    # One of the cluster's workers alone: one core, as each worker has.
    results["fisher_cli1"], _ = timed(f"CLI alone on one core: ordinate fisher --threads 1, n = {a.fisher_n}",
                                      lambda: ordinate.run(["fisher", "--similarity", sim, "--out", out / "fisher1.parquet",
                                                            "--quiet", "--threads", "1", *describe.flags("fisher", fisher_opts)]))
    local_opts = {"id": "id", "label": "label", "kernel": "rbf", "neighbors": a.neighbors}
    if a.features:
        results["local_cli"], _ = timed(f"CLI alone: ordinate fisher --in (local mode, K = {a.neighbors}; 2 threads)",
                                        lambda: ordinate.run(["fisher", "--in", a.features, "--out", out / "local.parquet",
                                                              "--quiet", *describe.flags("fisher", local_opts)]))
        results["local_setup"], _ = timed("CLI alone: the local set-up only (fisher --model-out, no --out)",
                                          lambda: ordinate.run(["fisher", "--in", a.features, "--model-out", out / "local.model.parquet",
                                                                "--quiet", *describe.flags("fisher", local_opts)]))
    prepared = out / "prepared.arrow"
    results["fisher_setup"], _ = timed(f"CLI alone: the set-up only (fisher --prepared-out), n = {a.fisher_n} (2 threads)",
                                       lambda: ordinate.run(["fisher", "--similarity", sim, "--prepared-out", prepared,
                                                             "--quiet", *describe.flags("fisher", fisher_opts)]))

    cluster = Cluster(work / "cluster")
    try:
        cluster.start()
        spark = cluster.spark
        from pyspark.sql import functions as F

        # Warm-up: executors and their Python workers started.
        ospark.fisher_distances(str(ROOT / "testdata" / "similarity" / "aural_sonar.parquet"), tiles=2, session=spark,
                                id="id", label="label").count()
        if a.features:
            for t in a.local_tiles:
                results[f"local{t}"], _ = timed(
                    f"cluster: fisher_distances(features=…), tiles = {t} ({t * t} tasks)",
                    lambda: ospark.fisher_distances(features=a.features, tiles=t, session=spark, **local_opts)
                    .write.mode("overwrite").parquet(str(out / f"local-{t}")))
        for t in a.tiles:
            results[f"tiles{t}"], _ = timed(
                f"cluster: fisher_distances, tiles = {t} ({t * (t + 1) // 2} tasks)",
                lambda: ospark.fisher_distances(str(sim), tiles=t, session=spark, **fisher_opts)
                .write.mode("overwrite").parquet(str(out / f"fisher-{t}")))
            got = pq.read_table(out / f"fisher-{t}")
            assert got.num_rows == a.fisher_n * (a.fisher_n - 1) // 2
        if a.fisher_only:
            return report(a, results)
        df = spark.read.parquet(str(rows))
        print(f"partitions: {df.rdd.getNumPartitions()}", flush=True)
        # Warm-up: executors started, model shipped.
        ospark.transform(df.limit(1000), str(model), id="id", via="binary").count()

        plain = df.select("id", F.lit(0.0).alias("emb_0"), F.lit(0.0).alias("emb_1"))
        results["plain"], _ = timed("cluster: Spark read + write, no Python",
                                    lambda: plain.write.mode("overwrite").parquet(str(out / "plain")))

        # Spark reading every feature column too (the plain run reads only
        # the id: Parquet prunes the rest), summed into one column: the
        # floor of any transform that uses all 32 features.
        total = sum((F.col(f"x{j}") for j in range(COLS)), F.lit(0.0))
        every = df.select("id", total.alias("emb_0"), F.lit(0.0).alias("emb_1"))
        results["every"], _ = timed("cluster: Spark reads all 32 columns, sums them, writes, no Python",
                                    lambda: every.write.mode("overwrite").parquet(str(out / "every")))

        schema = plain.schema

        def passthrough(batches):
            import pyarrow as pa

            for b in batches:
                zeros = pa.array(np.zeros(b.num_rows))
                yield pa.RecordBatch.from_arrays([b.column(0), zeros, zeros], names=["id", "emb_0", "emb_1"])

        hop = df.mapInArrow(passthrough, schema)
        results["hop"], _ = timed("cluster: pass-through mapInArrow (the Python hop, no ordinate)",
                                  lambda: hop.write.mode("overwrite").parquet(str(out / "hop")))

        emb = ospark.transform(df, str(model), id="id", via="binary")
        results["spark"], _ = timed("cluster: ordinate.spark.transform(via='binary'), mapInArrow through the binary",
                                    lambda: emb.write.mode("overwrite").parquet(str(out / "spark")))
        emb = ospark.transform(df, str(model), id="id")
        results["expr"], _ = timed("cluster: ordinate.spark.transform, the affine model as column expressions",
                                   lambda: emb.write.mode("overwrite").parquet(str(out / "expr")))
        fit_cluster(a, results, spark, rows, out)
    finally:
        cluster.stop()

    for name in ("spark", "expr"):
        n = pq.ParquetDataset(out / name).read(columns=["id"]).num_rows
        assert n == a.rows, (name, n, a.rows)
    report(a, results)


def fit_cli(a, r, rows, model, out):
    """Part 2 on one machine: the CLI's fits, and DuckDB running the SQL
    of the model against ordinate apply (r["cli"], timed if missing)."""
    r["fit_cli"], _ = timed(f"CLI alone: ordinate pca --model-out (streamed, one pass), {a.rows:,} rows x {COLS}",
                            lambda: ordinate.run(["pca", "--in", rows, "--id", "id", "--model-out", out / "fit-cli.model.parquet", "--quiet"]))
    r["fit_cli_mem"], _ = timed("CLI alone: ordinate pca --stream off --out --model-out (in memory, the embedding written too)",
                                lambda: ordinate.run(["pca", "--in", rows, "--id", "id", "--stream", "off", "--out", out / "fit-mem.parquet",
                                                      "--model-out", out / "fit-mem.model.parquet", "--quiet"]))
    if "cli" not in r:
        r["cli"], _ = timed(f"CLI alone: ordinate apply, {a.rows:,} rows x {COLS} (2 threads)",
                            lambda: ordinate.run(["apply", "--model", model, "--in", rows, "--id", "id",
                                                  "--out", out / "cli.parquet", "--quiet"]))
    try:
        import duckdb
    except ImportError:
        print("duckdb is not installed: pip install duckdb for the SQL run", flush=True)
        return
    sql = ordinate.run(["sql", "--model", model, "--table", f"read_parquet('{rows}/*.parquet')", "--id", "id"]).decode()
    con = duckdb.connect()
    con.execute("SET threads = 2")
    r["duckdb"], _ = timed("DuckDB: the SELECT of ordinate sql, Parquet in and out (2 threads)",
                           lambda: con.execute(f"COPY ({sql.rstrip().rstrip(';')}) TO '{out / 'duckdb.parquet'}' (FORMAT parquet, COMPRESSION zstd)"))
    n = con.execute(f"SELECT count(*) FROM read_parquet('{out / 'duckdb.parquet'}')").fetchone()[0]
    assert n == a.rows, n


def fit_cluster(a, r, spark, rows, out):
    """Part 2 on the cluster: ordinate.spark.fit of the same rows."""
    df = spark.read.parquet(str(rows))
    ospark.fit(df.limit(1000), "pca", id="id", model_out=out / "warm.model.parquet")  # executors warm
    r["fit_spark"], _ = timed("cluster: ordinate.spark.fit(df, 'pca'), the partitions' statistics merged on the driver",
                              lambda: ospark.fit(df, "pca", id="id", model_out=out / "fit-spark.model.parquet"))


def fit_bench(a, r, rows, model, out):
    fit_cli(a, r, rows, model, out)
    cluster = Cluster(out.parent / "cluster")
    try:
        cluster.start()
        fit_cluster(a, r, cluster.spark, rows, out)
    finally:
        cluster.stop()
    fit_report(a, r)


def fit_report(a, r):
    print()
    print("| run | seconds | rows/s |")
    print("|---|---|---|")
    for key, label in [("fit_cli", "CLI alone: `pca --model-out` (streamed, one pass)"),
                       ("fit_cli_mem", "CLI alone: `pca --stream off --out --model-out` (in memory, embedding written)"),
                       ("fit_spark", "cluster: `ordinate.spark.fit(df, \"pca\")`"),
                       ("cli", "CLI alone: `ordinate apply`"),
                       ("duckdb", "DuckDB: the SELECT of `ordinate sql` (Parquet in and out, 2 threads)")]:
        if key in r:
            print(f"| {label} | {r[key]:.1f} | {a.rows / r[key] / 1e6:.2f} M |")
    print()
    print(f"fit on the cluster / CLI streamed = {r['fit_spark'] / r['fit_cli']:.2f}"
          + (f"; DuckDB's SQL / apply = {r['duckdb'] / r['cli']:.2f}" if "duckdb" in r else ""))


def report(a, r):
    if a.fisher_only:
        return fisher_report(a, r)
    print()
    print(f"| run | seconds | rows/s |")
    print(f"|---|---|---|")
    for key, label in [("cli", "CLI alone (`ordinate apply`, 2 threads)"), ("plain", "cluster: Spark read + write, no Python"),
                       ("every", "cluster: Spark reads all 32 columns, sums them, writes"),
                       ("hop", "cluster: pass-through `mapInArrow`"),
                       ("spark", "cluster: `ordinate.spark.transform(via=\"binary\")`"),
                       ("expr", "cluster: `ordinate.spark.transform` (column expressions)")]:
        print(f"| {label} | {r[key]:.1f} | {a.rows / r[key] / 1e6:.2f} M |")
    print()
    print(f"transform as expressions / CLI = {r['expr'] / r['cli']:.2f} (/ Spark reading every column = {r['expr'] / r['every']:.2f}); "
          f"through the binary / CLI = {r['spark'] / r['cli']:.2f}; "
          f"Python hop = {r['hop'] - r['plain']:.1f} s; ordinate inside the hop = {r['spark'] - r['hop']:.1f} s")
    fit_report(a, r)
    fisher_report(a, r)


def fisher_report(a, r):
    if a.features:
        print(f"local mode K = {a.neighbors}: one machine {r['local_cli']:.1f} s, of which the set-up alone {r['local_setup']:.1f} s")
        for t in a.local_tiles:
            print(f"local mode: one machine {r['local_cli']:.1f} s; cluster tiles = {t}: {r[f'local{t}']:.1f} s "
                  f"(ratio {r[f'local{t}'] / r['local_cli']:.2f})")
    print(f"fisher n = {a.fisher_n}: one machine {r['fisher_cli']:.1f} s, of which the set-up alone {r['fisher_setup']:.1f} s; "
          f"one worker's core alone {r['fisher_cli1']:.1f} s")
    for t in a.tiles:
        print(f"fisher n = {a.fisher_n}: one machine {r['fisher_cli']:.1f} s; cluster tiles = {t}: {r[f'tiles{t}']:.1f} s "
              f"(ratio {r[f'tiles{t}'] / r['fisher_cli']:.2f}; against one worker's core {r[f'tiles{t}'] / r['fisher_cli1']:.2f})")


if __name__ == "__main__":
    main()

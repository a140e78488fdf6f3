"""ordinate stages on Apache Spark (>= 3.5), built on DataFrame.mapInArrow.

Each partition's Arrow record batches stream through one ordinate process:
Arrow IPC on its stdin, Arrow IPC back on its stdout. Nothing is computed in
Python.

The tasks import this package, so the executors' Python needs it (and
pyarrow). In local mode (master local[...]) with no Python chosen
(neither PYSPARK_PYTHON nor spark.pyspark.python), the stages run their tasks
with the driver's Python, which has both; on a cluster the executors' Python
is Spark's setting (docs/distributed.md, "Running on Spark").
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import numbers
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

import pyarrow as pa

from ordinate import describe
from ordinate.cli import OrdinateError, _env, binary, run

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

# A path on the driver, as os.fspath takes it.
_Path = Union[str, "os.PathLike[str]"]

# A mapInArrow function: a partition's record batches in, the output's out.
_ArrowMap = Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]

# How much of the binary's stderr to keep for an error message.
_STDERR_LIMIT = 64 << 10

# tile 0,0 of this many holds no pairs: the binary writes the output's
# schema without a fit (fisher --tile).
_SCHEMA_TILES = 2**31 - 1

# The most tasks fisher_distances (tiles) and evaluate (blocks) start: each
# task holds the memory of a whole run, and Spark plans every task of a
# stage on the driver.
MAX_TASKS = 100_000

# The apply options transform sets itself (or that make no sense in a
# stream of partitions); the others are keywords of transform.
TRANSFORM_SETS = ("shard", "quiet")

# The methods fit fits from partial statistics, and the options it sets
# itself (or that a fit of partitions cannot take).
FIT_METHODS = ("bvp", "pca", "lda")
FIT_SETS = ("stream", "quiet", "in", "out", "model_out", "partials_out", "from_partials")

# Options that select the rows and features of the partitions; the fit of
# the merged partials takes the others (dims, order, solver, …).
_SELECTION = ("features", "exclude", "id", "keep", "on_invalid")

__all__ = ["transform", "fit", "fisher_distances", "evaluate", "MAX_TASKS", "FIT_METHODS"]


def transform(df: DataFrame, model: _Path, *, id: Optional[str] = None, keep: Union[str, Sequence[str], None] = None,
              via: str = "auto", **options: Any) -> DataFrame:
    """Apply a saved ordinate model to every row of df.

    model is the path (on the driver) of a model table written by
    --model-out (linear, kernel, t-SNE or NeRV); it is shipped with the job.
    id names the row identity column (of any type: integer, string,
    timestamp, date …), passed through unchanged; keep is a column name, a
    comma list, or a list of names and globs to pass through. options are
    the other options of `ordinate apply` as keywords (label="label" and
    soft_labels=[...] for NeRV placement, perplexity, max_iter, on_invalid,
    threads …: listed below), checked against the binary's description.
    The result has the columns id (if given), the kept columns, and
    emb_0 ... emb_{d-1} (double), as `ordinate apply` writes them. Without an
    id there is no identity column: the CLI's default (row numbers) would
    restart in every partition.

    via chooses how: "expressions" computes an affine model's coordinates
    (bvp, pca, lda, linear ckpca and lsp) as Spark column expressions, the
    SELECT of `ordinate sql --dialect spark`, with apply's bits and no
    Python worker; "binary" streams every partition through `ordinate
    apply` with mapInArrow (any model); "auto" (the default) takes
    expressions for affine models and the binary for the others. With
    expressions, a NaN, ±Inf or null feature fails the job with the row's
    id (on_invalid="drop" drops the row instead), as apply does; apply
    (and via="binary") also names the column.

    The binary's failures (bad data, a model that does not fit the columns)
    raise OrdinateError on the driver or fail the task with the binary's
    stderr in the message.
    """
    if via not in ("auto", "expressions", "binary"):
        raise ValueError(f"via = {via!r}: want one of auto, expressions, binary")
    if not os.path.isfile(model):
        raise OrdinateError(f"model {model!r}: no such file")
    model = os.path.abspath(os.fspath(model))
    given = {"id": id, "keep": keep, **options}
    flags = describe.flags("apply", given, reserved=TRANSFORM_SETS,
                           why="transform sets {} itself: every partition streams through one quiet apply")
    canon = _canonical("apply", given)

    in_schema = _arrow_schema(df)
    out_arrow = _output_schema(model, in_schema, flags, label=canon.get("label"), soft_labels=canon.get("soft_labels"))
    drop_id = id is None
    if drop_id:
        out_arrow = out_arrow.remove(0)
    affine = via != "binary" and (_model_header(model) or {}).get("kind") == "affine"
    if via == "expressions" and not affine:
        raise OrdinateError(f"model {model!r}: via='expressions' serves affine models (bvp, pca, lda, linear ckpca and lsp); "
                            "use via='binary' or 'auto' for this one")
    if affine:
        return _transform_affine(df, model, out_arrow, id, canon.get("on_invalid", "error"))
    out_schema = _spark_schema(out_arrow, df.schema)
    name = _ship(df.sparkSession.sparkContext, model)

    def apply_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import SparkFiles

        argv = [binary(), "apply", "--model=" + SparkFiles.get(name), "--in", "-", "--out", "-", "--quiet", *flags]
        for b in _stream(argv, batches):
            if drop_id:
                b = b.drop_columns([b.schema.names[0]])
            yield b

    return _map_in_arrow(df, apply_partition, out_schema)


def fit(df: DataFrame, method: str, *, model_out: Optional[_Path] = None, **options: Any) -> str:
    """Fit a linear method (bvp, pca or lda) on every row of df, on the
    cluster, and return the path of the model (on the driver).

    Each partition streams through one `ordinate METHOD --in - --partials-out
    -` on its executor: the partition's class counts, means and co-moments
    (a few kB: classes x features^2 numbers), returned to the driver as one
    row. The driver writes them in partition order and fits them with
    `ordinate METHOD --from-partials DIR --model-out model_out`. The model
    equals the CLI's fit of the same rows (on one machine, in memory) to
    1e-12 relative: the same standardisation, signs and class order. A task
    that fails or whose executor dies is run again by Spark and gives the
    same statistics, so each partition counts once.

    options are the stage's options as keywords (label="grade",
    order=["low", "mid", "high"], dims=3, features=[...], on_invalid="drop",
    shrinkage=1e-3 …: listed below), checked against the binary's
    description. model_out is where to write the model (default: a new
    file in a new temporary folder, left for the caller). Use the model with
    transform(), or `ordinate apply` and `ordinate sql`.
    """
    if method not in FIT_METHODS:
        raise ValueError(f"fit: method {method!r}: want one of {', '.join(FIT_METHODS)} "
                         "(the methods that fit from mergeable statistics)")
    flags = describe.flags(method, options, reserved=FIT_SETS,
                           why="fit sets {} itself: the partitions write partials, the driver fits them")
    fit_options = {k: v for k, v in options.items() if v is not None and _canonical(method, {k: v}).keys().isdisjoint(_SELECTION)}
    fit_flags = describe.flags(method, fit_options, reserved=FIT_SETS)
    if model_out is None:
        model_out = os.path.join(tempfile.mkdtemp(prefix="ordinate-fit-"), f"{method}.model.parquet")
    model_out = os.path.abspath(os.fspath(model_out))

    def partials_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        argv = [binary(), method, "--in", "-", "--partials-out", "-", "--quiet", *flags]
        got = list(_stream(argv, batches))
        if not got:
            return  # an empty partition holds no statistics
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, got[0].schema) as w:
            for b in got:
                w.write_batch(b)
        ctx = TaskContext.get()
        if ctx is None:
            raise OrdinateError("fit: partials_partition runs in a Spark task (TaskContext.get() is None here)")
        yield pa.record_batch([pa.array([ctx.partitionId()], pa.int32()),
                               pa.array([sink.getvalue().to_pybytes()], pa.binary())],
                              schema=_PARTIALS_ROW)

    rows = _collect(_map_in_arrow(df, partials_partition, _spark_schema(_PARTIALS_ROW, None)))
    if rows.num_rows == 0:
        raise OrdinateError(f"fit: the DataFrame has no rows to fit {method} on")
    parts = sorted(zip(rows.column("partition").to_pylist(), rows.column("partials").to_pylist()))
    if len({p for p, _ in parts}) != len(parts):
        raise OrdinateError("fit: a partition returned its statistics twice")
    with tempfile.TemporaryDirectory(prefix="ordinate-partials-") as d:
        for p, blob in parts:
            if blob is None:
                raise OrdinateError(f"fit: partition {p} returned no statistics")
            table = pa.ipc.open_stream(blob).read_all()
            with pa.OSFile(os.path.join(d, f"part-{p:06d}.arrow"), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
                w.write_table(table)
        run([method, "--from-partials=" + d, "--model-out=" + model_out, "--quiet", *fit_flags])
    return model_out


# One row per partition of fit: the partition and its partials table as
# Arrow IPC stream bytes (Spark would drop the table's header metadata).
_PARTIALS_ROW = pa.schema((pa.field("partition", pa.int32(), nullable=False), pa.field("partials", pa.binary(), nullable=False)))


def fisher_distances(similarity: Optional[_Path] = None, labels: Optional[_Path] = None, *, tiles: int,
                     features: Optional[_Path] = None, session: Optional[SparkSession] = None,
                     **options: Any) -> DataFrame:
    """The Fisher distance matrix, computed in tiles: one Spark task per tile.

    similarity (and labels, when the similarity is long), or features (a
    feature table, for the local mode: kernel= and neighbors= among the
    options), are paths of tables (files or folders) on the driver; options
    are the fisher stage's options as keywords (id="id", label="label",
    upper=True, metric="kernel", steps=10, kernel="rbf", neighbors=90, ...:
    `ordinate fisher --help`). The objects are split in `tiles` blocks of
    rows; each task computes one tile (I <= J only with upper=True) with
    `ordinate fisher ... --tile I,J/T --out -`, so the union of the tiles is
    the one-machine long table i, j, distance bit for bit (rows in another
    order). The set-up runs once, on the driver, and is shipped to the tasks,
    which read it (`fisher --prepared`) and only sum their tiles' paths: the
    symmetrised, corrected matrix and σ (`--prepared-out`) for a similarity,
    the neighbour lists and σ (`--model-out`) in the local mode. With
    metric="kernel" each task reads the inputs. The tasks (T² tiles,
    T(T+1)/2 with upper=True) are at most MAX_TASKS. The output schema comes
    from the binary on the driver (an empty tile, which needs no fit), so bad
    inputs or options fail before any task.
    """
    inputs: dict[str, _Path]
    if similarity is not None and features is None:
        inputs = {"similarity": similarity}
    elif features is not None and similarity is None:
        inputs = {"in": features}
    else:
        raise ValueError("fisher_distances: give similarity (a similarity table) or features (a feature table), one of them")
    if labels is not None:
        inputs["labels"] = labels
    _check_count("tiles", tiles)
    flags = describe.flags("fisher", options, reserved=("tile", "out", "format"),
                           why="fisher_distances sets {} itself (it writes tiles of the long table)")
    upper = "--upper" in flags
    tasks = tiles * (tiles + 1) // 2 if upper else tiles * tiles
    if tasks > MAX_TASKS:
        most = max(t for t in range(1, MAX_TASKS + 1) if (t * (t + 1) // 2 if upper else t * t) <= MAX_TASKS)
        raise ValueError(
            f"fisher_distances: tiles={tiles} makes {tasks:,} tasks (one per tile{' I <= J' if upper else ''}); "
            f"at most {MAX_TASKS:,} (tiles <= {most}): use fewer, larger tiles")
    session = _session(session)
    local = {role: os.path.abspath(os.fspath(p)) for role, p in inputs.items()}

    driver = [*_input_flags(local), *flags]
    tile_schema = _run_ipc(["fisher", *driver, "--tile", f"0,0/{_SCHEMA_TILES}", "--out", "-", "--quiet"]).schema
    schema = _spark_schema(tile_schema.remove_metadata(), None)

    pairs = [(i, j) for i in range(tiles) for j in range(tiles) if not upper or i <= j]

    if options.get("metric", "fisher") == "fisher":
        # The set-up runs once, here on the driver; the tasks read it and
        # only sum their tiles' paths.
        with tempfile.TemporaryDirectory(prefix="ordinate-fisher-") as d:
            prepared = os.path.join(d, "prepared.arrow")
            out = "--model-out" if features is not None else "--prepared-out"
            run(["fisher", *driver, out, prepared, "--quiet"])
            names = _ship_all(session.sparkContext, {"prepared": prepared})
    else:
        names = _ship_all(session.sparkContext, local)

    tile_task = _task_per_row(names, lambda local, i, j: [
        "fisher", *_input_flags(local), *flags, "--tile", f"{i},{j}/{tiles}", "--out", "-", "--quiet"])

    return _map_in_arrow(_one_task_each(session, pairs, "tile_i int, tile_j int"), tile_task, schema)


def evaluate(embedding: _Path, table: _Path, *, blocks: int, session: Optional[SparkSession] = None,
             **options: Any) -> DataFrame:
    """The exact neighbourhood and class metrics of an embedding, in blocks.

    embedding and table are paths on the driver (the embedding, for example
    the folder transform's output was written to, and the table it was made
    from), shipped with the job; options are the evaluate
    stage's options as keywords (id="id", label="label", k=[5, 10, 30],
    ordinal=True, ...: `ordinate evaluate --help`). Each of `blocks` Spark
    tasks (at most MAX_TASKS) runs `ordinate evaluate ... --block i/B --out -`:
    it ranks the neighbours of its block's points among all points and
    returns the block's integer sums. The driver collects the sums (about N
    rows per block) and merges them with `ordinate evaluate --partials`, which checks
    that every point was scored exactly once by blocks of the same inputs.
    Returns the metrics (metric, k, subset, value) as a DataFrame, equal to
    `ordinate evaluate` on one machine bit for bit.
    """
    _check_count("blocks", blocks)
    flags = describe.flags("evaluate", options, reserved=EVALUATE_SETS,
                           why="evaluate does not take {}: it scores an embedding in blocks and merges them")
    if blocks > MAX_TASKS:
        raise ValueError(f"evaluate: blocks={blocks} makes {blocks:,} tasks; at most {MAX_TASKS:,}")
    session = _session(session)
    names = _ship_all(session.sparkContext, {"embedding": embedding, "in": table})

    block_task = _task_per_row(names, lambda local, i: [
        "evaluate", *_input_flags(local), *flags, "--block", f"{i}/{blocks}", "--out", "-", "--quiet"])

    rows = _one_task_each(session, [(i,) for i in range(blocks)], "block int")
    partials = _collect(_map_in_arrow(rows, block_task, _spark_schema(PARTIAL_SCHEMA, None)))
    with tempfile.TemporaryDirectory(prefix="ordinate-evaluate-") as d:
        path = os.path.join(d, "partials.arrows")
        with pa.OSFile(path, "wb") as f, pa.ipc.new_stream(f, partials.schema) as w:
            w.write_table(partials)
        metrics = _run_ipc(["evaluate", "--partials=" + path, "--out", "-", "--quiet"])
    metrics = metrics.replace_schema_metadata(None)
    return _create(session, metrics)


EVALUATE_SETS = ("block", "out", "summary", "partials", "triplets", "distances")


def _options_doc(fn: Callable[..., Any], stage: str, exclude: Sequence[str]) -> None:
    """Appends the stage's keyword options, from the description the wheel
    carries, to fn's docstring (no binary runs at import)."""
    if describe.packaged():
        fn.__doc__ = (fn.__doc__ or "") + "\n\n" + describe.doc(stage, exclude=exclude)


_options_doc(transform, "apply", TRANSFORM_SETS)
_options_doc(fit, "bvp", FIT_SETS)
_options_doc(fisher_distances, "fisher", ("tile", "out", "format"))
_options_doc(evaluate, "evaluate", EVALUATE_SETS)


# The partial sums of evaluate --block (kind metrics_partial), a data
# contract of the binary: every value an exact int64.
PARTIAL_SCHEMA = pa.schema(
    (
        pa.field("lo", pa.int64(), nullable=False),
        pa.field("hi", pa.int64(), nullable=False),
        pa.field("part", pa.string(), nullable=False),
        pa.field("index", pa.int64(), nullable=False),
        pa.field("value", pa.int64(), nullable=False),
    )
)


def _check_count(name: str, count: object) -> None:
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1:
        raise ValueError(f"{name} = {count!r}: want a whole number >= 1")


def _canonical(stage: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """options (not None) by the keys of the stage's description (an alias
    by its option's key)."""
    known = describe._keywords(describe.stage(stage))
    return {known[k]["key"]: v for k, v in options.items() if v is not None and k in known}


def _session(session: Optional[SparkSession]) -> SparkSession:
    if session is not None:
        return session
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate()


def _one_task_each(session: SparkSession, rows: Sequence[tuple[int, ...]], schema: str) -> DataFrame:
    """A DataFrame of rows with one row per partition, so one task each."""
    rdd = session.sparkContext.parallelize(rows, max(1, len(rows)))
    return session.createDataFrame(rdd, schema)


# Serialises the tasks' Python setting in _map_in_arrow.
_python_lock = threading.Lock()


def _map_in_arrow(df: DataFrame, fn: _ArrowMap, schema: StructType) -> DataFrame:
    """df.mapInArrow(fn, schema), with tasks that can import this package.

    fn's tasks import ordinate.spark. PySpark runs them with PYSPARK_PYTHON
    (read when the SparkContext starts) or spark.pyspark.python, else with
    `python3` on PATH, which in a virtual environment is not the Python that
    has the package. In local mode (master local[...] or local-cluster[...]:
    the executors are on the driver's machine) with neither set, the tasks of
    fn run with the driver's Python (sys.executable), which has the package
    and pyarrow; the context's setting, and so every other UDF, stays as it
    was. On a cluster nothing changes: the executors' Python is Spark's
    setting.
    """
    sc = df.sparkSession.sparkContext
    exe = _local_python(sc)
    if exe is None:
        return df.mapInArrow(fn, schema)
    with _python_lock:
        # mapInArrow builds its Python function (with its Python) now.
        chosen = sc.pythonExec
        sc.pythonExec = exe
        try:
            return df.mapInArrow(fn, schema)
        finally:
            sc.pythonExec = chosen


def _local_python(sc: SparkContext) -> Optional[str]:
    """The driver's Python for the tasks of a local-mode context whose
    Python nobody chose, else None."""
    if not str(sc.master).startswith("local") or not sys.executable:
        return None
    if os.environ.get("PYSPARK_PYTHON") or sc.getConf().get("spark.pyspark.python"):
        return None
    if getattr(sc, "pythonExec", None) != "python3":  # PySpark's default
        return None
    return sys.executable


def _task_per_row(names: Mapping[str, str], args: Callable[..., list[str]]) -> _ArrowMap:
    """A mapInArrow function that runs, for each input row, the binary with
    args(local paths of the shipped inputs by role, *the row's values) and
    streams its output."""

    def task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import SparkFiles

        local = {role: SparkFiles.get(n) for role, n in names.items()}
        for b in batches:
            for row in zip(*(c.to_pylist() for c in b.columns)):
                yield from _stream([binary(), *args(local, *row)], None)

    return task


def _collect(df: DataFrame) -> pa.Table:
    """A DataFrame's rows as a pyarrow Table on the driver."""
    if hasattr(df, "toArrow"):  # Spark >= 4
        return df.toArrow()
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)


def _create(session: SparkSession, table: pa.Table) -> DataFrame:
    """A DataFrame of a pyarrow Table."""
    try:
        return session.createDataFrame(table)  # Spark >= 4 takes Arrow
    except TypeError:
        return session.createDataFrame(table.to_pandas())


def _input_flags(paths: Mapping[str, str]) -> list[str]:
    """--role=path for each input: a path is never read as a flag."""
    return [f"--{role}={path}" for role, path in paths.items()]


def _run_ipc(args: Sequence[str], stdin: Optional[bytes] = None) -> pa.Table:
    """Run the binary with args, which write an Arrow IPC stream on stdout,
    and return the stream as a Table. Output that is not an Arrow IPC stream
    (ORDINATE_BIN naming another program) is an OrdinateError."""
    out = run(args, stdin=stdin)
    try:
        return pa.ipc.open_stream(out).read_all()
    except pa.ArrowException as e:
        raise _not_ipc([binary(), *map(str, args)], e, out) from None


def _not_ipc(argv: Sequence[str], error: Exception, out: Optional[bytes] = None) -> OrdinateError:
    """The OrdinateError for a program that exited 0 without writing an
    Arrow IPC stream (out: what it wrote, when known)."""
    what = f"{error}" if out is None else f"{len(out)} bytes{f' beginning {bytes(out[:16])!r}' if out else ''}: {error}"
    via = f" (ORDINATE_BIN={os.environ['ORDINATE_BIN']!r})" if os.environ.get("ORDINATE_BIN") else ""
    return OrdinateError(
        f"{argv[0]}{via} exited 0 but its output is not an Arrow IPC stream ({what}); "
        f"is it the ordinate binary? ({' '.join(map(str, argv[1:]))})",
        returncode=0, argv=argv)


# This process's private folder for the copies it ships (made on first use
# by mkdtemp: a new name, mode 0700; removed when the process exits).
_ship_root: Optional[str] = None
_ship_lock = threading.Lock()


def _ship_all(sc: SparkContext, paths: Mapping[str, _Path]) -> dict[str, str]:
    """Ship each path (by role) and return the shipped names by role."""
    return {role: _ship(sc, path) for role, path in paths.items()}


def _ship(sc: SparkContext, path: _Path) -> str:
    """Ship a file or a folder (a Parquet dataset that Spark wrote) with the
    job (SparkContext.addFile) under a name made of its content hash, and
    return that name for SparkFiles.get.

    The copy goes to a private folder of this process (tempfile.mkdtemp:
    unpredictable, mode 0700, removed at exit), so nothing another user or
    another driver put in the temporary directory is shipped, and two
    drivers never share a copy. The content is hashed as it is copied (the
    copy is what was hashed, whatever happens to the source meanwhile), and
    the copy appears under its name by one rename. Spark refuses a second
    file of the same name from another path, and treats the same path as
    already shipped: naming the copy by its hash makes shipping the same data
    again a no-op (the copy made before is verified against its name) and
    changed data a new name.
    """
    src = os.path.abspath(os.fspath(path))
    if not (os.path.isdir(src) or os.path.isfile(src)):
        raise OrdinateError(f"{src!r}: no such file or folder (ordinate.spark ships it with the job)")
    with _ship_lock:
        root = _private_root()
        stage = tempfile.mkdtemp(prefix=".copy-", dir=root)
        try:
            copy = os.path.join(stage, "copy")
            digest = _hash_tree(src, copy, follow=True)
            name = digest[:20] + "-" + os.path.basename(src.rstrip(os.sep))
            dst = os.path.join(root, name)
            if os.path.lexists(dst):
                # Shipped before by this process: it must still be what was shipped.
                if _verify(dst) != digest:
                    raise OrdinateError(
                        f"{dst}: the copy of {src} that this process shipped has changed since; "
                        "it is not shipped again")
            else:
                os.rename(copy, dst)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        if not any(f.endswith("/" + name) for f in getattr(sc, "listFiles", [])):
            sc.addFile(dst, recursive=os.path.isdir(dst))
    return name


def _private_root() -> str:
    global _ship_root
    if _ship_root is None or not os.path.isdir(_ship_root):
        _ship_root = tempfile.mkdtemp(prefix="ordinate-spark-")
        atexit.register(shutil.rmtree, _ship_root, ignore_errors=True)
    return _ship_root


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO is refused, not waited on


def _hash_tree(src: str, dst: Optional[str] = None, *, follow: bool) -> str:
    """The content hash (hex) of a file or a folder (its files' relative
    paths and contents, in path order), copying it to dst (new files, mode
    0600, never through a symlink) as it reads, when dst is given. follow:
    whether a symlink among src's files is read (the user's data), or is a
    change (a shipped copy, which holds none)."""
    h = hashlib.sha256()
    if os.path.isdir(src) and (follow or not os.path.islink(src)):
        h.update(b"folder\0")
        if dst is not None:
            os.mkdir(dst, 0o700)
        for rel in _files(src):
            h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
            out: Optional[str] = None
            if dst is not None:
                out = os.path.join(dst, rel)
                os.makedirs(os.path.dirname(out), mode=0o700, exist_ok=True)
            h.update(_hash_file(os.path.join(src, rel), out, follow))
    else:
        h.update(b"file\0")
        h.update(_hash_file(src, dst, follow))
    return h.hexdigest()


def _files(root: str) -> list[str]:
    """The relative paths of the files under root, sorted (os.walk, which
    does not enter symlinked folders)."""
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def _hash_file(src: str, dst: Optional[str], follow: bool) -> bytes:
    h = hashlib.sha256()
    fd = os.open(src, os.O_RDONLY | _NONBLOCK | (0 if follow else _NOFOLLOW))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OrdinateError(f"{src}: not a regular file (ordinate.spark ships files and folders of files)")
    with open(fd, "rb") as f:
        out: Optional[IO[bytes]] = None
        if dst is not None:
            out = open(os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600), "wb")
        try:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
                if out is not None:
                    out.write(chunk)
        finally:
            if out is not None:
                out.close()
    return h.digest()


def _verify(path: str) -> Optional[str]:
    """The content hash of a shipped copy, or None when it cannot be read as
    one (a symlink in it, a file gone)."""
    if os.path.islink(path):
        return None
    try:
        return _hash_tree(path, follow=False)
    except (OSError, OrdinateError):
        return None


def _arrow_schema(df: DataFrame) -> pa.Schema:
    """The Arrow schema of the batches df's mapInArrow tasks receive:
    timestamps in the session's time zone, large strings and binaries when
    spark.sql.execution.arrow.useLargeVarTypes is on."""
    from pyspark.sql.pandas.types import to_arrow_schema

    conf = df.sparkSession.conf
    tz = conf.get("spark.sql.session.timeZone")
    large = str(conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false")).lower() == "true"
    try:
        return to_arrow_schema(df.schema, timezone=tz, prefers_large_types=large)
    except TypeError:  # Spark 3.5: no such keywords (timestamps in UTC)
        return to_arrow_schema(df.schema)


def _spark_schema(arrow_schema: pa.Schema, in_schema: Optional[StructType]) -> StructType:
    """The Spark schema of the binary's output: passed-through columns keep
    their input type (in_schema, a Spark schema or None); the others
    (emb_*, a default id) come from Arrow."""
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    inputs = {f.name: f for f in in_schema.fields} if in_schema is not None else {}
    fields = []
    for f in arrow_schema:
        if f.name in inputs:
            fields.append(inputs[f.name])
        else:
            fields.append(StructField(f.name, from_arrow_type(f.type), f.nullable))
    return StructType(fields)


def _output_schema(model: str, in_schema: pa.Schema, flags: Sequence[str], *, label: Optional[str] = None,
                   soft_labels: Union[str, Sequence[str], None] = None) -> pa.Schema:
    """The Arrow schema `ordinate apply` writes for rows of in_schema.

    The binary itself says: it applies the model to one made-up row of the
    input's schema, which needs no data and no Spark job. The row holds a
    valid value of every column's type (0, "0", the epoch, an empty list, a
    dictionary of one such value: an id of any type the binary takes), the
    model's first class in the label column (a class it knows), and nulls in
    the soft-label columns (an unlabelled row). The binary's error (a feature
    the input lacks, a label column that does not fit the model's classes, a
    bad model or option) is raised here, on the driver, before any task
    starts.
    """
    soft: set[str] = set()
    if soft_labels is not None:
        items = soft_labels if isinstance(soft_labels, (list, tuple)) else str(soft_labels).split(",")
        soft = {str(c).strip() for c in items}
    classes = _model_classes(model) if label else None
    cols = []
    for f in in_schema:
        if f.name in soft:
            cols.append(pa.nulls(1, type=f.type))
        elif f.name == label and classes:
            cols.append(_class_value(f.type, classes[0]))
        else:
            cols.append(_one_value(f.type))
    row = pa.record_batch(cols, schema=in_schema)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, in_schema) as w:
        w.write_batch(row)
    out = _run_ipc(["apply", "--model=" + os.fspath(model), "--in", "-", "--out", "-", "--quiet", *flags],
                   stdin=sink.getvalue().to_pybytes())
    return out.schema.remove_metadata()


def _model_header(model: str) -> Optional[dict[str, Any]]:
    """A model file's header (the ordinate.model metadata of a Parquet or
    Arrow IPC file), or None."""
    try:
        import pyarrow.parquet as pq

        md = pq.ParquetFile(model).metadata.metadata
    except (OSError, pa.ArrowException):
        try:
            md = pa.ipc.open_file(model).schema.metadata
        except (OSError, pa.ArrowException):
            return None
    try:
        header = json.loads((md or {})[b"ordinate.model"])
    except (KeyError, TypeError, ValueError):
        return None
    return header if isinstance(header, dict) else None


def _model_classes(model: str) -> Optional[list[str]]:
    """The classes a model was fitted with (its header's params.classes, as
    text), or None."""
    try:
        classes = (_model_header(model) or {})["params"]["classes"]
    except (KeyError, TypeError):
        return None
    return [str(c) for c in classes] if isinstance(classes, list) and classes else None


def _transform_affine(df: DataFrame, model: str, out_arrow: pa.Schema, id: Optional[str], on_invalid: str) -> DataFrame:
    """transform of an affine model as column expressions: the coordinates
    are the expressions of `ordinate sql --dialect spark`, the other
    columns pass through, in the order of out_arrow (apply's). Rows with a
    NaN, ±Inf or null feature fail the job naming the row's id, or are
    dropped (on_invalid="drop"), in a filter that no later projection can
    prune."""
    from pyspark.sql import functions as F

    info = json.loads(run(["sql", "--model", model, "--dialect", "spark", "--json"]))
    exprs = {c["name"]: c["expression"] for c in info["columns"]}
    features = info["features"]
    if info.get("feature_list"):
        lst = F.col(_quoted(info["feature_list"]))
        refs = [(f"{info['feature_list']}[{i}]", lst.getItem(i)) for i in range(len(features))]
    else:
        refs = [(f, F.col(_quoted(f))) for f in features]
    # x·0 is 0 for a finite x, NaN for NaN or ±Inf, null for null: one sum
    # tests every feature of a row at the cost of one more coordinate.
    zero = F.lit(0.0)
    for _, c in refs:
        zero = zero + c.cast("double") * F.lit(0.0)
    ok = F.coalesce(zero == F.lit(0.0), F.lit(False))
    if info.get("feature_list"):
        ok = ok & F.coalesce(F.size(lst) == len(features), F.lit(False))
    if on_invalid == "drop":
        df = df.where(ok)
    else:
        # The message names the row's id, not the column: the generated
        # code that finds the column made the filter JIT-hostile (2.7× as
        # slow on 10^7 rows); via="binary" names both.
        names = ", ".join(name for name, _ in refs).replace("%", "%%")
        text = (f"ordinate transform: a feature ({names}) holds NaN, ±Inf or null{{}} (apply refuses such rows and "
                f'names the column; on_invalid="drop" drops them)')
        if id is None:
            msg = F.lit(text.format(" in a row (transform(id=...) names the row)").replace("%%", "%"))
        else:
            msg = F.format_string(text.format(" at id %s"), F.col(_quoted(id)))
        df = df.where(F.when(ok, F.lit(True)).otherwise(F.raise_error(msg)))
    cols = []
    for name in out_arrow.names:
        if name in exprs:
            cols.append(F.expr(exprs[name]).alias(name))
        else:
            cols.append(F.col(_quoted(name)))
    return df.select(*cols)


def _quoted(name: str) -> str:
    """A column name as Spark SQL reads it literally (dots, spaces, backticks)."""
    return "`" + name.replace("`", "``") + "`"


def _class_value(t: pa.DataType, name: str) -> pa.Array[Any]:
    """The class name as a value of type t (an integer, a string, a
    dictionary …), or a made-up value when it does not convert."""
    try:
        return pa.array([name], pa.string()).cast(t)
    except (pa.ArrowException, ValueError, TypeError):
        return _one_value(t)


def _one_value(t: pa.DataType) -> pa.Array[Any]:
    """One valid value (not null) of type t, as an array of length 1: 0,
    False, "0", b"0", the epoch, an empty list, a struct or a dictionary of
    such values; null only for a type that has no value made up here."""
    try:
        if pa.types.is_dictionary(t):
            return pa.DictionaryArray.from_arrays(pa.array([0], t.index_type), _one_value(t.value_type), ordered=t.ordered)
        if pa.types.is_struct(t):
            return pa.StructArray.from_arrays([_one_value(f.type) for f in t], fields=list(t))
        if pa.types.is_fixed_size_binary(t):
            return pa.array([bytes(t.byte_width)], type=t)
        if pa.types.is_fixed_size_list(t):
            return pa.array([[_one_value(t.value_type)[0].as_py()] * t.list_size], type=t)
    except (pa.ArrowException, ValueError, TypeError):
        return pa.nulls(1, type=t)  # type: ignore[call-overload,no-any-return]  # stubs: nulls is typed per concrete type
    v: object
    for v in (0, "0", b"0", []):
        try:
            return pa.array([v], type=t)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            continue
    return pa.nulls(1, type=t)  # type: ignore[call-overload,no-any-return]  # stubs: nulls is typed per concrete type


def _stream(argv: Sequence[str], batches: Optional[Iterable[pa.RecordBatch]]) -> Iterator[pa.RecordBatch]:
    """Stream record batches through one process: IPC in on stdin (from a
    writer thread), IPC out on stdout (yielded here). batches None runs the
    process with nothing on stdin (it reads its inputs from files).

    A non-zero exit raises OrdinateError with the process's stderr. The
    process is killed whenever the generator ends before it did (an error,
    the consumer closing the iterator early), so it never outlives its task.
    """
    it: Optional[Iterator[pa.RecordBatch]]
    first: Optional[pa.RecordBatch]
    if batches is None:
        it, first = None, None
    else:
        it = iter(batches)
        first = next(it, None)
        if first is None:
            return  # an empty partition: nothing to apply (the binary refuses no rows)

    stdin = subprocess.DEVNULL if it is None else subprocess.PIPE
    # On Linux the binary asks for SIGTERM when this process (the thread
    # that starts it) dies, so that a worker killed without warning leaves
    # no ordinate computing for nobody (a tile or a block reads no stdin
    # whose end would stop it).
    env = dict(_env(), ORDINATE_EXIT_WITH_PARENT=str(os.getpid()))
    proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    stderr = bytearray()
    failure: list[BaseException] = []  # an exception from the input iterator (not a broken pipe)

    def drain_stderr() -> None:
        assert proc.stderr is not None  # stderr=PIPE
        for line in proc.stderr:
            if len(stderr) < _STDERR_LIMIT:
                stderr.extend(line[: _STDERR_LIMIT - len(stderr)])

    def feed() -> None:
        # feed runs only with an input (it and first set); stdin=PIPE is a
        # buffered file (typed IO[bytes], which pyarrow's stubs do not take).
        assert isinstance(proc.stdin, io.IOBase) and it is not None and first is not None
        try:
            with pa.ipc.new_stream(proc.stdin, first.schema) as w:
                w.write_batch(first)
                for b in it:
                    w.write_batch(b)
        except (BrokenPipeError, OSError, pa.ArrowException):
            # The process stopped reading: it exited (its status says why)
            # or was killed by the reader.
            pass
        except BaseException as e:
            # The input failed: kill the process rather than close its stdin,
            # which would end the stream as if it were complete.
            failure.append(e)
            proc.kill()
            return
        try:
            proc.stdin.close()
        except OSError:
            pass

    threads = [threading.Thread(target=drain_stderr, name="ordinate-stderr", daemon=True)]
    if it is not None:
        threads.append(threading.Thread(target=feed, name="ordinate-stdin", daemon=True))
    for t in threads:
        t.start()
    try:
        read_error: Optional[pa.ArrowException] = None
        try:
            assert isinstance(proc.stdout, io.IOBase)  # stdout=PIPE: a buffered file
            reader = pa.ipc.open_stream(proc.stdout)
            for b in reader:
                yield b
        except pa.ArrowException as e:
            read_error = e  # a cut stream: the exit status and stderr say why
        rc = proc.wait()
        threads[0].join()
        if failure:
            raise failure[0]
        if rc != 0:
            raise OrdinateError.from_exit(argv, rc, bytes(stderr))
        if read_error is not None:
            raise _not_ipc(argv, read_error)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for t in threads:
            t.join(timeout=10)
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is None:
                continue
            try:
                f.close()
            except OSError:
                pass

"""ordinate stages on Apache Spark (>= 3.5), built on DataFrame.mapInArrow.

Each partition's Arrow record batches stream through one ordinate process:
Arrow IPC on its stdin, Arrow IPC back on its stdout. Nothing is computed in
Python.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading

import pyarrow as pa

from ordinate import describe
from ordinate.cli import OrdinateError, binary, run

# How much of the binary's stderr to keep for an error message.
_STDERR_LIMIT = 64 << 10

# tile 0,0 of this many holds no pairs: the binary writes the output's
# schema without a fit (fisher --tile).
_SCHEMA_TILES = 2**31 - 1

__all__ = ["transform", "fisher_distances", "evaluate"]


def transform(df, model, *, id=None, keep=None):
    """Apply a saved ordinate model to every row of df.

    model is the path (on the driver) of a model table written by
    --model-out (linear, kernel, t-SNE or NeRV); it is shipped with the job.
    id names the row identity column, passed through unchanged; keep is a
    column name, a comma list, or a list of names and globs to pass through.
    The result has the columns id (if given), the kept columns, and
    emb_0 ... emb_{d-1} (double), as `ordinate apply` writes them. Without an
    id there is no identity column: the CLI's default (row numbers) would
    restart in every partition.

    The binary's failures (bad data, a model that does not fit the columns)
    raise OrdinateError on the driver or fail the task with the binary's
    stderr in the message.
    """
    if not os.path.isfile(model):
        raise OrdinateError(f"model {model!r}: no such file")
    if isinstance(keep, (list, tuple)):
        keep = ",".join(keep)
    opts = []
    if id is not None:
        opts += ["--id", id]
    if keep:
        opts += ["--keep", keep]

    sc = df.sparkSession.sparkContext
    name = _ship(sc, model)

    in_schema = _arrow_schema(df.schema)
    out_arrow = _output_schema(model, in_schema, opts)
    drop_id = id is None
    if drop_id:
        out_arrow = out_arrow.remove(0)
    out_schema = _spark_schema(out_arrow, df.schema)

    def apply_partition(batches):
        from pyspark import SparkFiles

        argv = [binary(), "apply", "--model", SparkFiles.get(name), "--in", "-", "--out", "-", "--quiet", *opts]
        for b in _stream(argv, batches):
            if drop_id:
                b = b.drop_columns([b.schema.names[0]])
            yield b

    return df.mapInArrow(apply_partition, out_schema)


def fisher_distances(similarity, labels=None, *, tiles, session=None, **options):
    """The Fisher distance matrix, computed in tiles: one Spark task per tile.

    similarity (and labels, when the similarity is long) are paths of
    tables (files or folders) on the driver, shipped with the job; options are the fisher
    stage's options as keywords (id="id", label="label", upper=True,
    metric="kernel", steps=10, ...: `ordinate fisher --help`). The objects
    are split in `tiles` blocks of rows; every task runs
    `ordinate fisher ... --tile I,J/T --out -` for its tile (I <= J only with
    upper=True) and each reads the whole inputs, so the union of the tiles is
    the one-machine long table i, j, distance bit for bit (rows in another
    order). The output schema comes from the binary on the driver (an empty
    tile, which needs no fit), so bad inputs or options fail before any task.
    """
    inputs = {"similarity": similarity}
    if labels is not None:
        inputs["labels"] = labels
    session, names, flags = _prepare(
        session, "fisher", inputs, options, ("tile", "out", "format", "neighbors"),
        "fisher_distances sets {} itself (tiled long tables need dense distances)", "tiles", tiles)

    driver = [*_input_flags(inputs), *flags]
    out = run(["fisher", *driver, "--tile", f"0,0/{_SCHEMA_TILES}", "--out", "-", "--quiet"])
    schema = _spark_schema(pa.ipc.open_stream(out).schema.remove_metadata(), None)

    upper = bool(options.get("upper"))
    pairs = [(i, j) for i in range(tiles) for j in range(tiles) if not upper or i <= j]

    tile_task = _task_per_row(names, lambda local, i, j: [
        "fisher", *_input_flags(local), *flags, "--tile", f"{i},{j}/{tiles}", "--out", "-", "--quiet"])

    return _one_task_each(session, pairs, "tile_i int, tile_j int").mapInArrow(tile_task, schema)


def evaluate(embedding, table, *, blocks, session=None, **options):
    """The exact neighbourhood and class metrics of an embedding, in blocks.

    embedding and table are paths on the driver (the embedding, for example
    the folder transform's output was written to, and the table it was made
    from), shipped with the job; options are the evaluate
    stage's options as keywords (id="id", label="label", k=[5, 10, 30],
    ordinal=True, ...: `ordinate evaluate --help`). Each of `blocks` Spark
    tasks runs `ordinate evaluate ... --block i/B --out -`: it ranks the
    neighbours of its block's points among all points and returns the
    block's integer sums. The driver collects the sums (about N rows per
    block) and merges them with `ordinate evaluate --partials`, which checks
    that every point was scored exactly once by blocks of the same inputs.
    Returns the metrics (metric, k, subset, value) as a DataFrame, equal to
    `ordinate evaluate` on one machine bit for bit.
    """
    session, names, flags = _prepare(
        session, "evaluate", {"embedding": embedding, "in": table}, options,
        ("block", "out", "summary", "partials", "triplets", "distances"),
        "evaluate does not take {}: it scores an embedding in blocks and merges them", "blocks", blocks)

    block_task = _task_per_row(names, lambda local, i: [
        "evaluate", *_input_flags(local), *flags, "--block", f"{i}/{blocks}", "--out", "-", "--quiet"])

    parts = _one_task_each(session, [(i,) for i in range(blocks)], "block int").mapInArrow(block_task, _spark_schema(PARTIAL_SCHEMA, None))
    table = _collect(parts)
    with tempfile.TemporaryDirectory(prefix="ordinate-evaluate-") as d:
        path = os.path.join(d, "partials.arrows")
        with pa.OSFile(path, "wb") as f, pa.ipc.new_stream(f, table.schema) as w:
            w.write_table(table)
        out = run(["evaluate", "--partials", path, "--out", "-", "--quiet"])
    metrics = pa.ipc.open_stream(out).read_all()
    metrics = metrics.replace_schema_metadata(None)
    return _create(session, metrics)


def _options_doc(fn, stage, exclude):
    """Appends the stage's keyword options, from the description the wheel
    carries, to fn's docstring (no binary runs at import)."""
    if describe.packaged():
        fn.__doc__ = (fn.__doc__ or "") + "\n\n" + describe.doc(stage, exclude=exclude)


_options_doc(fisher_distances, "fisher", ("tile", "out", "format", "neighbors"))
_options_doc(evaluate, "evaluate", ("block", "out", "summary", "partials", "triplets", "distances"))


# The partial sums of evaluate --block (kind metrics_partial), a data
# contract of the binary: every value an exact int64.
PARTIAL_SCHEMA = pa.schema(
    [
        pa.field("lo", pa.int64(), nullable=False),
        pa.field("hi", pa.int64(), nullable=False),
        pa.field("part", pa.string(), nullable=False),
        pa.field("index", pa.int64(), nullable=False),
        pa.field("value", pa.int64(), nullable=False),
    ]
)


def _prepare(session, stage, inputs, options, banned, why, count_name, count):
    """Checks the options a stage sets itself, the other options against the
    stage's description (ordinate.describe) and the task count, ships the
    inputs, and returns the session, the shipped names by role and the
    options as flags."""
    for b in banned:
        if b in options:
            raise ValueError(why.format(b))
    flags = describe.flags(stage, options)
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"{count_name} = {count!r}: want a whole number >= 1")
    session = _session(session)
    names = {role: _ship(session.sparkContext, path) for role, path in inputs.items()}
    return session, names, flags


def _session(session):
    if session is not None:
        return session
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate()


def _one_task_each(session, rows, schema):
    """A DataFrame of rows with one row per partition, so one task each."""
    rdd = session.sparkContext.parallelize(rows, max(1, len(rows)))
    return session.createDataFrame(rdd, schema)


def _task_per_row(names, args):
    """A mapInArrow function that runs, for each input row, the binary with
    args(local paths of the shipped inputs by role, *the row's values) and
    streams its output."""

    def task(batches):
        from pyspark import SparkFiles

        local = {role: SparkFiles.get(n) for role, n in names.items()}
        for b in batches:
            for row in zip(*(c.to_pylist() for c in b.columns)):
                yield from _stream([binary(), *args(local, *row)], None)

    return task


def _collect(df):
    """A DataFrame's rows as a pyarrow Table on the driver."""
    if hasattr(df, "toArrow"):  # Spark >= 4
        return df.toArrow()
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)


def _create(session, table):
    """A DataFrame of a pyarrow Table."""
    try:
        return session.createDataFrame(table)  # Spark >= 4 takes Arrow
    except TypeError:
        return session.createDataFrame(table.to_pandas())


def _input_flags(paths):
    out = []
    for role, path in paths.items():
        out += [f"--{role}", str(path)]
    return out


def _ship(sc, path):
    """Ship a file or a folder (a Parquet dataset that Spark wrote) with the
    job (SparkContext.addFile) under a name made of its content hash, and
    return that name for SparkFiles.get.

    Spark refuses a second file of the same name from another path, and
    treats the same path as already shipped: naming the copy by its hash
    makes adding the same data again a no-op and changed data a new name.
    """
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        files = sorted(
            os.path.relpath(os.path.join(d, f), path)
            for d, _, fs in os.walk(path)
            for f in fs
        )
    elif os.path.isfile(path):
        files = [""]
    else:
        raise OrdinateError(f"{path!r}: no such file or folder (ordinate.spark ships it with the job)")
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(path, rel) if rel else path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    d = os.path.join(tempfile.gettempdir(), "ordinate-spark-files")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, h.hexdigest()[:20] + "-" + os.path.basename(path.rstrip(os.sep)))
    if not os.path.exists(dst):
        tmp = dst + f".{os.getpid()}.tmp"
        if files == [""]:
            shutil.copyfile(path, tmp)
        else:
            shutil.copytree(path, tmp)
        os.replace(tmp, dst)
    name = os.path.basename(dst)
    if not any(f.endswith("/" + name) for f in getattr(sc, "listFiles", [])):
        sc.addFile(dst, recursive=os.path.isdir(dst))
    return name


def _arrow_schema(spark_schema):
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema)


def _spark_schema(arrow_schema, in_schema):
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


def _output_schema(model, in_schema, opts):
    """The Arrow schema `ordinate apply` writes for rows of in_schema.

    The binary itself says: it applies the model to one made-up row of the
    input's schema (zeros and empty strings), which needs no data and no
    Spark job. The binary's error (a feature the input lacks, a bad model)
    is raised here, on the driver, before any task starts.
    """
    row = pa.record_batch([_one_value(f.type) for f in in_schema], schema=in_schema)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, in_schema) as w:
        w.write_batch(row)
    out = run(["apply", "--model", model, "--in", "-", "--out", "-", "--quiet", *opts], stdin=sink.getvalue().to_pybytes())
    return pa.ipc.open_stream(out).schema.remove_metadata()


def _one_value(t):
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return pa.array([0], type=t)
    if pa.types.is_boolean(t):
        return pa.array([False], type=t)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return pa.array(["0"], type=t)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.array([b"0"], type=t)
    return pa.nulls(1, type=t)


def _stream(argv, batches):
    """Stream record batches through one process: IPC in on stdin (from a
    writer thread), IPC out on stdout (yielded here). batches None runs the
    process with nothing on stdin (it reads its inputs from files).

    A non-zero exit raises OrdinateError with the process's stderr. The
    process is killed whenever the generator ends before it did (an error,
    the consumer closing the iterator early), so it never outlives its task.
    """
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
    env = dict(os.environ, ORDINATE_EXIT_WITH_PARENT=str(os.getpid()))
    proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    stderr = bytearray()
    failure = []  # an exception from the input iterator (not a broken pipe)

    def drain_stderr():
        for line in proc.stderr:
            if len(stderr) < _STDERR_LIMIT:
                stderr.extend(line[: _STDERR_LIMIT - len(stderr)])

    def feed():
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
        read_error = None
        try:
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
            raise OrdinateError(f"reading the output of {' '.join(argv)}: {read_error}", argv=argv)
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

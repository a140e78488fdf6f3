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

from ordinate.cli import OrdinateError, binary, run

# How much of the binary's stderr to keep for an error message.
_STDERR_LIMIT = 64 << 10

__all__ = ["transform"]


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
    shipped = _stage_model(model)
    name = os.path.basename(shipped)
    if not any(f.endswith("/" + name) for f in getattr(sc, "listFiles", [])):
        sc.addFile(shipped)

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


def _stage_model(model):
    """A copy of the model named by its content, for SparkContext.addFile.

    Spark refuses a second file of the same name from another path, and
    treats the same path as already shipped: naming the copy by its hash
    makes adding the same model again a no-op and a changed one a new file.
    """
    h = hashlib.sha256()
    with open(model, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    d = os.path.join(tempfile.gettempdir(), "ordinate-spark-models")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, h.hexdigest()[:20] + "-" + os.path.basename(model))
    if not os.path.exists(dst):
        tmp = dst + f".{os.getpid()}.tmp"
        shutil.copyfile(model, tmp)
        os.replace(tmp, dst)
    return dst


def _arrow_schema(spark_schema):
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema)


def _spark_schema(arrow_schema, in_schema):
    """The Spark schema of the binary's output: passed-through columns keep
    their input type; the others (emb_*, a default id) come from Arrow."""
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    inputs = {f.name: f for f in in_schema.fields}
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
    writer thread), IPC out on stdout (yielded here).

    A non-zero exit raises OrdinateError with the process's stderr. The
    process is killed whenever the generator ends before it did (an error,
    the consumer closing the iterator early), so it never outlives its task.
    """
    it = iter(batches)
    first = next(it, None)
    if first is None:
        return  # an empty partition: nothing to apply (the binary refuses no rows)

    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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

    threads = [
        threading.Thread(target=drain_stderr, name="ordinate-stderr", daemon=True),
        threading.Thread(target=feed, name="ordinate-stdin", daemon=True),
    ]
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
            try:
                f.close()
            except OSError:
                pass

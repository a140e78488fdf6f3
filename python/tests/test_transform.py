"""ordinate.spark.transform in local[2] mode against `ordinate apply` on the
same files, bit for bit; the binary's failures; ORDINATE_BIN; the process's
lifetime."""

import os
import stat
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ordinate
from ordinate import OrdinateError
from ordinate import spark as ospark

from thyroid import FEATURES, THYROID, fit_models, noisy_rows


@pytest.fixture(scope="session")
def data(tmp_path_factory):
    """Models fitted on newthyroid and a four-file Parquet dataset of 4,300
    rows around its rows (seeded noise), with an id and a text column."""
    d = tmp_path_factory.mktemp("data")
    models = fit_models(d)
    rng = np.random.default_rng(14)
    n = 4300
    cols = {"id": np.arange(n, dtype=np.int64) * 7 + 3, **noisy_rows(rng, n)}
    cols["tag"] = np.array([f"t{i % 11}" for i in range(n)])
    table = pa.table(cols)
    parts = d / "parts"
    parts.mkdir()
    for i, start in enumerate(range(0, n, 1100)):
        pq.write_table(table.slice(start, 1100), parts / f"part-{i}.parquet", row_group_size=400)
    return {"dir": d, "parts": parts, "models": models, "n": n}


def reference(data, model, *args):
    """`ordinate apply` on the whole dataset on one machine, sorted by id."""
    out = data["dir"] / f"ref-{model.stem}-{abs(hash(args))}.parquet"
    ordinate.run(["apply", "--model", model, "--in", data["parts"], "--out", out, "--quiet", *args])
    return pq.read_table(out).sort_by("id")


def collect(df):
    if hasattr(df, "toArrow"):  # Spark >= 4
        return df.toArrow().sort_by("id")
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False).sort_by("id")


def assert_same_bits(got, want):
    assert got.column_names == want.column_names
    assert got.num_rows == want.num_rows
    for name in want.column_names:
        g, w = got.column(name).to_numpy(zero_copy_only=False), want.column(name).to_numpy(zero_copy_only=False)
        if g.dtype == np.float64:
            assert np.array_equal(g.view(np.int64), w.view(np.int64)), name
        else:
            assert list(g) == list(w), name


@pytest.mark.parametrize("stage", ["pca", "tsne"])
def test_transform_matches_cli(spark, data, stage):
    model = data["models"][stage]
    # More partitions than files, one of them empty-prone, in shuffled order.
    df = spark.read.parquet(str(data["parts"])).repartition(7)
    out = ospark.transform(df, str(model), id="id", keep=["label", "tag"])
    assert out.columns == ["id", "label", "tag", "emb_0", "emb_1"]
    assert [f.dataType.simpleString() for f in out.schema.fields] == ["bigint", "bigint", "string", "double", "double"]
    assert_same_bits(collect(out), reference(data, model, "--id", "id", "--keep", "label,tag"))


def test_transform_without_id_or_keep(spark, data):
    df = spark.read.parquet(str(data["parts"])).select(*FEATURES)
    out = ospark.transform(df, str(data["models"]["pca"]))
    assert out.columns == ["emb_0", "emb_1"]
    assert out.count() == data["n"]


def test_transform_empty_partitions(spark, data):
    df = spark.read.parquet(str(data["parts"])).where("id < 50").repartition(8)
    got = collect(ospark.transform(df, str(data["models"]["pca"]), id="id"))
    want = reference(data, data["models"]["pca"], "--id", "id").filter(pa.compute.less(pa.compute.field("id"), 50))
    assert_same_bits(got, want)


def test_bad_model_path(spark, data):
    df = spark.read.parquet(str(data["parts"]))
    with pytest.raises(OrdinateError, match="no such file"):
        ospark.transform(df, str(data["dir"] / "missing.model.parquet"), id="id")


def test_not_a_model(spark, data):
    df = spark.read.parquet(str(data["parts"]))
    with pytest.raises(OrdinateError) as e:
        ospark.transform(df, str(THYROID), id="id")
    assert e.value.returncode not in (None, 0)
    assert e.value.stderr.strip() and e.value.stderr.strip() in str(e.value)


def test_wrong_features(spark, data):
    df = spark.read.parquet(str(data["parts"])).drop("x3")
    with pytest.raises(OrdinateError) as e:
        ospark.transform(df, str(data["models"]["pca"]), id="id")
    assert "x3" in e.value.stderr


def test_task_failure_carries_stderr(spark, data):
    # A NaN only the executors see: the task fails with the binary's message.
    from pyspark.sql import functions as F

    df = spark.read.parquet(str(data["parts"])).withColumn(
        "x2", F.when(F.col("id") == 7 * 1234 + 3, F.lit(float("nan"))).otherwise(F.col("x2")))
    out = ospark.transform(df, str(data["models"]["pca"]), id="id")
    with pytest.raises(Exception) as e:
        out.collect()
    msg = str(e.value)
    assert "OrdinateError" in msg and "exited with code" in msg
    assert '"x2"' in msg and "8641" in msg  # the column and the row's id, from the binary's stderr


def wrapper(tmp_path, real):
    """An executable that logs each call (with its pid) and runs the real binary."""
    log = tmp_path / "calls.log"
    w = tmp_path / "ordinate-wrapper"
    w.write_text(f'#!/bin/sh\necho "$$ $*" >> "{log}"\nexec "{real}" "$@"\n')
    w.chmod(w.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return w, log


def test_ordinate_bin(spark, data, tmp_path, monkeypatch):
    want = reference(data, data["models"]["pca"], "--id", "id")
    w, log = wrapper(tmp_path, ordinate.binary())
    monkeypatch.setenv("ORDINATE_BIN", str(w))  # the driver
    sc = spark.sparkContext
    sc.environment["ORDINATE_BIN"] = str(w)  # the Python workers (spark.executorEnv)
    try:
        assert ordinate.binary() == str(w)
        df = spark.read.parquet(str(data["parts"])).repartition(3)
        got = collect(ospark.transform(df, str(data["models"]["pca"]), id="id"))
    finally:
        del sc.environment["ORDINATE_BIN"]
    assert_same_bits(got, want)
    calls = log.read_text().splitlines()
    # One call on the driver (the output schema), one per partition.
    assert len(calls) == 4 and all(" apply --model " in c for c in calls)


def test_binary_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("ORDINATE_BIN", str(tmp_path / "nope"))
    with pytest.raises(OrdinateError, match="ORDINATE_BIN"):
        ordinate.binary()
    monkeypatch.delenv("ORDINATE_BIN")
    assert os.access(ordinate.binary(), os.X_OK)


def test_run_error():
    with pytest.raises(OrdinateError) as e:
        ordinate.run(["apply", "--model", "/nonexistent.parquet", "--in", THYROID, "--out", "-"])
    assert e.value.returncode != 0 and "/nonexistent.parquet" in e.value.stderr


def batches(data, fail_after=None):
    t = pq.read_table(data["parts"]).select(["id", *FEATURES])
    for i, b in enumerate(t.to_batches(max_chunksize=500)):
        if fail_after is not None and i == fail_after:
            raise ValueError("upstream failed")
        yield b


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_early_close_kills_process(data, tmp_path):
    w, log = wrapper(tmp_path, ordinate.binary())
    argv = [str(w), "apply", "--model", str(data["models"]["tsne"]), "--in", "-", "--out", "-", "--quiet", "--id", "id"]
    it = ospark._stream(argv, batches(data))
    first = next(it)
    assert first.num_rows > 0
    pid = int(log.read_text().split()[0])
    assert not gone(pid)
    it.close()
    assert gone(pid)


def test_input_failure_kills_process(data, tmp_path):
    w, log = wrapper(tmp_path, ordinate.binary())
    argv = [str(w), "apply", "--model", str(data["models"]["pca"]), "--in", "-", "--out", "-", "--quiet", "--id", "id"]
    with pytest.raises(ValueError, match="upstream failed"):
        for _ in ospark._stream(argv, batches(data, fail_after=3)):
            pass
    assert gone(int(log.read_text().split()[0]))


@pytest.mark.parametrize("cut", ["mid-message", "no end marker"])
def test_truncated_stream_fails(data, cut):
    """A cut input stream (a task killed mid-stream) makes the binary exit
    non-zero, and its output never ends as a complete stream."""
    t = pq.read_table(data["parts"]).select(["id", *FEATURES])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        for b in t.to_batches(max_chunksize=500):
            w.write_batch(b)
    full = sink.getvalue().to_pybytes()
    stream = full[: len(full) // 2] if cut == "mid-message" else full[:-8]  # the end marker is 8 bytes
    argv = [ordinate.binary(), "apply", "--model", str(data["models"]["pca"]), "--in", "-", "--out", "-", "--quiet", "--id", "id"]
    p = subprocess.run(argv, input=stream, capture_output=True)
    assert p.returncode != 0
    assert b"-: damaged or unreadable file" in p.stderr, p.stderr
    reader = pa.ipc.open_stream(p.stdout) if p.stdout else None
    if reader is not None:
        # pyarrow treats a stream without its end marker as ended; what
        # was written must not claim to be all the rows.
        assert sum(b.num_rows for b in _read_partial(reader)) < t.num_rows
    assert not p.stdout.endswith(b"\xff\xff\xff\xff\x00\x00\x00\x00")


def _read_partial(reader):
    try:
        for b in reader:
            yield b
    except pa.ArrowInvalid:
        return

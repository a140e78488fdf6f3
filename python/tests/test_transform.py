"""ordinate.spark.transform in local[2] mode against `ordinate apply` on the
same files, bit for bit; the binary's failures; ORDINATE_BIN; the process's
lifetime."""

import os
import stat
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ordinate
from ordinate import OrdinateError, describe
from ordinate import spark as ospark

from thyroid import FEATURES, THYROID, fit_models, noisy_rows


@pytest.fixture(scope="session")
def data(tmp_path_factory):
    """Models fitted on newthyroid and a four-file Parquet dataset of 4,300
    rows around its rows (seeded noise), with an id and a text column."""
    d = tmp_path_factory.mktemp("data")
    models = fit_models(d, ("pca", "tsne", "fisher-tsne"))
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


@pytest.mark.parametrize("stage", ["pca", "tsne", "fisher-tsne"])
def test_transform_matches_cli(spark, data, stage):
    model = data["models"][stage]
    # More partitions than files, one of them empty-prone, in shuffled order.
    df = spark.read.parquet(str(data["parts"])).repartition(7)
    out = ospark.transform(df, str(model), id="id", keep=["label", "tag"])
    assert out.columns == ["id", "label", "tag", "emb_0", "emb_1"]
    assert [f.dataType.simpleString() for f in out.schema.fields] == ["bigint", "bigint", "string", "double", "double"]
    assert_same_bits(collect(out), reference(data, model, "--id", "id", "--keep", "label,tag"))


def plan(df):
    return df._jdf.queryExecution().executedPlan().toString()


@pytest.mark.parametrize("via", ["auto", "expressions"])
def test_transform_affine_as_expressions(spark, data, via):
    """An affine model runs as column expressions (no Python worker in the
    plan) with apply's bits, the binary path with the same bits."""
    model = str(data["models"]["pca"])
    df = spark.read.parquet(str(data["parts"])).repartition(7)
    out = ospark.transform(df, model, id="id", keep=["label", "tag"], via=via)
    assert "MapInArrow" not in plan(out) and "Python" not in plan(out), plan(out)
    assert out.columns == ["id", "label", "tag", "emb_0", "emb_1"]
    # The binary path's names and types. Its coordinates are declared not
    # null; Spark cannot prove that of an expression, and saying it with
    # coalesce made the filter's code too large to JIT (2.5× as slow), so
    # here they are nullable, with no null in them.
    assert [(f.name, f.dataType.simpleString()) for f in out.schema.fields] == \
        [(f.name, f.dataType.simpleString()) for f in ospark.transform(df, model, id="id", keep=["label", "tag"], via="binary").schema.fields]
    want = reference(data, data["models"]["pca"], "--id", "id", "--keep", "label,tag")
    got = collect(out)
    assert got.column("emb_0").null_count == 0 and got.column("emb_1").null_count == 0
    assert_same_bits(got, want)
    binary = ospark.transform(df, model, id="id", keep=["label", "tag"], via="binary")
    assert "MapInArrow" in plan(binary)
    assert_same_bits(collect(binary), want)


def test_transform_affine_invalid_rows(spark, data):
    """A NaN or null feature fails the job naming the row's id, even when
    only one coordinate is selected; on_invalid="drop" drops the row as
    apply does."""
    from pyspark.sql import functions as F

    bad_id = 7 * 1234 + 3
    df = spark.read.parquet(str(data["parts"])).withColumn(
        "x2", F.when(F.col("id") == bad_id, F.lit(float("nan"))).otherwise(F.col("x2")))
    model = str(data["models"]["pca"])
    for out in (ospark.transform(df, model, id="id"), ospark.transform(df, model, id="id").select("emb_1")):
        with pytest.raises(Exception) as e:
            out.collect()
        assert f"holds NaN, ±Inf or null at id {bad_id}" in str(e.value) and "(x1, x2, x3, x4, x5)" in str(e.value)
    clean = spark.read.parquet(str(data["parts"]))
    nulls = clean.withColumn("x4", F.when(F.col("id") == 3, F.lit(None).cast("double")).otherwise(F.col("x4")))
    with pytest.raises(Exception, match=r"holds NaN, ±Inf or null at id 3 \(apply"):
        ospark.transform(nulls, model, id="id").collect()
    with pytest.raises(Exception, match="in a row"):
        ospark.transform(nulls.drop("id"), model).collect()
    got = collect(ospark.transform(df, model, id="id", on_invalid="drop"))
    assert got.num_rows == data["n"] - 1
    rows = pq.read_table(data["parts"])
    path = data["dir"] / "with-nan.parquet"
    x2 = np.where(rows.column("id").to_numpy() == bad_id, np.nan, rows.column("x2").to_numpy())
    pq.write_table(rows.set_column(rows.schema.get_field_index("x2"), "x2", pa.array(x2)), path)
    want = data["dir"] / "with-nan-applied.parquet"
    ordinate.run(["apply", "--model", model, "--in", path, "--id", "id", "--on-invalid", "drop", "--out", want, "--quiet"])
    assert_same_bits(got, pq.read_table(want).sort_by("id"))


def test_transform_via(spark, data):
    df = spark.read.parquet(str(data["parts"]))
    with pytest.raises(OrdinateError, match="serves affine models"):
        ospark.transform(df, str(data["models"]["tsne"]), id="id", via="expressions")
    with pytest.raises(ValueError, match="want one of auto, expressions, binary"):
        ospark.transform(df, str(data["models"]["pca"]), via="sql")


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
    out = ospark.transform(df, str(data["models"]["pca"]), id="id", via="binary")
    with pytest.raises(Exception) as e:
        out.collect()
    msg = str(e.value)
    assert "DataError" in msg and "exited with code" in msg  # OrdinateError of the data kind
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
        got = collect(ospark.transform(df, str(data["models"]["pca"]), id="id", via="binary"))
    finally:
        del sc.environment["ORDINATE_BIN"]
    assert_same_bits(got, want)
    calls = log.read_text().splitlines()
    # One call on the driver (the output schema), one per partition.
    assert len(calls) == 4 and all(" apply --model" in c for c in calls)


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


# --- apply's options, the made-up row, the executors' Python


class _Probe(Exception):
    pass


def _example(o):
    """A value of an option's kind that its checks accept."""
    kind = o["type"]
    if kind == "bool":
        return True
    if kind == "enum":
        return o["values"][-1]
    if kind in ("int", "uint"):
        return 1
    if kind == "float":
        return 1.0
    if kind.startswith("list of "):
        return ["x"]
    return "x"


def test_transform_passes_every_apply_option(spark, data, monkeypatch):
    """Every option of `ordinate apply` (and every host option: threads …) is
    a keyword of transform, checked against the description and passed as
    its flag; the ones transform sets itself are refused."""
    seen = {}

    def probe(model, schema, flags, **kw):
        seen["flags"] = flags
        raise _Probe

    monkeypatch.setattr(ospark, "_output_schema", probe)
    df = spark.read.parquet(str(data["parts"]))
    model = str(data["models"]["pca"])
    keys = [o for o in describe.stage("apply")["options"]] + list(describe.describe()["host_options"])
    assert {"label", "soft_labels", "perplexity", "max_iter", "on_invalid", "threads"} <= {o["key"] for o in keys}
    for o in keys:
        if o["key"] in ospark.TRANSFORM_SETS:
            with pytest.raises(ValueError, match="transform sets"):
                ospark.transform(df, model, **{o["key"]: _example(o)})
            continue
        with pytest.raises(_Probe):
            ospark.transform(df, model, **{o["key"]: _example(o)})
        want = describe.flags("apply", {o["key"]: _example(o)})
        got = seen.pop("flags")
        assert any(got[i : i + len(want)] == want for i in range(len(got))), (o["key"], got, want)
    with pytest.raises(TypeError, match="did you mean perplexity"):
        ospark.transform(df, model, perplexty=5)
    with pytest.raises(ValueError, match="want one of error, drop"):
        ospark.transform(df, model, on_invalid="skip")


def test_transform_docstring_lists_apply_options():
    if not describe.packaged():
        pytest.skip("no packaged describe.json (not installed from a wheel)")
    for o in describe.stage("apply")["options"]:
        assert (f"    {o['key']} (" in ospark.transform.__doc__) == (o["key"] not in ospark.TRANSFORM_SETS), o["key"]


@pytest.fixture(scope="session")
def nerv_model(tmp_path_factory):
    return fit_models(tmp_path_factory.mktemp("nerv"), ("nerv",))["nerv"]


@pytest.mark.parametrize("label_type", ["bigint", "string"])
def test_transform_nerv_options(spark, data, nerv_model, label_type):
    """NeRV placement with the rows' classes and placement options: the same
    bits as `ordinate apply` with the same flags."""
    from pyspark.sql import functions as F

    opts = {"label": "label", "perplexity": 10.0, "max_iter": 12, "threads": 1, "on_invalid": "error"}
    df = spark.read.parquet(str(data["parts"])).where("id < 7 * 600").withColumn("label", F.col("label").cast(label_type)).repartition(3)
    got = collect(ospark.transform(df, str(nerv_model), id="id", keep=["label"], **opts))
    assert got.num_rows == 600
    src = data["dir"] / f"nerv-in-{label_type}.parquet"
    import pyarrow.compute as pc

    t = pq.read_table(data["parts"]).filter(pc.less(pc.field("id"), 7 * 600))
    if label_type == "string":
        t = t.set_column(t.schema.get_field_index("label"), "label", pc.cast(t.column("label"), pa.string()))
    pq.write_table(t, src)
    out = data["dir"] / f"nerv-ref-{label_type}.parquet"
    ordinate.run(["apply", "--model", nerv_model, "--in", src, "--out", out, "--quiet",
                  *describe.flags("apply", {"id": "id", "keep": ["label"], **opts})])
    assert_same_bits(got, pq.read_table(out).sort_by("id"))


def test_transform_nerv_other_classes_fail(spark, data, nerv_model):
    from pyspark.sql import functions as F

    df = spark.read.parquet(str(data["parts"])).withColumn("label", F.col("label") + 10)
    with pytest.raises(Exception, match="is not one of the model's classes"):
        ospark.transform(df, str(nerv_model), id="id", label="label").collect()


def _ids(kind, n):
    import datetime

    if kind == "timestamp":
        base = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
        return pa.array([base + datetime.timedelta(seconds=int(i)) for i in range(n)], pa.timestamp("us", tz="UTC"))
    if kind == "timestamp_ns":
        return pa.array(np.arange(n, dtype=np.int64) * 1000, pa.timestamp("ns"))
    if kind == "date32":
        return pa.array(np.arange(n, dtype=np.int32), pa.date32())
    if kind == "date64":
        return pa.array(np.arange(n, dtype=np.int64) * 86_400_000, pa.date64())
    if kind == "time64":
        return pa.array(np.arange(n, dtype=np.int64), pa.time64("us"))
    if kind == "duration":
        return pa.array(np.arange(n, dtype=np.int64), pa.duration("s"))
    if kind == "dictionary":
        return pa.array([f"r{i}" for i in range(n)]).dictionary_encode()
    if kind == "decimal":
        import decimal

        return pa.array([decimal.Decimal(i) for i in range(n)], pa.decimal128(12, 2))
    if kind == "large_string":
        return pa.array([f"r{i}" for i in range(n)], pa.large_string())
    if kind == "fixed_size_binary":
        return pa.array([i.to_bytes(4, "big") for i in range(n)], pa.binary(4))
    if kind == "int8":
        return pa.array(np.arange(n, dtype=np.int8), pa.int8())
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["timestamp", "timestamp_ns", "date32", "date64", "time64", "duration", "dictionary",
                                  "decimal", "large_string", "fixed_size_binary", "int8"])
def test_output_schema_probe_fits_every_id_type(data, tmp_path, kind):
    """The made-up row that asks the binary for the output schema works for
    an id of any type whose real rows `ordinate apply` takes, and fails with
    the binary's own error for the others."""
    t = pq.read_table(data["parts"]).select(FEATURES).slice(0, 20)
    t = t.append_column("id", _ids(kind, t.num_rows))
    f = tmp_path / "in.arrow"
    with pa.OSFile(str(f), "wb") as sink, pa.ipc.new_file(sink, t.schema) as w:
        w.write_table(t)
    model = str(data["models"]["pca"])
    real = subprocess.run([ordinate.binary(), "apply", "--model", model, "--in", str(f), "--id", "id", "--out", "-", "--quiet"],
                          capture_output=True)
    if real.returncode != 0:
        with pytest.raises(OrdinateError) as e:
            ospark._output_schema(model, t.schema, ["--id", "id"])
        assert e.value.returncode == real.returncode, kind
        return
    want = pa.ipc.open_stream(real.stdout).schema.remove_metadata()
    got = ospark._output_schema(model, t.schema, ["--id", "id"])
    assert got.equals(want), (kind, got, want)


@pytest.mark.parametrize("kind", ["timestamp", "date"])
def test_transform_temporal_ids(spark, data, kind):
    """transform with a timestamp or a date id: every row, the id passed
    through, the bits of `ordinate apply`."""
    from pyspark.sql import functions as F

    df = spark.read.parquet(str(data["parts"])).repartition(3)
    if kind == "timestamp":
        df = df.withColumn("t", F.timestamp_seconds(F.col("id")))
    else:
        df = df.withColumn("t", F.date_add(F.lit("2000-01-01").cast("date"), F.col("id").cast("int")))
    out = ospark.transform(df, str(data["models"]["pca"]), id="t", keep=["id"])
    assert out.columns == ["t", "id", "emb_0", "emb_1"]
    assert out.schema["t"].dataType == df.schema["t"].dataType
    got = collect(out)
    want = reference(data, data["models"]["pca"], "--id", "id")
    assert_same_bits(got.select(["id", "emb_0", "emb_1"]), want.select(["id", "emb_0", "emb_1"]))
    ids = got.column("id").to_numpy()
    if kind == "timestamp":
        assert np.array_equal(pa.compute.cast(got.column("t"), pa.int64()).to_numpy(), ids * 1_000_000)
    else:
        assert np.array_equal(pa.compute.cast(got.column("t"), pa.int32()).to_numpy(), ids + 10957)  # 2000-01-01


LOCAL_RUN = """
import os, sys
import pyarrow.parquet as pq
from pyspark.sql import SparkSession
from ordinate import spark as ospark
spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
assert spark.sparkContext.pythonExec == "python3", spark.sparkContext.pythonExec
df = spark.read.parquet(sys.argv[2])
n = ospark.transform(df, sys.argv[1], id="id", via="binary").count()
print(n, spark.sparkContext.pythonExec)
"""


def test_local_tasks_run_the_drivers_python(data, tmp_path):
    """In local mode with no PYSPARK_PYTHON, transform's tasks run under the
    driver's Python (which has the package), not `python3` on PATH; the
    context's own setting is left as it was."""
    w, log = wrapper(tmp_path, ordinate.binary())
    (tmp_path / "ordinate-wrapper").write_text(
        f'#!/bin/sh\necho "$$ $(tr \'\\0\' \' \' < /proc/$PPID/cmdline)" >> "{log}"\nexec "{ordinate.binary()}" "$@"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["ORDINATE_BIN"] = str(w)  # inherited by the local workers
    p = subprocess.run([sys.executable, "-c", LOCAL_RUN, str(data["models"]["pca"]), str(data["parts"])],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    n, exec_after = p.stdout.split()[-2:]
    assert int(n) == data["n"] and exec_after == "python3"
    calls = log.read_text().splitlines()
    tasks = [c for c in calls if " -m pyspark." in c]  # run by a Python worker
    assert tasks and all(c.split(" ", 1)[1].startswith(sys.executable + " ") for c in tasks), calls

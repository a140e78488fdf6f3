"""ordinate.spark.transform on a Spark standalone cluster (two workers, one
core each, started by the cluster fixture) against `ordinate apply` on one
machine, bit for bit: a million rows, a t-SNE placement, and an executor
killed with SIGKILL in the middle of the stage."""

import contextlib
import os
import signal
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ordinate
from ordinate import describe
from cluster import alive, cmdline, descendants
from ordinate import spark as ospark
from thyroid import REPO, fit_models, noisy_rows

pytestmark = pytest.mark.cluster


FILES, ROWS_PER_FILE, ROW_GROUP = 8, 125_000, 32_768
TSNE_ROWS = 50_000


@pytest.fixture(scope="session")
def big(tmp_path_factory):
    """Models fitted on newthyroid (pca, tsne) and a Parquet dataset of
    FILES x ROWS_PER_FILE rows around its rows (seeded noise), with
    row groups of ROW_GROUP rows; and its first TSNE_ROWS rows as a dataset
    of its own."""
    d = tmp_path_factory.mktemp("big")
    models = fit_models(d)
    rng = np.random.default_rng(1414)
    parts, small = d / "parts", d / "small"
    parts.mkdir()
    small.mkdir()
    # Ids are unique but neither dense nor in file order.
    ids = rng.permutation(FILES * ROWS_PER_FILE).astype(np.int64) * 5 + 2
    for i in range(FILES):
        n = ROWS_PER_FILE
        cols = {"id": ids[i * n : (i + 1) * n], **noisy_rows(rng, n)}
        t = pa.table(cols)
        pq.write_table(t, parts / f"part-{i}.parquet", row_group_size=ROW_GROUP)
        if i * n < TSNE_ROWS:
            pq.write_table(t.slice(0, TSNE_ROWS - i * n), small / f"part-{i}.parquet", row_group_size=ROW_GROUP)
    return {"dir": d, "parts": parts, "small": small, "models": models, "n": FILES * ROWS_PER_FILE}


def reference(big, stage, data):
    """`ordinate apply` on one machine over the whole dataset, sorted by id."""
    out = big["dir"] / f"ref-{stage}-{data}.parquet"
    if not out.exists():
        ordinate.run(["apply", "--model", big["models"][stage], "--in", big[data], "--id", "id", "--keep", "label",
                      "--out", out, "--quiet"])
    return pq.read_table(out).sort_by("id")


def run_on_cluster(df, path):
    """Write df as Parquet (the executors write, the driver holds nothing)
    and read it back here, sorted by id."""
    df.write.parquet(str(path))
    return pq.read_table(str(path)).sort_by("id")


def assert_same_rows(got, want):
    """Every row exactly once (unique ids, the same ids) and every column
    equal, floats bit for bit."""
    assert got.column_names == want.column_names
    assert got.num_rows == want.num_rows
    ids = got.column("id").to_numpy()
    assert np.unique(ids).size == ids.size, "an id appears twice"
    for name in want.column_names:
        g = got.column(name).to_numpy(zero_copy_only=False)
        w = want.column(name).to_numpy(zero_copy_only=False)
        assert g.dtype == w.dtype, name
        if g.dtype == np.float64:
            g, w = g.view(np.int64), w.view(np.int64)
        bad = np.flatnonzero(g != w)
        assert bad.size == 0, f"{name}: {bad.size} rows differ, first at id {ids[bad[0]]}"


def test_cluster_transform_million_rows(cluster, big, tmp_path):
    spark = cluster.spark
    df = spark.read.parquet(str(big["parts"]))
    assert df.rdd.getNumPartitions() >= 2
    out = ospark.transform(df, str(big["models"]["pca"]), id="id", keep="label", via="binary")
    got = run_on_cluster(out, tmp_path / "pca")
    assert got.num_rows == big["n"]
    assert_same_rows(got, reference(big, "pca", "parts"))
    # Both executors worked: each has its own work directory with the model.
    app = spark.sparkContext.applicationId
    assert len(list((cluster.root / "work" / app).glob("*/*pca.model.parquet"))) == 2
    # The same model as column expressions (the default for an affine
    # model): no Python worker, the same bits.
    out = ospark.transform(df, str(big["models"]["pca"]), id="id", keep="label")
    got = run_on_cluster(out, tmp_path / "pca-expressions")
    assert_same_rows(got, reference(big, "pca", "parts"))

    # A t-SNE placement (every row placed against the fitted map) on a slice.
    df = spark.read.parquet(str(big["small"])).repartition(6)
    out = ospark.transform(df, str(big["models"]["tsne"]), id="id", keep="label")
    assert_same_rows(run_on_cluster(out, tmp_path / "tsne"), reference(big, "tsne", "small"))


def ordinate_runs(root, verb):
    """pid -> argv of every `ordinate VERB` of the cluster's executors."""
    binary = ordinate.binary()
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        argv = cmdline(int(d))
        if not (argv and argv[0] == binary and len(argv) > 1 and argv[1] == verb and alive(int(d))):
            continue
        try:
            cwd = os.readlink(f"/proc/{d}/cwd")
        except OSError:
            continue
        if cwd.startswith(str(root)) or any(a.startswith(str(root)) for a in argv):
            out[int(d)] = argv
    return out


class Killer(threading.Thread):
    """Waits until the job group's last stage has finished tasks and has
    tasks running, then kills with SIGKILL an executor that runs an ordinate
    process, and notes the stage's progress and the ordinate processes
    below the executor at that moment."""

    def __init__(self, cluster, sc, group, tasks):
        super().__init__(name="executor-killer", daemon=True)
        self.cluster, self.sc, self.group, self.tasks = cluster, sc, group, tasks
        self.stop = threading.Event()
        self.killed = None  # (pid, stage info at kill time, ordinate pids below it)
        self.error = None

    def stage(self):
        """The group's latest stage of `tasks` tasks: the one after the
        shuffle, which runs the transform."""
        st = self.sc.statusTracker()
        found = None
        for job in st.getJobIdsForGroup(self.group):
            info = st.getJobInfo(job)
            for sid in info.stageIds if info else []:
                s = st.getStageInfo(sid)
                if s is not None and s.numTasks == self.tasks and (found is None or s.stageId > found.stageId):
                    found = s
        return found

    def run(self):
        try:
            while not self.stop.is_set():
                s = self.stage()
                if s is not None and s.numCompletedTasks >= 2 and s.numActiveTasks >= 1:
                    # The victim is an executor running an ordinate process
                    # right now, so the kill cuts a stream mid-way.
                    binary = ordinate.binary()
                    for victim in self.cluster.executors(self.sc.applicationId):
                        children = {p for p in descendants([victim]) if (cmdline(p) or [""])[0] == binary}
                        if children:
                            os.kill(victim, signal.SIGKILL)
                            self.killed = (victim, s, children)
                            return
                time.sleep(0.01)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = e


@contextlib.contextmanager
def killing_an_executor(cluster, sc, group, tasks):
    """Runs the body's jobs in job group `group` with a Killer watching
    their stage of `tasks` tasks; yields the Killer."""
    sc.setJobGroup(group, "an executor killed mid-stage")
    killer = Killer(cluster, sc, group, tasks)
    killer.start()
    try:
        yield killer
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        killer.stop.set()
        killer.join(10)


def killed_mid_stage(killer):
    """The Killer's (victim, stage, ordinate pids), after asserting that it
    killed an executor running ordinate while the stage had tasks to do."""
    assert killer.error is None, killer.error
    assert killer.killed is not None, "the stage ended before an executor could be killed"
    victim, stage, children = killer.killed
    # The kill fell inside the stage: tasks were still to finish.
    assert stage.numCompletedTasks < stage.numTasks, stage
    assert children, "the killed executor ran no ordinate process"
    assert not alive(victim)
    print(f"killed executor {victim} at {stage.numCompletedTasks}/{stage.numTasks} tasks done, "
          f"{stage.numActiveTasks} running, its ordinate processes {sorted(children)}")
    return victim, stage, children


def assert_none_left(cluster, children, verb, grace):
    """No ordinate process outlives the executor that ran it, and no
    `ordinate VERB` of the job is left running, after grace seconds."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and (any(alive(p) for p in children) or ordinate_runs(cluster.root, verb)):
        time.sleep(0.2)
    assert not [p for p in children if alive(p)], f"orphaned: {[(p, cmdline(p)) for p in children if alive(p)]}"
    assert not ordinate_runs(cluster.root, verb)


def test_cluster_executor_kill(cluster, big, tmp_path):
    spark = cluster.spark
    sc = spark.sparkContext
    tasks = 16
    # No adaptive execution: it would merge the 16 shuffle partitions into
    # fewer, and split the job in two.
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        before = cluster.executors(sc.applicationId)
        assert len(before) == 2, before
        df = spark.read.parquet(str(big["parts"])).repartition(tasks)
        out = ospark.transform(df, str(big["models"]["pca"]), id="id", keep="label", via="binary")
        with killing_an_executor(cluster, sc, "ordinate-executor-kill", tasks) as killer:
            got = run_on_cluster(out, tmp_path / "killed")
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    _, _, children = killed_mid_stage(killer)
    assert_same_rows(got, reference(big, "pca", "parts"))

    # The master started another executor in place of the dead one.
    deadline = time.monotonic() + 30
    while len(cluster.executors(sc.applicationId)) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert len(cluster.executors(sc.applicationId)) == 2
    assert_none_left(cluster, children, "apply", 10)


VOTING = REPO / "testdata" / "similarity" / "voting.parquet"
EVAL_ROWS = 8_000


@pytest.fixture(scope="session")
def scored(big):
    """A PCA embedding of the dataset's first EVAL_ROWS rows, to evaluate."""
    d = big["dir"]
    data = d / "eval.parquet"
    pq.write_table(pq.read_table(big["parts"] / "part-0.parquet").slice(0, EVAL_ROWS), data)
    emb = d / "eval-pca.parquet"
    ordinate.run(["pca", "--in", data, "--id", "id", "--label", "label", "--out", emb, "--quiet"])
    return {"data": data, "embedding": emb}


def evaluate_reference(scored, tmp_path, opts):
    out = tmp_path / "metrics-cli.parquet"
    ordinate.run(["evaluate", "--embedding", scored["embedding"], "--in", scored["data"], "--out", out, "--quiet",
                  *describe.flags("evaluate", opts)])
    return pq.read_table(out).replace_schema_metadata(None)


def assert_same_metrics(got, want):
    assert got.num_rows == want.num_rows > 10
    for name in ["metric", "k", "subset"]:
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name
    g, w = got.column("value").to_numpy(), want.column("value").to_numpy()
    assert np.array_equal(g.view(np.int64), w.view(np.int64))


def test_cluster_fisher_tiles(cluster, tmp_path):
    opts = {"id": "id", "label": "label", "upper": True, "steps": 10}
    df = ospark.fisher_distances(str(VOTING), tiles=3, session=cluster.spark, **opts)
    got = ospark._collect(df).sort_by([("i", "ascending"), ("j", "ascending")])
    out = tmp_path / "fisher-cli.parquet"
    ordinate.run(["fisher", "--similarity", VOTING, "--out", out, "--quiet", *describe.flags("fisher", opts)])
    want = pq.read_table(out).sort_by([("i", "ascending"), ("j", "ascending")])
    assert got.num_rows == want.num_rows == 435 * 434 // 2
    for name in ["i", "j"]:
        assert np.array_equal(got.column(name).to_numpy(), want.column(name).to_numpy()), name
    g, w = got.column("distance").to_numpy(), want.column("distance").to_numpy()
    assert np.array_equal(g.view(np.int64), w.view(np.int64))


def test_cluster_evaluate(cluster, scored, tmp_path):
    opts = {"id": "id", "label": "label", "ordinal": True, "k": [5, 30]}
    got = ospark._collect(ospark.evaluate(str(scored["embedding"]), str(scored["data"]), blocks=5,
                                          session=cluster.spark, **opts))
    assert_same_metrics(got, evaluate_reference(scored, tmp_path, opts))


def test_cluster_executor_kill_evaluate(cluster, scored, tmp_path):
    """Blocks read no stdin: when their executor dies, nothing but the
    parent-death signal (ORDINATE_EXIT_WITH_PARENT) stops them. The job
    completes with every block once (evaluate --partials checks it) and the
    same bits, and no ordinate evaluate is left."""
    spark = cluster.spark
    tasks = 16
    opts = {"id": "id", "label": "label", "k": [10]}
    with killing_an_executor(cluster, spark.sparkContext, "ordinate-executor-kill-evaluate", tasks) as killer:
        got = ospark._collect(ospark.evaluate(str(scored["embedding"]), str(scored["data"]), blocks=tasks,
                                              session=spark, **opts))
    _, _, children = killed_mid_stage(killer)
    assert_same_metrics(got, evaluate_reference(scored, tmp_path, opts))
    assert_none_left(cluster, children, "evaluate", 15)


def placed(model, data, out):
    """The coordinates `ordinate apply` gives data's rows with model, by id."""
    ordinate.run(["apply", "--model", model, "--in", data, "--id", "id", "--out", out, "--quiet"])
    t = pq.read_table(out).sort_by("id")
    return np.column_stack([t.column(c).to_numpy() for c in t.column_names if c.startswith("emb_")])


def test_cluster_fit_executor_kill(cluster, big, tmp_path):
    """ordinate.spark.fit of the million rows, an executor killed while the
    partitions' statistics are computed, against the CLI's fit of the same
    rows in memory: bvp (with the kill), pca and lda place the rows within
    1e-12 relative, and no ordinate process is left behind."""
    spark = cluster.spark
    sc = spark.sparkContext
    tasks = 16
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        df = spark.read.parquet(str(big["parts"])).repartition(tasks)
        models = {}
        with killing_an_executor(cluster, sc, "ordinate-fit-executor-kill", tasks) as killer:
            models["bvp"] = ospark.fit(df, "bvp", label="label", model_out=tmp_path / "bvp.model.parquet")
        for method in ("pca", "lda"):
            models[method] = ospark.fit(df, method, label="label", model_out=tmp_path / f"{method}.model.parquet")
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    _, _, children = killed_mid_stage(killer)
    for method, model in models.items():
        ref = tmp_path / f"{method}-cli.model.parquet"
        ordinate.run([method, "--in", big["parts"], "--label", "label", "--stream", "off", "--out",
                      tmp_path / f"{method}-cli.parquet", "--model-out", ref, "--quiet"])
        want = placed(ref, big["small"], tmp_path / f"{method}-cli-placed.parquet")
        got = placed(model, big["small"], tmp_path / f"{method}-spark-placed.parquet")
        err = np.max(np.abs(got - want)) / np.max(np.abs(want))
        assert err <= 1e-12, f"{method}: placed rows differ by {err:.3g} relative"
    assert_none_left(cluster, children, "bvp", 10)


def test_cluster_ml_pipeline(cluster, big, tmp_path):
    """The pyspark.ml stages on the cluster: a Pipeline with Ordinate fits
    bvp on the million rows, saves, loads, and places every row with the
    bits of `ordinate apply` of the fitted model."""
    from pyspark.ml import Pipeline, PipelineModel

    from ordinate.spark.ml import Ordinate

    spark = cluster.spark
    df = spark.read.parquet(str(big["parts"]))
    fitted = Pipeline(stages=[Ordinate(method="bvp", labelCol="label", idCol="id", keepCols=["label"])]).fit(df)
    fitted.write().overwrite().save(str(tmp_path / "pipeline"))
    loaded = PipelineModel.load(str(tmp_path / "pipeline"))
    got = run_on_cluster(loaded.transform(df), tmp_path / "placed")
    out = tmp_path / "apply.parquet"
    ordinate.run(["apply", "--model", loaded.stages[0].getModelPath(), "--in", big["parts"], "--id", "id", "--keep", "label",
                  "--out", out, "--quiet"])
    assert_same_rows(got, pq.read_table(out).sort_by("id"))

"""Fixtures shared by the test files: a local[2] SparkSession and a Spark
standalone cluster (tests/cluster.py).

A Python process holds one SparkContext at a time: each fixture stops the
other's context when it needs its own and makes its own again when it was
stopped, so the local and the cluster tests can run in one pytest session in
any order (the cluster's processes stay up for the whole session).
"""

import os
import sys

import pytest

from cluster import Cluster

LOCAL_MASTER = "local[2]"


@pytest.fixture
def spark():
    """A local[2] SparkSession (made again if the cluster fixture stopped it)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    active = SparkContext._active_spark_context
    if active is not None and active.master != LOCAL_MASTER:
        active.stop()
    return (
        SparkSession.builder.master(LOCAL_MASTER)
        .appName("ordinate-test-local")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A Spark standalone cluster: a master and two workers of one core and
    1 GiB each, started from the pyspark installation. Attributes: url
    (spark://127.0.0.1:PORT), pids (name -> pid of master, worker0,
    worker1), worker_pids, spark (a SparkSession on the cluster: one-core
    512m executors, spark.task.maxFailures=4, no UI), root (its logs/ and
    work/, the workers' directory), executors(app_id). Teardown stops the
    session and the processes and fails if any process it started, or any
    process below them, is left."""
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        c.start()
        yield c
    finally:
        c.stop()

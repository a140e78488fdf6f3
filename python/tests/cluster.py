"""A Spark standalone cluster on this machine for the tests: one master and
two one-core workers, each its own process (group), started from the pyspark
installation's bin/spark-class, and a SparkSession connected to it.

The point is what local mode cannot show: executors in other JVMs, files
shipped to their work directories, Python workers forked by their daemons,
and an executor that dies (kill -9) in the middle of a stage.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

MASTER = "org.apache.spark.deploy.master.Master"
WORKER = "org.apache.spark.deploy.worker.Worker"
EXECUTOR = "org.apache.spark.executor.CoarseGrainedExecutorBackend"

# How long the master and workers get to come up, and to go away.
START_TIMEOUT = 90
STOP_TIMEOUT = 20


def spark_home():
    """$SPARK_HOME, else the pyspark package's directory (a pip install
    carries bin/spark-class and the jars)."""
    home = os.environ.get("SPARK_HOME")
    if home:
        return home
    import pyspark

    return os.path.dirname(pyspark.__file__)


def java_home():
    """$JAVA_HOME, else the installation of `java` on PATH (bin/java's
    grandparent), as CI derives it."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return home
    java = shutil.which("java")
    if java is None:
        raise RuntimeError("no JAVA_HOME and no java on PATH: a Spark cluster needs a JVM")
    return str(Path(java).resolve().parent.parent)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, n=30):
    try:
        return "".join(Path(path).read_text(errors="replace").splitlines(True)[-n:])
    except OSError as e:
        return f"({e})"


def cmdline(pid):
    """A process's argv, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return [a.decode(errors="replace") for a in raw.split(b"\0")[:-1]]


def alive(pid):
    """Whether pid is a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def processes():
    """pid -> parent pid of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        out[int(d)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return out


def descendants(pids):
    """Every process below pids (not pids themselves)."""
    parents = processes()
    children = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = set(), list(pids)
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


class Cluster:
    """A running standalone cluster: master (URL, web UI), the worker
    processes, their logs and work directory, and the session."""

    def __init__(self, root, workers=2):
        self.root = Path(root)
        self.logs = self.root / "logs"
        self.work = self.root / "work"
        for d in (self.logs, self.work, self.root / "conf", self.root / "local"):
            d.mkdir(parents=True, exist_ok=True)
        self.home = spark_home()
        self.env = dict(
            os.environ,
            SPARK_HOME=self.home,
            JAVA_HOME=java_home(),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_WORKER_DIR=str(self.work),
            SPARK_LOCAL_DIRS=str(self.root / "local"),
            SPARK_CONF_DIR=str(self.root / "conf"),  # empty: no site config
            PYSPARK_PYTHON=sys.executable,
        )
        self.procs = {}  # name -> Popen
        self.port, self.webui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.nworkers = workers
        self._session = None

    def _launch(self, name, cls, *args):
        log = open(self.logs / f"{name}.log", "wb")
        argv = [os.path.join(self.home, "bin", "spark-class"), cls, *map(str, args)]
        # Its own process group: teardown signals the group, which holds
        # the JVM (spark-class execs it) and the executors a worker starts.
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        log.close()
        self.procs[name] = p

    def start(self):
        self._launch("master", MASTER, "--host", "127.0.0.1", "--port", self.port, "--webui-port", self.webui)
        for i in range(self.nworkers):
            self._launch(f"worker{i}", WORKER, "--cores", 1, "--memory", "1g", "--host", "127.0.0.1",
                         "--webui-port", free_port(), self.url)
        deadline = time.monotonic() + START_TIMEOUT
        state = None
        while time.monotonic() < deadline:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise RuntimeError(f"{name} exited with {p.returncode}\n{self.logs_tail()}")
            try:
                state = self.state()
                if state.get("aliveworkers") == self.nworkers:
                    return self
            except (OSError, ValueError):
                pass
            time.sleep(0.5)
        raise RuntimeError(f"{self.nworkers} workers not registered with {self.url} after {START_TIMEOUT}s "
                           f"(master says {state})\n{self.logs_tail()}")

    def state(self):
        """The master's web UI JSON (workers, apps)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.webui}/json", timeout=5) as r:
            return json.load(r)

    def logs_tail(self):
        return "\n".join(f"--- {p.name}\n{tail(p)}" for p in sorted(self.logs.glob("*.log")))

    @property
    def pids(self):
        return {name: p.pid for name, p in self.procs.items()}

    @property
    def worker_pids(self):
        return [p.pid for name, p in self.procs.items() if name.startswith("worker")]

    @property
    def spark(self):
        """A SparkSession on this cluster. A process has one SparkContext:
        one of another master (the local[2] fixture) is stopped first, and
        this one is made again when another fixture stopped it."""
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        # The driver names the Python of the tasks (PYSPARK_PYTHON, read
        # when the context starts): the test's, which has pyarrow.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        active = SparkContext._active_spark_context
        if self._session is not None and active is self._session.sparkContext:
            return self._session
        if active is not None:
            active.stop()
        b = (
            SparkSession.builder.master(self.url)
            .appName("ordinate-test-cluster")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.driver.memory", "1g")
            .config("spark.executor.cores", "1")
            .config("spark.executor.memory", "512m")
            .config("spark.task.maxFailures", "4")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
        )
        if os.environ.get("ORDINATE_BIN"):
            b = b.config("spark.executorEnv.ORDINATE_BIN", os.environ["ORDINATE_BIN"])
        self._session = b.getOrCreate()
        return self._session

    def executors(self, app_id):
        """pid of every executor JVM of app_id (children of the workers)."""
        out = []
        for pid in descendants(self.worker_pids):
            argv = cmdline(pid)
            if argv and EXECUTOR in argv and any(app_id in a for a in argv) and alive(pid):
                out.append(pid)
        return sorted(out)

    def stop(self):
        """Stop the session, then the workers and the master (TERM to each
        process group, KILL after STOP_TIMEOUT). Raises if any process the
        cluster started is still there."""
        from pyspark import SparkContext

        if self._session is not None and SparkContext._active_spark_context is self._session.sparkContext:
            self._session.stop()
        self._session = None
        below = descendants(self.pids.values())
        order = [n for n in self.procs if n != "master"] + ["master"]
        for name in order:
            _signal_group(self.procs[name], signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for name in order:
            p = self.procs[name]
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(p, signal.SIGKILL)
                p.wait()
        left = set()
        deadline = time.monotonic() + STOP_TIMEOUT
        while time.monotonic() < deadline:
            left = {pid for pid in below | set(self.pids.values()) if alive(pid)}
            if not left:
                return
            time.sleep(0.2)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        raise RuntimeError(f"processes outlived the cluster (killed now): {sorted((pid, cmdline(pid)) for pid in left)}")


def _signal_group(p, sig):
    try:
        os.killpg(p.pid, sig)
    except OSError:
        pass

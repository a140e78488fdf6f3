"""The package's hostile cases: ORDINATE_BIN naming the console script or a
program that is not ordinate, option values that look like flags, shipped
files (a private folder per run, content verified, concurrent drivers), and
task counts without bound."""

import hashlib
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import ordinate
from ordinate import OrdinateError, describe
from ordinate import spark as ospark

from thyroid import fit_models

REPO = Path(__file__).resolve().parents[2]
SONAR = REPO / "testdata" / "similarity" / "aural_sonar.parquet"
THYROID = REPO / "testdata" / "ordinal" / "newthyroid.csv"


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def console_script(d):
    """A console script as pip writes it for `ordinate = ordinate.cli:main`."""
    return executable(d / "ordinate", textwrap.dedent(f"""\
        #!{sys.executable}
        # -*- coding: utf-8 -*-
        import re
        import sys
        from ordinate.cli import main
        if __name__ == "__main__":
            sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
            sys.exit(main())
        """))


# --- ORDINATE_BIN


def test_ordinate_bin_console_script_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("ORDINATE_BIN", str(console_script(tmp_path)))
    with pytest.raises(OrdinateError, match="console script"):
        ordinate.binary()
    with pytest.raises(OrdinateError, match="console script"):
        ordinate.run(["describe", "--json"])


@pytest.mark.parametrize("via", ["the script itself", "a wrapper that execs the script"])
def test_console_script_never_runs_itself(tmp_path, via):
    """The console script execs $ORDINATE_BIN: when that leads back to the
    script, it stops with an error instead of exec'ing itself forever."""
    script = console_script(tmp_path)
    target = script
    if via != "the script itself":
        target = executable(tmp_path / "wrapper", f'#!/bin/sh\nexec "{script}" "$@"\n')
    env = dict(os.environ, ORDINATE_BIN=str(target))
    try:
        p = subprocess.run([str(script), "describe", "--json"], env=env, capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{via}: the console script was still running itself after 20 s")
    assert p.returncode != 0, via
    assert b"ORDINATE_BIN" in p.stderr, (via, p.stderr)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return fit_models(tmp_path_factory.mktemp("hostile-models"), ("pca",))


@pytest.mark.parametrize("program", ["#!/bin/sh\necho hello\n", "#!/bin/sh\nexit 0\n", "#!/bin/sh\nhead -c 20 /dev/zero\n"])
def test_wrong_program_is_an_ordinate_error(spark, models, tmp_path, monkeypatch, program):
    """A program that is not ordinate, exiting 0, gives OrdinateError naming
    it, not pyarrow's ArrowInvalid."""
    prog = executable(tmp_path / "not-ordinate", program)
    df = spark.read.csv(str(THYROID), header=True, inferSchema=True)
    monkeypatch.setenv("ORDINATE_BIN", str(prog))
    for what, call in [
        ("transform", lambda: ospark.transform(df, str(models["pca"]))),
        ("fisher_distances", lambda: ospark.fisher_distances(str(SONAR), tiles=2, session=spark, id="id", label="label")),
    ]:
        with pytest.raises(OrdinateError) as e:
            call()
        assert "not-ordinate" in str(e.value) and "Arrow IPC" in str(e.value), (what, program, str(e.value))


# --- option values


def test_values_never_start_a_flag():
    """Every string option of every stage: a value that begins with "-" is
    attached to its flag (--flag=value), so it can never be read as a flag."""
    for st in describe.describe()["stages"]:
        for o in st["options"]:
            if o["type"] not in ("string", "text", "list of string"):
                continue
            got = describe.flags(st["name"], {o["key"]: "--similarity=/etc/passwd"})
            assert got == [f"--{o['name']}=--similarity=/etc/passwd"], (st["name"], o["key"], got)
    assert describe.flags("apply", {"keep": ["-a", "b"]}) == ["--keep=-a,b"]
    assert describe.flags("apply", {"id": "id", "keep": ["a", "b"]}) == ["--id", "id", "--keep", "a,b"]


@pytest.mark.parametrize(
    "stage,options,match",
    [
        ("apply", {"id": ["a", "b"]}, "want a string"),
        ("apply", {"id": 5}, "want a string"),
        ("apply", {"keep": ["a,b", "c"]}, "comma"),
        ("fisher", {"upper": "--similarity=/etc/passwd"}, "True or False"),
        ("fisher", {"quiet": "yes"}, "True or False"),
    ],
)
def test_flags_refuse_values_of_the_wrong_kind(stage, options, match):
    with pytest.raises(ValueError, match=match):
        describe.flags(stage, options)


def test_every_spark_path_checks_its_options(spark, models):
    """The options of transform, fisher_distances and evaluate all go through
    the description: a string for a boolean is refused before anything runs."""
    df = spark.read.csv(str(THYROID), header=True, inferSchema=True)
    with pytest.raises(ValueError, match="transform sets quiet itself"):
        ospark.transform(df, str(models["pca"]), threads=2, log_format="text", quiet="--model=x")
    with pytest.raises(ValueError, match="want a whole number"):
        ospark.transform(df, str(models["pca"]), threads="--model=x")
    with pytest.raises(TypeError, match="has no option 'upper'"):
        ospark.transform(df, str(models["pca"]), upper="--similarity=x")
    with pytest.raises(ValueError, match="True or False"):
        ospark.fisher_distances(str(SONAR), tiles=2, session=spark, upper="--similarity=x")
    with pytest.raises(ValueError, match="True or False"):
        ospark.evaluate(str(SONAR), str(SONAR), blocks=2, session=spark, ordinal="--partials=x")


# --- task counts


def test_task_counts_are_bounded(spark, monkeypatch):
    """fisher_distances and evaluate refuse more tasks than MAX_TASKS with
    a clear error, before building any task list."""

    def no_tasks(*a, **k):
        raise AssertionError("built the task list")

    monkeypatch.setattr(ospark, "_one_task_each", no_tasks)
    with pytest.raises(ValueError, match=r"tiles=400 .*160,000 tasks.*at most 100,000.*tiles <= 316"):
        ospark.fisher_distances(str(SONAR), tiles=400, session=spark, id="id", label="label")
    with pytest.raises(ValueError, match=r"tiles=500 .*125,250 tasks.*tiles <= 446"):
        ospark.fisher_distances(str(SONAR), tiles=500, session=spark, id="id", label="label", upper=True)
    with pytest.raises(ValueError, match=r"tiles=1000000000000 makes"):
        ospark.fisher_distances(str(SONAR), tiles=10**12, session=spark, id="id", label="label")
    with pytest.raises(ValueError, match=r"blocks=100001 .*at most 100,000"):
        ospark.evaluate(str(SONAR), str(SONAR), blocks=100_001, session=spark)
    for bad in [True, 2.0, "3"]:
        with pytest.raises(ValueError, match="want a whole number"):
            ospark.fisher_distances(str(SONAR), tiles=bad, session=spark)


# --- shipping


class FakeContext:
    """What _ship uses of a SparkContext: addFile and listFiles."""

    def __init__(self):
        self.listFiles = []
        self.added = []

    def addFile(self, path, recursive=False):
        self.added.append(path)
        self.listFiles.append("file:" + path)


def old_name(path):
    """The name the package gave a shipped file or folder when it used a
    fixed folder: the content hash of the file (or the folder's files) and
    the base name."""
    h = hashlib.sha256()
    p = Path(path)
    files = sorted(str(f.relative_to(p)) for f in p.rglob("*") if f.is_file()) if p.is_dir() else [""]
    for rel in files:
        h.update(rel.encode() + b"\0")
        h.update((p / rel if rel else p).read_bytes())
    return h.hexdigest()[:20] + "-" + p.name


def tree(path):
    p = Path(path)
    if p.is_file():
        return p.read_bytes()
    return {str(f.relative_to(p)): f.read_bytes() for f in sorted(p.rglob("*")) if f.is_file()}


@pytest.fixture
def tmpdir_of_system(tmp_path, monkeypatch):
    """The system temporary directory, here a folder of this test."""
    d = tmp_path / "systmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    monkeypatch.setattr(ospark, "_ship_root", None, raising=False)
    return d


def dataset(d):
    d.mkdir()
    for i in range(3):
        (d / f"part-{i}.parquet").write_bytes(bytes([i]) * 1000)
    return d


@pytest.mark.parametrize("planted", ["other content", "symlink to another file", "folder of other content"])
@pytest.mark.parametrize("kind", ["file", "folder"])
def test_ship_ignores_planted_files(tmp_path, tmpdir_of_system, planted, kind):
    """Whatever someone put in the system temporary directory beforehand,
    the shipped copy is the content given, in a private folder."""
    if kind == "file":
        src = tmp_path / "model.parquet"
        src.write_bytes(b"the model" * 100)
    else:
        src = dataset(tmp_path / "data")
    decoy = tmp_path / "decoy"
    decoy.write_bytes(b"not the model")
    fixed = tmpdir_of_system / "ordinate-spark-files"
    fixed.mkdir()
    spot = fixed / old_name(src)
    if planted == "other content":
        spot.write_bytes(b"planted")
    elif planted == "symlink to another file":
        spot.symlink_to(decoy)
    else:
        spot.mkdir()
        (spot / "part-0.parquet").write_bytes(b"planted")

    sc = FakeContext()
    name = ospark._ship(sc, str(src))
    [shipped] = sc.added
    assert os.path.basename(shipped) == name
    assert not os.path.islink(shipped), planted
    assert tree(shipped) == tree(src), (kind, planted)
    folder = os.path.dirname(shipped)
    st = os.lstat(folder)
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.getuid()
    assert Path(folder).resolve() != fixed.resolve()
    # Shipping the same content again is a no-op; changed content a new name.
    assert ospark._ship(sc, str(src)) == name and len(sc.added) == 1
    (src if kind == "file" else src / "part-1.parquet").write_bytes(b"changed")
    assert ospark._ship(sc, str(src)) != name and len(sc.added) == 2


def test_ship_refuses_a_changed_copy(tmp_path, tmpdir_of_system):
    """A copy changed after it was shipped is not shipped again as is."""
    src = tmp_path / "model.parquet"
    src.write_bytes(b"the model" * 100)
    sc = FakeContext()
    ospark._ship(sc, str(src))
    Path(sc.added[0]).chmod(0o600)
    Path(sc.added[0]).write_bytes(b"tampered")
    with pytest.raises(OrdinateError, match="changed"):
        ospark._ship(FakeContext(), str(src))


CHILD = """
import os, shutil, sys, tempfile, time
tempfile.tempdir = sys.argv[1]
from ordinate import spark as ospark

class FakeContext:
    listFiles = []
    def addFile(self, path, recursive=False):
        print(path)

# Slow copies, so that both drivers copy at the same time.
for name in ("copytree", "copyfile"):
    real = getattr(shutil, name)
    def slow(*a, _real=real, **k):
        r = _real(*a, **k)
        time.sleep(1)
        return r
    setattr(shutil, name, slow)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.01)
print(ospark._ship(FakeContext(), sys.argv[2]))
"""


def test_ship_concurrent_drivers(tmp_path, tmpdir_of_system):
    """Two drivers shipping the same folder at once both succeed, and leave
    nothing behind in the temporary directory when they exit."""
    src = dataset(tmp_path / "data")
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(tmpdir_of_system), str(src), str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    paths = [out.split()[0] for out, _ in outs]
    names = [out.split()[1] for out, _ in outs]
    assert names[0] == names[1]
    assert paths[0] != paths[1]  # each driver its own folder
    assert sorted(os.listdir(tmpdir_of_system)) == [], "left behind"

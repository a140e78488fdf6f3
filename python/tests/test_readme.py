"""The Spark, block-evaluate and Dask recipes of docs/distributed.md
("Running on many machines"), run as written from a copy of the repository,
and their outputs checked against the one-machine CLI. The Spark recipe runs
in a fresh environment: its own virtual environment made by its first block
(`python3 -m venv venv && venv/bin/pip install './python[spark]'`), with none
of this test's settings (no PYSPARK_PYTHON, no ORDINATE_BIN, this test's
Python off PATH)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import ordinate

REPO = Path(__file__).resolve().parents[2]


RECIPES = REPO / "docs" / "distributed.md"

# The settings of this test's environment that a user's fresh shell does
# not have.
NOT_FRESH = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "ORDINATE_BIN", "VIRTUAL_ENV", "PYTHONPATH",
             "PYTHONHOME", "SPARK_HOME", "ORDINATE_CONSOLE_SCRIPT_RAN")


def section(title):
    """The fenced code blocks (language, text) of the section of
    docs/distributed.md under `## title`, up to the next heading of level 2
    (a level-1 heading is only the page's title; `# ` lines in the blocks
    are Python comments)."""
    text = RECIPES.read_text()
    start = text.index("\n## " + title + "\n") + 1
    end = re.compile(r"^## ", re.M).search(text, start + 3)
    body = text[start : end.start() if end else len(text)]
    return re.findall(r"```(\w+)\n(.*?)```", body, re.S)


def fresh_env():
    """os.environ without this test's settings, and without this test's
    Python on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in NOT_FRESH}
    here = os.path.realpath(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and os.path.realpath(p) != here)
    return env


def run_sh(block, cwd):
    """Run a shell block with the binary under test as `ordinate`."""
    env = dict(os.environ, PATH=f"{Path(ordinate.binary()).parent}:{os.environ['PATH']}")
    binary = Path(ordinate.binary())
    if binary.name != "ordinate":  # ORDINATE_BIN may name a file otherwise
        (cwd / "bin").mkdir(exist_ok=True)
        link = cwd / "bin" / "ordinate"
        link.unlink(missing_ok=True)
        link.symlink_to(binary)
        env["PATH"] = f"{cwd / 'bin'}:{os.environ['PATH']}"
    subprocess.run(["sh", "-euc", block], cwd=cwd, env=env, check=True)


def run_fresh(block, cwd):
    """Run a shell block as written, in a fresh environment; its output."""
    p = subprocess.run(["sh", "-euc", block], cwd=cwd, env=fresh_env(), capture_output=True, text=True)
    assert p.returncode == 0, f"{block}\nexit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-6000:]}"
    return p


def run_py(block, cwd, name):
    f = cwd / f"{name}.py"
    f.write_text(block)
    p = subprocess.run([sys.executable, f.name], cwd=cwd, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-4000:]
    return p.stdout


def copy_repository(dst):
    """The repository's files (tracked, and new ones not ignored) copied to
    dst: a repository root without its build outputs."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=REPO, capture_output=True, check=True).stdout
        files = [f for f in listed.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        shutil.copytree(REPO, dst, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            ".git", "node_modules", "build", "dist", "*.egg-info", "__pycache__", "venv"))
        return
    for f in files:
        src = REPO / f
        if src.is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / f, follow_symlinks=False)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    d = tmp_path_factory.mktemp("readme")
    copy_repository(d)
    yield d
    shutil.rmtree(d / "venv", ignore_errors=True)  # a fresh pyspark is 400 MB


def test_readme_spark_recipe(root):
    blocks = section("Running on Spark")
    assert [lang for lang, _ in blocks] == ["sh", "python", "sh"]
    (_, setup), (_, recipe), (_, launch) = blocks
    assert setup.startswith("python3 -m venv venv && venv/bin/pip install './python[spark]'\n")
    assert launch.strip() == "venv/bin/python spark_recipe.py"
    run_fresh(setup, root)
    (root / "spark_recipe.py").write_text(recipe)
    p = run_fresh(launch, root)
    assert "trustworthiness" in p.stdout
    # No warning on every call (pandas 3 with PySpark 4.3), no failed task.
    for bad in ("FutureWarning", "does not yet fully support pandas", "ModuleNotFoundError", "Traceback"):
        assert bad not in p.stderr, p.stderr[-4000:]

    # transform: every row once, with the bits apply gives on one machine.
    got = pq.read_table(root / "thyroid-pca-lake").sort_by("id")
    ordinate.run(["apply", "--model", root / "thyroid-pca.model.parquet", "--in", root / "thyroid-lake",
                  "--id", "id", "--keep", "label", "--out", root / "apply.parquet", "--quiet"])
    want = pq.read_table(root / "apply.parquet").sort_by("id")
    assert got.num_rows == want.num_rows == 215
    assert got.column_names == ["id", "label", "emb_0", "emb_1"]
    for c in ["emb_0", "emb_1"]:
        assert np.array_equal(got.column(c).to_numpy().view(np.int64), want.column(c).to_numpy().view(np.int64))

    # fit: LDA from the partitions' statistics places the rows as the CLI's
    # fit of the same rows does, to 1e-12.
    ordinate.run(["lda", "--in", root / "thyroid-lake", "--label", "label", "--stream", "off", "--out", root / "lda.parquet",
                  "--model-out", root / "lda-cli.model.parquet", "--quiet"])
    placed = []
    for m in ["thyroid-lda.model.parquet", "lda-cli.model.parquet"]:
        ordinate.run(["apply", "--model", root / m, "--in", root / "thyroid-lake", "--id", "id", "--out", root / "placed.parquet", "--quiet"])
        t = pq.read_table(root / "placed.parquet").sort_by("id")
        placed.append(np.column_stack([t.column(c).to_numpy() for c in ["emb_0", "emb_1"]]))
    assert np.max(np.abs(placed[0] - placed[1])) <= 1e-12 * np.max(np.abs(placed[1]))

    # The ML Pipeline: every row once, placed by the saved and loaded bvp stage.
    bvp = pq.read_table(root / "thyroid-bvp-lake")
    assert bvp.num_rows == 215 and bvp.column_names == ["id", "label", "emb_0", "emb_1"]

    # fisher_distances: the upper pairs of 100 objects.
    dist = pq.read_table(root / "sonar-fisher")
    assert dist.num_rows == 100 * 99 // 2 and dist.column_names == ["i", "j", "distance"]


def test_readme_block_and_dask_recipes(root):
    if not (root / "thyroid-lake").exists():
        test_readme_spark_recipe(root)
    [(lang, block)] = section("Evaluate in blocks")
    assert lang == "sh"
    run_sh(block, root)
    merged = pq.read_table(root / "metrics.parquet")
    ordinate.run(["evaluate", "--embedding", root / "thyroid-pca.parquet", "--in", root / "testdata/ordinal/newthyroid.csv",
                  "--label", "label", "--ordinal", "--out", root / "whole.parquet", "--quiet"])
    whole = pq.read_table(root / "whole.parquet")
    assert merged.select(["metric", "k", "subset", "value"]).equals(whole.select(["metric", "k", "subset", "value"]))

    pytest.importorskip("dask")
    [(lang, block)] = section("With Dask")
    assert lang == "python"
    run_py(block, root, "dask_recipe")
    parts = sorted((root / "thyroid-pca-dask").glob("part-*.parquet"))
    assert len(parts) == 4
    got = pq.read_table(root / "thyroid-pca-dask").sort_by("id")
    want = pq.read_table(root / "thyroid-pca-lake").sort_by("id")
    assert got.num_rows == 215
    # Column by column: Spark's expressions declare the coordinates
    # nullable (with no null in them), apply not null.
    for c in ["id", "emb_0", "emb_1"]:
        assert got.column(c).equals(want.column(c)), c
    # The in-memory recipe: the same rows with the same bits.
    mem = pq.read_table(root / "thyroid-pca-dask-memory").sort_by("id")
    assert mem.num_rows == 215
    for c in ["id", "emb_0", "emb_1"]:
        assert mem.column(c).to_pylist() == want.column(c).to_pylist(), c


def readme_python_blocks(title):
    """The Python blocks of README.md's section `## title` that are not
    marked <!-- not run: … -->."""
    text = (REPO / "README.md").read_text()
    start = text.index("\n## " + title + "\n") + 1
    end = re.compile(r"^## ", re.M).search(text, start + 3)
    body = text[start : end.start() if end else len(text)]
    blocks = re.findall(r"(<!-- not run:[^\n]*-->\n)?```python\n(.*?)```", body, re.S)
    return [code for mark, code in blocks if not mark]


def test_readme_python_section(root):
    """The README's Python section, copied as written, runs: the in-memory
    fit, evaluate and the scikit-learn estimator on bundled data."""
    [block] = readme_python_blocks("Python and Spark")
    out = run_py(block, root, "readme_python")
    lines = out.splitlines()
    assert lines[0].startswith("215 <ordinate.Model bvp (affine)"), out
    assert int(lines[1]) > 10, out


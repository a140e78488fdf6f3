"""The Spark, block-evaluate and Dask recipes of docs/distributed.md
("Running on many machines"), run as written (from a folder that looks like
the repository root), and their outputs checked against the one-machine CLI."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import ordinate

REPO = Path(__file__).resolve().parents[2]


RECIPES = REPO / "docs" / "distributed.md"


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


def run_sh(block, cwd):
    """Run a shell block with `ordinate` and `venv/bin/ordinate` as the
    binary under test (the venv line is what the test environment did)."""
    lines = [l for l in block.replace("\\\n", " ").splitlines() if not l.startswith("python3 -m venv")]
    script = "\n".join(lines).replace("venv/bin/ordinate", "ordinate")
    env = dict(os.environ, PATH=f"{Path(ordinate.binary()).parent}:{os.environ['PATH']}")
    binary = Path(ordinate.binary())
    if binary.name != "ordinate":  # ORDINATE_BIN may name a file otherwise
        (cwd / "bin").mkdir(exist_ok=True)
        link = cwd / "bin" / "ordinate"
        link.unlink(missing_ok=True)
        link.symlink_to(binary)
        env["PATH"] = f"{cwd / 'bin'}:{os.environ['PATH']}"
    subprocess.run(["sh", "-euc", script], cwd=cwd, env=env, check=True)


def run_py(block, cwd, name):
    f = cwd / f"{name}.py"
    f.write_text(block)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    p = subprocess.run([sys.executable, f.name], cwd=cwd, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-4000:]
    return p.stdout


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    d = tmp_path_factory.mktemp("readme")
    (d / "testdata").symlink_to(REPO / "testdata")
    return d


def test_readme_spark_recipe(root):
    blocks = section("Running on Spark")
    assert [lang for lang, _ in blocks] == ["sh", "python"]
    run_sh(blocks[0][1], root)
    out = run_py(blocks[1][1], root, "spark_recipe")
    assert "trustworthiness" in out

    # transform: every row once, with the bits apply gives on one machine.
    got = pq.read_table(root / "thyroid-pca-lake").sort_by("id")
    ordinate.run(["apply", "--model", root / "thyroid-pca.model.parquet", "--in", root / "thyroid-lake",
                  "--id", "id", "--keep", "label", "--out", root / "apply.parquet", "--quiet"])
    want = pq.read_table(root / "apply.parquet").sort_by("id")
    assert got.num_rows == want.num_rows == 215
    assert got.column_names == ["id", "label", "emb_0", "emb_1"]
    for c in ["emb_0", "emb_1"]:
        assert np.array_equal(got.column(c).to_numpy().view(np.int64), want.column(c).to_numpy().view(np.int64))

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
    assert got.select(["id", "emb_0", "emb_1"]).equals(want.select(["id", "emb_0", "emb_1"]))

"""ordinate.describe: the binary's self-description, and the keyword checking
and option docs the package builds from it."""

import json
import subprocess

import pyarrow.parquet as pq
import pytest

import ordinate
from ordinate import describe
from thyroid import THYROID


def test_packaged_description_is_the_binarys():
    """The wheel's describe.json is what its binary says of itself."""
    got = json.loads(subprocess.run([ordinate.binary(), "describe", "--json"], check=True, capture_output=True).stdout)
    d = describe.describe()
    assert d["schema_version"] == describe.SCHEMA_VERSION
    assert [s["name"] for s in d["stages"]] == [s["name"] for s in got["stages"]]
    assert d["stages"] == got["stages"]


def test_every_option_is_a_flag_of_its_command():
    """Every option the description lists (and every alias) is a flag the
    command accepts: the keywords map to real flags."""
    for st in describe.describe()["stages"]:
        help_text = ordinate.run([st["name"], "--help"]).decode()
        for o in st["options"]:
            assert f"--{o['name']}" in help_text, (st["name"], o["name"])
            for a in o.get("aliases") or []:
                # Aliases are hidden from --help but accepted.
                flags = describe.flags(st["name"], {a.replace("-", "_"): _example(o)})
                assert flags[0] == f"--{o['name']}", (st["name"], a)


def _example(o):
    d = o.get("default")
    return d if d not in (None, "") else {"int": 1, "uint": 1, "float": 1.0, "bool": True}.get(o["type"], "x")


@pytest.mark.parametrize(
    "stage,options,error,match",
    [
        ("tsne", {"perplexty": 20}, TypeError, "did you mean perplexity"),
        ("tsne", {"method": "annoy"}, ValueError, "want one of auto, exact, bh, fft"),
        ("tsne", {"perplexity": "thirty"}, ValueError, "want a number"),
        ("tsne", {"perplexity": 0.5}, ValueError, ">= 1"),
        ("tsne", {"max_iter": 2.5}, ValueError, "whole number"),
        ("evaluate", {"k": [5, "ten"]}, ValueError, "whole number"),
        ("fisher", {"upper": "yes"}, ValueError, "True or False"),
    ],
)
def test_flags_refuse(stage, options, error, match):
    with pytest.raises(error, match=match):
        describe.flags(stage, options)


def test_flags_take_aliases_and_host_options():
    assert describe.flags("tsne", {"iterations": 300}) == ["--max-iter", "300"]
    assert describe.flags("score", {"epochs": 5}) == ["--max-iter", "5"]
    assert describe.flags("tsne", {"threads": 2, "perplexity": 10}) == ["--threads", "2", "--perplexity", "10"]


def test_flags_run(tmp_path):
    """Flags built from keywords run as the CLI's own: the options reach the
    provenance."""
    out = tmp_path / "pca.parquet"
    ordinate.run(["pca", "--in", THYROID, "--out", out, "--quiet",
                  *describe.flags("pca", {"label": "label", "dims": 1, "standardize": False})])
    prov = json.loads(pq.ParquetFile(out).metadata.metadata[b"ordinate"])
    assert prov["params"]["dims"] == 1 and prov["params"]["standardize"] is False


def test_doc_lists_every_option():
    text = describe.doc("nerv")
    for o in describe.stage("nerv")["options"]:
        assert o["key"] in text
    with pytest.raises(ValueError, match="no stage"):
        describe.stage("nope")


def test_spark_docstrings_list_the_options():
    """ordinate.spark's functions carry the options of their stage, from the
    description the wheel carries."""
    from ordinate import spark as ospark

    if not describe.packaged():
        pytest.skip("no packaged describe.json (not installed from a wheel)")
    for fn, stage, banned in [
        (ospark.fisher_distances, "fisher", {"tile", "format"}),
        (ospark.evaluate, "evaluate", {"block", "partials"}),
    ]:
        for o in describe.stage(stage)["options"]:
            assert (f"    {o['key']} (" in fn.__doc__) == (o["key"] not in banned), (stage, o["key"])

"""The installed wheel: with ORDINATE_REQUIRE_WHEEL set (CI installs the
built wheel into a fresh virtual environment whose PATH has no Go), the
package runs the binary it carries, and its tag says where it installs."""

import os
import shutil
import subprocess
from importlib import metadata

import pytest

import ordinate
from ordinate.cli import bundled_binary

pytestmark = pytest.mark.skipif(not os.environ.get("ORDINATE_REQUIRE_WHEEL"),
                                reason="ORDINATE_REQUIRE_WHEEL is not set: the tests run against a source install or ORDINATE_BIN")


def test_wheel_carries_the_binary():
    assert shutil.which("go") is None, "Go is on PATH: the wheel's test must run without it"
    assert os.environ.get("ORDINATE_BIN") is None
    assert bundled_binary() is not None and ordinate.binary() == bundled_binary()
    out = subprocess.run([ordinate.binary(), "describe", "--json"], capture_output=True, check=True).stdout
    assert b'"stages"' in out
    assert ordinate.describe.packaged(), "the wheel carries describe.json"


def test_wheel_tag():
    dist = metadata.distribution("ordinate")
    wheel = (dist.read_text("WHEEL") or "").splitlines()
    tags = [line.split(": ", 1)[1] for line in wheel if line.startswith("Tag: ")]
    assert tags and all(t.startswith("py3-none-") for t in tags), tags
    if os.uname().sysname == "Linux":
        assert any("manylinux2014" in t for t in tags) and any("musllinux_1_1" in t for t in tags), tags

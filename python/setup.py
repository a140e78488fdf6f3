"""Build hook: compile the ordinate Go binary into the package.

build_py runs `go build ./cmd/ordinate` from the repository root (the parent of
this directory, or $ORDINATE_REPO) and puts the binary at ordinate/bin/ordinate
in the build tree, so the wheel carries it, with the binary's self-description
(`ordinate describe --json`) at ordinate/describe.json. Such a wheel only runs on the
platform it was built on, so bdist_wheel tags it py3-none-<platform> (the
Python code itself is version independent); on Linux the static binary
makes it a manylinux and musllinux wheel.

Build from this directory (pip install ./python, python -m build --wheel):
an sdist alone carries no Go sources, so a wheel built from an sdist fails
with a clear message instead of shipping without the binary.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildPyWithBinary(build_py):
    def run(self):
        super().run()
        repo = Path(os.environ.get("ORDINATE_REPO", HERE.parent)).resolve()
        if not (repo / "cmd" / "ordinate").is_dir():
            raise SystemExit(
                f"ordinate: no Go sources at {repo}/cmd/ordinate; build the "
                "wheel from python/ in a checkout of the repository, or set "
                "ORDINATE_REPO to one"
            )
        exe = "ordinate.exe" if sys.platform == "win32" else "ordinate"
        out = Path(self.build_lib).resolve() / "ordinate" / "bin" / exe
        out.parent.mkdir(parents=True, exist_ok=True)
        go = os.environ.get("GO", "go")
        # A static binary (no cgo) runs on any executor of the same OS and
        # architecture, whatever its C library.
        env = dict(os.environ, CGO_ENABLED="0")
        cmd = [go, "build", "-trimpath", "-ldflags=-s -w", "-o", str(out), "./cmd/ordinate"]
        self.announce("running " + " ".join(cmd) + f" in {repo}", level=2)
        try:
            subprocess.run(cmd, cwd=repo, env=env, check=True)
        except FileNotFoundError:
            raise SystemExit(f"ordinate: {go!r} not found; the build needs Go (set GO to its path)")
        except subprocess.CalledProcessError as e:
            raise SystemExit(f"ordinate: go build failed (exit {e.returncode})")
        out.chmod(0o755)
        # The description of this binary's stages, which ordinate.describe
        # reads without running it (keyword checking, docs).
        desc = subprocess.run([str(out), "describe", "--json"], check=True, capture_output=True).stdout
        (out.parent.parent / "describe.json").write_bytes(desc)


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, plat = super().get_tag()
        # The binary is static (no cgo, no C library at all), so a Linux
        # wheel installs on every glibc from 2.17 and on musl: say so, as
        # the tags pip matches (a bare linux_* tag is refused by PyPI and
        # by nothing else).
        if plat.startswith("linux_"):
            arch = plat[len("linux_"):]
            plat = f"manylinux_2_17_{arch}.manylinux2014_{arch}.musllinux_1_1_{arch}"
        return "py3", "none", plat


setup(cmdclass={"build_py": BuildPyWithBinary, "bdist_wheel": PlatformWheel})

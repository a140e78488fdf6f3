"""Finding and running the ordinate binary."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

_EXE = "ordinate.exe" if sys.platform == "win32" else "ordinate"


class OrdinateError(RuntimeError):
    """The ordinate binary exited non-zero (or was not found).

    returncode is its exit code, stderr the text it wrote on stderr, argv the
    command line it ran.
    """

    def __init__(self, message, *, returncode=None, stderr="", argv=None):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr
        self.argv = list(argv) if argv is not None else None

    @classmethod
    def from_exit(cls, argv, returncode, stderr):
        if isinstance(stderr, bytes):
            stderr = stderr.decode("utf-8", "replace")
        text = stderr.strip() or "(no output on stderr)"
        name = os.path.basename(argv[0]) if argv else "ordinate"
        args = " ".join(argv[1:]) if argv else ""
        msg = f"{name} {args} exited with code {returncode}:\n{text}"
        return cls(msg, returncode=returncode, stderr=stderr, argv=argv)


def bundled_binary():
    """The path of the binary inside the installed package, or None."""
    p = Path(__file__).resolve().parent / "bin" / _EXE
    return str(p) if p.is_file() and os.access(p, os.X_OK) else None


def binary():
    """The ordinate binary to run.

    $ORDINATE_BIN if set, else the binary bundled in the wheel, else ordinate
    on PATH; OrdinateError if there is none, or if $ORDINATE_BIN names this
    package's `ordinate` console script (which runs $ORDINATE_BIN itself).
    """
    env = os.environ.get("ORDINATE_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise OrdinateError(f"ORDINATE_BIN={env!r} is not an executable file")
        if _is_console_script(env):
            raise OrdinateError(
                f"ORDINATE_BIN={env!r} is the ordinate package's console script, which itself "
                f"runs $ORDINATE_BIN: set ORDINATE_BIN to the ordinate binary (the package's is "
                f"{bundled_binary() or 'not there: this installation carries none'}), or unset it"
            )
        return env
    b = bundled_binary()
    if b:
        return b
    b = shutil.which(_EXE)
    if b and not _is_console_script(b):
        return b
    raise OrdinateError(
        "no ordinate binary: this installation of the ordinate package carries none "
        "(it was not built from a wheel for this platform) and there is no ordinate "
        "on PATH; set ORDINATE_BIN to the binary's path"
    )


def _is_console_script(path):
    """Whether path is this package's `ordinate` console script (a Python
    launcher, which would run itself), not the binary."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!" and b"ordinate.cli" in f.read(4096)
    except OSError:
        return False


# Set by the console script for the program it execs: a console script that
# finds it set was started, directly or not, by the program it ran itself.
_CONSOLE_SCRIPT_RAN = "ORDINATE_CONSOLE_SCRIPT_RAN"


def main():
    """The `ordinate` console script: exec the binary with the same
    arguments, so that `pip install` puts the carried binary on PATH.

    It refuses to run when the program it would exec leads back to itself
    ($ORDINATE_BIN naming the script, or a wrapper that execs it), which
    would exec forever."""
    ran = os.environ.get(_CONSOLE_SCRIPT_RAN)
    if ran is not None:
        sys.exit(
            f"ordinate: the ordinate console script was started again by the program it ran "
            f"({ran!r}, from ORDINATE_BIN={os.environ.get('ORDINATE_BIN', '')!r}): ORDINATE_BIN "
            f"must name the ordinate binary, not a program that runs this script"
        )
    try:
        exe = binary()
    except OrdinateError as e:
        sys.exit(f"ordinate: {e}")
    os.environ[_CONSOLE_SCRIPT_RAN] = exe
    os.execv(exe, [exe, *sys.argv[1:]])


def run(args, stdin=None):
    """Run `ordinate ARGS...` and return what it wrote on stdout (bytes).

    stdin is bytes to feed it, an open file, or None (nothing). A non-zero
    exit raises OrdinateError carrying the exit code and the stderr text.
    """
    argv = [binary(), *map(str, args)]
    kw = {}
    if stdin is None:
        kw["stdin"] = subprocess.DEVNULL
    elif isinstance(stdin, (bytes, bytearray, memoryview)):
        kw["input"] = bytes(stdin)
    else:
        kw["stdin"] = stdin
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if p.returncode != 0:
        raise OrdinateError.from_exit(argv, p.returncode, p.stderr)
    return p.stdout

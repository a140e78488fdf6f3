"""Finding and running the ordinate binary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO, Any, Mapping, NoReturn, Optional, Sequence, Union

_EXE = "ordinate.exe" if sys.platform == "win32" else "ordinate"


class OrdinateError(RuntimeError):
    """The ordinate binary exited non-zero (or was not found).

    returncode is its exit code, stderr the text it wrote on stderr, argv the
    command line it ran. A failed run raises one of the subclasses by the
    binary's own classification (kind): OptionError (a bad option or
    command line), DataError (bad input data), RunError (I/O, an internal
    failure) or Interrupted; option, file, column, row and id say where the
    error lies, when the binary knows.
    """

    kind: Optional[str] = None

    def __init__(
        self,
        message: str,
        *,
        returncode: int | None = None,
        stderr: str = "",
        argv: Sequence[str] | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr
        self.argv = list(argv) if argv is not None else None
        where = where or {}
        self.option: str | None = where.get("option")
        self.file: str | None = where.get("file")
        self.column: str | None = where.get("column")
        self.row: int | None = where.get("row")
        self.id: str | None = where.get("id")

    @classmethod
    def from_exit(cls, argv: Sequence[str], returncode: int, stderr: Union[str, bytes]) -> OrdinateError:
        if isinstance(stderr, bytes):
            stderr = stderr.decode("utf-8", "replace")
        record, stderr = _error_record(stderr)
        sub = cls
        if record is not None and cls is OrdinateError:
            sub = _KINDS.get(record.get("kind"), OrdinateError)
        text = stderr.strip() or "(no output on stderr)"
        name = os.path.basename(argv[0]) if argv else "ordinate"
        args = " ".join(argv[1:]) if argv else ""
        msg = f"{name} {args} exited with code {returncode}:\n{text}"
        return sub(msg, returncode=returncode, stderr=stderr, argv=argv, where=record)


class OptionError(OrdinateError, ValueError):
    """A bad option or command line (exit code 2): fix the call."""

    kind = "option"


class DataError(OrdinateError, ValueError):
    """Bad input data (exit code 2): file, column, row and id say where."""

    kind = "data"


class RunError(OrdinateError):
    """A runtime failure (exit code 1): I/O, an internal error."""

    kind = "runtime"


class Interrupted(OrdinateError):
    """The run was interrupted (a signal): no output was written."""

    kind = "interrupted"


_KINDS: dict[Optional[str], type[OrdinateError]] = {c.kind: c for c in (OptionError, DataError, RunError, Interrupted)}

# The variable that asks the binary for its final error as a JSON line.
_ERROR_JSON = "ORDINATE_ERROR_JSON"


def _env() -> dict[str, str]:
    """The environment the binary runs in: ours, asking for the error
    record."""
    return dict(os.environ, **{_ERROR_JSON: "1"})


def _error_record(stderr: str) -> tuple[dict[str, Any] | None, str]:
    """The binary's error record (the last line of stderr, JSON) and stderr
    as the binary writes it without the record ("ordinate: ERROR" in its
    place); (None, stderr) when there is none."""
    lines = stderr.rstrip("\n").split("\n")
    last = lines[-1] if lines else ""
    if not last.startswith("{"):
        return None, stderr
    try:
        record = json.loads(last)
    except ValueError:
        return None, stderr
    if not isinstance(record, dict) or "error" not in record or "kind" not in record:
        return None, stderr
    lines[-1] = "ordinate: " + record["error"]
    if record.get("kind") == "interrupted":
        lines.append("ordinate: interrupted; no output was written")
    return record, "\n".join(lines) + "\n"


def bundled_binary() -> str | None:
    """The path of the binary inside the installed package, or None."""
    p = Path(__file__).resolve().parent / "bin" / _EXE
    return str(p) if p.is_file() and os.access(p, os.X_OK) else None


def binary() -> str:
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


def _is_console_script(path: str) -> bool:
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


def main() -> NoReturn:
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


def run(args: Sequence[Any], stdin: Union[bytes, bytearray, memoryview, IO[bytes], int, None] = None) -> bytes:
    """Run `ordinate ARGS...` and return what it wrote on stdout (bytes).

    stdin is bytes to feed it, an open file, or None (nothing). A non-zero
    exit raises OrdinateError carrying the exit code and the stderr text.
    """
    argv = [binary(), *map(str, args)]
    kw: dict[str, Any] = {}
    if stdin is None:
        kw["stdin"] = subprocess.DEVNULL
    elif isinstance(stdin, (bytes, bytearray, memoryview)):
        kw["input"] = bytes(stdin)
    else:
        kw["stdin"] = stdin
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), **kw)
    if p.returncode != 0:
        raise OrdinateError.from_exit(argv, p.returncode, p.stderr)
    out: bytes = p.stdout
    return out

"""Every stage on in-memory tables: pyarrow, pandas, polars or numpy in,
the caller's type out, with no table written to disk.

The tables stream through the binary as Arrow IPC: the main input on its
stdin, the embedding on its stdout, every other table (the model, a
similarity or a control table, the SCORE aspects) on a pipe of its own
that the binary reads or writes as `fd:N` (Unix).

    import ordinate
    fit = ordinate.fit("bvp", df, label="grade", order=["low", "mid", "high"])
    fit.embedding                      # a DataFrame like df: id or row, grade, emb_0, emb_1
    fit.model.transform(new_rows)      # ordinate apply, in memory
    fit.model.save("bvp.model.parquet"); ordinate.Model.load("bvp.model.parquet")
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import warnings
from typing import IO, TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

import pyarrow as pa
import pyarrow.parquet as pq

from ordinate import describe
from ordinate.cli import OrdinateError, _env, binary

if TYPE_CHECKING:
    import numpy
    import pandas
    import polars

__all__ = ["Figure", "Fit", "Model", "OrdinateWarning", "evaluate", "fit", "plot"]

# The key of DataFrame.attrs that keeps a pandas result's ordinate
# metadata (its provenance), which pandas has nowhere else.
_ATTRS = "ordinate"

# The options the in-memory API sets itself.
_SETS = ("quiet", "log_format")

# What the in-memory API reads as a table: pyarrow, pandas, polars, or a
# 2-d numpy array of features (with label= its classes). Results come back
# as the caller's type, so they are typed Any.
Data = Union[
    pa.Table,
    pa.RecordBatch,
    pa.RecordBatchReader,
    "pandas.DataFrame",
    "polars.DataFrame",
    "numpy.ndarray[Any, Any]",
    "Fit",
]


class Model:
    """A fitted model: the model table's Arrow IPC stream bytes (what
    --model-out writes), with its header. It pickles as those bytes, so it
    travels to workers; save and load write and read model files."""

    def __init__(self, data: Union[bytes, bytearray, memoryview]) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Model(data): want the bytes of an Arrow IPC stream, not {type(data).__name__}")
        self.data = bytes(data)
        try:
            schema = pa.ipc.open_stream(self.data).schema
        except pa.ArrowException as e:
            raise OrdinateError(f"not a model: the bytes are not an Arrow IPC stream ({e})") from None
        raw = (schema.metadata or {}).get(b"ordinate.model")
        if raw is None:
            raise OrdinateError("not a model: the table has no ordinate.model header (write models with --model-out)")
        self.header: dict[str, Any] = json.loads(raw)

    @property
    def stage(self) -> str | None:
        """The stage that fitted the model (bvp, tsne, …)."""
        stage: str | None = self.header.get("stage")
        return stage

    @property
    def kind(self) -> str | None:
        """The model kind (affine, kernel, tsne, …)."""
        kind: str | None = self.header.get("kind")
        return kind

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> Model:
        """Read a model file written with --model-out (Parquet, Arrow IPC
        file or stream) or by save."""
        name = os.fspath(path)
        with open(name, "rb") as f:
            head = f.read(8)
        if head[:4] == b"PAR1":
            table = pq.read_table(name)
        elif head[:6] == b"ARROW1":
            table = pa.ipc.open_file(name).read_all()
        else:
            with open(name, "rb") as f:
                return cls(f.read())
        return cls(_ipc_bytes(table))

    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Write the model: Parquet for a .parquet path, an Arrow IPC file
        for .arrow or .feather, else the IPC stream as it is. Every form is
        a model file for `ordinate apply --model`."""
        name = os.fspath(path)
        if name.endswith(".parquet"):
            pq.write_table(self.table(), name, compression="zstd")
        elif name.endswith((".arrow", ".feather")):
            table = self.table()
            with pa.OSFile(name, "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
                w.write_table(table)
        else:
            with open(name, "wb") as f:
                f.write(self.data)

    def table(self) -> pa.Table:
        """The model table (pyarrow), with its header in the schema metadata."""
        return pa.ipc.open_stream(self.data).read_all()

    def transform(self, data: Data, *, label: Any = None, **options: Any) -> Any:
        """Place the rows of data with the model (`ordinate apply`): the
        embedding in the type of data. options are apply's (id, keep,
        perplexity, max_iter, on_invalid, threads …); label names the new
        rows' class column for a NeRV model, or is their classes (numpy)."""
        table, like = _table(data, label)
        if label is not None:
            options["label"] = label if isinstance(label, str) else "label"
        flags = describe.flags("apply", options, reserved=_SETS, why="transform sets {} itself")
        outs = _run(["apply", *flags], table, {"model": self.data}, [])
        return _like(outs["out"], like)

    def __reduce__(self) -> tuple[type[Model], tuple[bytes]]:
        return (Model, (self.data,))

    def __repr__(self) -> str:
        return f"<ordinate.Model {self.stage} ({self.kind}), {len(self.data):,} bytes>"


class Fit:
    """The result of fit: the embedding (in the type of the input), the
    model (None for stages that write none) and the other outputs asked
    for (pyarrow Tables by role)."""

    def __init__(self, embedding: Any, model: Model | None, outputs: dict[str, pa.Table], table: pa.Table) -> None:
        self.embedding = embedding
        self.model = model
        self.outputs = outputs
        # The embedding as pyarrow, with its provenance (which polars and
        # numpy results cannot carry): evaluate and plot take the Fit.
        self.table = table

    def __repr__(self) -> str:
        n = getattr(self.embedding, "shape", None) or getattr(self.embedding, "num_rows", "?")
        return f"<ordinate.Fit embedding {n}, model {self.model!r}>"


def fit(
    method: str,
    data: Data | None,
    *,
    label: Any = None,
    outputs: Iterable[str] = (),
    progress: bool | None = None,
    **options: Any,
) -> Fit:
    """Run a stage on an in-memory table and return a Fit.

    data is a pyarrow Table, RecordBatch or RecordBatchReader, a pandas or
    polars DataFrame, or a 2-d numpy array (its columns become x0, x1, …);
    None for a stage that reads other roles only (tsne on distances=…, with
    fisher_model= a Model).
    label is the label column's name, or, with numpy data, the classes
    themselves (a column "label"). Other input tables of the stage go by
    their role as keywords (similarity=…, control_table=…, objects=…);
    outputs names other output roles to return (["aspects-out",
    "sphere-out"] for score); options are the stage's keyword options,
    checked against the binary's description. The model (when the stage
    writes one) comes back as a Model. No table is written to disk: every
    one streams through a pipe. progress shows the binary's progress of a
    long fit as a bar (tqdm; without it, the binary's lines on stderr):
    None shows it when tqdm is installed and a notebook or terminal
    watches.
    """
    st = describe.stage(method)
    roles_in = {r["name"].replace("-", "_"): r["name"] for r in st["inputs"]}
    roles_out = {r["name"] for r in st["outputs"]}
    tables: dict[str, Union[pa.Table, bytes]] = {}
    for key in list(options):
        if key in roles_in and roles_in[key] != "in":
            value = options.pop(key)
            if isinstance(value, Model):
                tables[roles_in[key]] = value.data  # a model input (fisher_model=…)
            elif value is not None:
                tables[roles_in[key]] = _table(value, None)[0]
    if data is None:
        if not tables:
            raise ValueError(f"ordinate {method}: give data, or its input tables by role")
        table: pa.Table | None = None
        like = "arrow"
    else:
        table, like = _table(data, label)
    if label is not None:
        options["label"] = label if isinstance(label, str) else "label"
    flags = describe.flags(method, options, reserved=_SETS, why="fit sets {} itself")
    want = [r for r in outputs if r != "out"]
    for r in want:
        if r not in roles_out:
            raise ValueError(f"ordinate {method} writes no {r!r}; its outputs are {', '.join(sorted(roles_out))}")
    if "model-out" in roles_out and "model-out" not in want:
        want.append("model-out")
    outs = _run([method, *flags], table, tables, want, _show_progress(progress))
    model = Model(outs.pop("model-out")) if "model-out" in outs else None
    others = {r: pa.ipc.open_stream(b).read_all() for r, b in outs.items() if r != "out"}
    emb = pa.ipc.open_stream(outs["out"]).read_all()  # read once: the caller's type, and the Fit's own
    return Fit(_like(emb, like), model, others, emb)


def evaluate(embedding: Data, data: Data, *, label: str | None = None, **options: Any) -> Any:
    """The quality metrics of an embedding against the table it was made
    from (`ordinate evaluate`): the long table metric, k, subset, value, in
    the type of data. embedding is a Fit, or a table: pyarrow and pandas
    results of fit keep the fit's provenance (the features and
    standardisation evaluate compares with), polars and numpy ones cannot,
    so give the Fit for those. options are evaluate's (id, k, ordinal, sample, …);
    label names the class column of data."""
    table, like = _table(data, None)
    emb, _ = _table(embedding, None)
    if label is not None:
        options["label"] = label
    flags = describe.flags("evaluate", options, reserved=_SETS + ("summary",), why="evaluate in memory sets {} itself")
    outs = _run(["evaluate", *flags], table, {"embedding": emb}, [])
    out = _like(outs["out"], like if like != "numpy" else "arrow")
    return out


class Figure:
    """A figure drawn by `ordinate plot`, as SVG: it displays inline in
    Jupyter and saves to a file."""

    def __init__(self, svg: bytes) -> None:
        self.svg = bytes(svg)

    def _repr_svg_(self) -> str:
        return self.svg.decode("utf-8")

    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Write the SVG to path."""
        with open(path, "wb") as f:
            f.write(self.svg)

    def __repr__(self) -> str:
        return f"<ordinate.Figure SVG, {len(self.svg):,} bytes>"


def plot(embedding: Data, **options: Any) -> Figure:
    """Draw an embedding, SCORE maps or a distance table (`ordinate plot`)
    and return it as a Figure (SVG). embedding is a Fit or a table. Other input tables go by their role
    (placed=…, join=…, triplets=…); options are plot's (color, facet,
    color_scale, title, …)."""
    emb, _ = _table(embedding, None)
    tables: dict[str, Union[pa.Table, bytes]] = {}
    for role in ("placed", "join", "triplets"):
        if options.get(role) is not None:
            tables[role] = _table(options.pop(role), None)[0]
    flags = describe.flags("plot", options, reserved=_SETS, why="plot in memory sets {} itself")
    outs = _run(["plot", *flags], emb, tables, [])
    return Figure(outs["out"])


def _table(data: Any, label: Any) -> tuple[pa.Table, str]:
    """data as a pyarrow Table, and what to give results back as."""
    if isinstance(data, Fit):
        return data.table, "arrow"
    if isinstance(data, pa.Table):
        return data, "arrow"
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data]), "arrow"
    if isinstance(data, pa.RecordBatchReader):
        return data.read_all(), "arrow"
    mod = type(data).__module__.split(".")[0]
    if mod == "pandas":
        table = pa.Table.from_pandas(data, preserve_index=False)
        kept = data.attrs.get(_ATTRS)
        if kept:
            # The provenance an embedding came back with (_like): evaluate
            # and plot read the fit's features and standardisation from it.
            md = dict(table.schema.metadata or {})
            md.update({k.encode(): v.encode() for k, v in kept.items()})
            table = table.replace_schema_metadata(md)
        return table, "pandas"
    if mod == "polars":
        return data.to_arrow(), "polars"
    if mod == "numpy":
        import numpy as np

        x = np.asarray(data, dtype=np.float64)
        if x.ndim != 2:
            raise ValueError(f"a numpy array of features must be 2-d (rows x features), not {x.ndim}-d")
        cols = {f"x{j}": x[:, j] for j in range(x.shape[1])}
        if label is not None and not isinstance(label, str):
            y = np.asarray(label)
            if y.shape != (x.shape[0],):
                raise ValueError(f"label: {y.shape[0] if y.ndim else 0} classes for {x.shape[0]} rows")
            cols["label"] = y
        return pa.table(cols), "numpy"
    raise TypeError(f"data of type {type(data).__name__}: want a pyarrow Table, RecordBatch or RecordBatchReader, "
                    "a pandas or polars DataFrame, or a 2-d numpy array")


def _like(table: Union[pa.Table, bytes], like: str) -> Any:
    """An output table (its provenance in the schema metadata, or an IPC
    stream's bytes) in the caller's type."""
    if isinstance(table, bytes):
        table = pa.ipc.open_stream(table).read_all()
    if like == "pandas":
        df = table.to_pandas()
        md = table.schema.metadata or {}
        df.attrs[_ATTRS] = {k.decode(): v.decode() for k, v in md.items() if k.startswith(b"ordinate")}
        return df
    if like == "polars":
        import polars as pl

        return pl.from_arrow(table)
    if like == "numpy":
        import numpy as np

        emb = [c for c in table.column_names if c.startswith("emb_")]
        return np.column_stack([table.column(c).to_numpy() for c in emb])
    return table


def _ipc_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


class _Progress:
    """A progress bar of the binary's progress records (--log-format json:
    msg "progress", phase, done, total): tqdm when it is installed, else
    the records as the binary words them, on stderr."""

    def __init__(self) -> None:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self.tqdm: Any = tqdm
        self.bar: Any = None
        self.phase: str | None = None

    def show(self, rec: Mapping[str, Any]) -> None:
        """Show a progress record."""
        if self.tqdm is None:
            done, total = rec.get("done"), rec.get("total")
            of = f"/{total}" if total else ""
            sys.stderr.write(f"ordinate: {rec.get('phase')}: {done}{of} ({rec.get('elapsed')})\n")
            return
        if rec.get("phase") != self.phase:
            self.close()
            self.phase = rec.get("phase")
            self.bar = self.tqdm(total=rec.get("total"), desc=self.phase, unit="")
        self.bar.n = rec.get("done", 0)
        self.bar.refresh()

    def close(self) -> None:
        """End the bar: its phase is over (the binary reports every 5 s,
        so the last record falls short of the end)."""
        if self.bar is not None:
            if self.bar.total:
                self.bar.n = self.bar.total
            self.bar.close()
            self.bar = None


class OrdinateWarning(UserWarning):
    """A warning of the binary (a constant column dropped, scales far
    apart, …), raised as a Python warning by the in-memory API."""


def _log_record(line: bytes) -> dict[str, Any] | None:
    """A JSON log record of the binary (time, level, msg, …), or None for
    any other line (the error record has no level)."""
    if not line.startswith(b"{"):
        return None
    try:
        rec: Any = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and "level" in rec and "msg" in rec else None


def _show_progress(progress: bool | None) -> bool:
    """progress as given, or by default: when tqdm is installed and the
    caller watches (a notebook, or stderr a terminal)."""
    if progress is not None:
        return bool(progress)
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def _run(
    args: Sequence[str],
    table: pa.Table | None,
    inputs: Mapping[str, Union[pa.Table, bytes]],
    outputs: Sequence[str],
    progress: bool = False,
) -> dict[str, bytes]:
    """Run the binary with table on stdin (--in -), each input (role ->
    Table or IPC bytes) on a pipe of its own, each output role on a pipe,
    and the embedding on stdout; return the outputs' bytes by role ("out"
    among them). With progress, the binary's progress records drive a
    progress bar (_Progress)."""
    if os.name != "posix":
        raise OrdinateError("the in-memory API passes tables on pipes (fd:N), which needs a Unix system")
    # JSON logs: warnings become Python warnings, progress records a bar.
    tail = ["--log-format", "json"] if progress else ["--log-format", "json", "--quiet"]
    main = ["--in", "-"] if table is not None else []
    argv = [binary(), *args, *main, "--out", "-", *tail]
    feeds: list[tuple[int, bytes]] = []
    drains: dict[str, int] = {}
    child_fds: list[int] = []
    threads: list[threading.Thread] = []
    try:
        for role, t in inputs.items():
            r, w = os.pipe()
            child_fds.append(r)
            feeds.append((w, t if isinstance(t, bytes) else _ipc_bytes(t)))
            argv += [f"--{role}=fd:{r}"]
        for role in outputs:
            r, w = os.pipe()
            child_fds.append(w)
            drains[role] = r
            argv += [f"--{role}=fd:{w}"]
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                pass_fds=child_fds, env=_env())
    except BaseException:
        for fd in child_fds + [w for w, _ in feeds] + list(drains.values()):
            os.close(fd)
        raise
    for fd in child_fds:
        os.close(fd)
    got: dict[str, bytes] = {}
    errors: list[BaseException] = []

    def write(fd_or_file: Union[int, IO[bytes]], data: bytes) -> None:
        try:
            if isinstance(fd_or_file, int):
                with os.fdopen(fd_or_file, "wb") as f:
                    f.write(data)
            else:
                with fd_or_file as f:
                    f.write(data)
        except (BrokenPipeError, OSError):
            pass  # the process stopped reading: its exit status says why

    def read(role: str, fd_or_file: Union[int, IO[bytes]]) -> None:
        try:
            if isinstance(fd_or_file, int):
                with os.fdopen(fd_or_file, "rb") as f:
                    got[role] = f.read()
            else:
                got[role] = fd_or_file.read()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    assert proc.stdin is not None and proc.stdout is not None  # both PIPE
    threads.append(threading.Thread(target=write, args=(proc.stdin, _ipc_bytes(table) if table is not None else b""),
                                    daemon=True))
    for w, data in feeds:
        threads.append(threading.Thread(target=write, args=(w, data), daemon=True))
    for role, r in drains.items():
        threads.append(threading.Thread(target=read, args=(role, r), daemon=True))
    threads.append(threading.Thread(target=read, args=("out", proc.stdout), daemon=True))
    stderr: list[bytes] = []
    warned: list[str] = []
    bar = _Progress() if progress else None

    def watch() -> None:
        kept: list[bytes] = []
        assert proc.stderr is not None  # stderr=PIPE
        for line in proc.stderr:
            rec = _log_record(line)
            if rec is None:
                kept.append(line)  # the error record, or text
            elif rec.get("msg") == "progress":
                if bar is not None:
                    bar.show(rec)
            else:
                if rec.get("level") == "WARN":
                    warned.append(rec.get("msg", ""))
                kept.append(f"{rec.get('level', '')} {rec.get('msg', '')}\n".encode())
        if bar is not None:
            bar.close()
        stderr.append(b"".join(kept))

    threads.append(threading.Thread(target=watch, daemon=True))
    for th in threads:
        th.start()
    rc = proc.wait()
    for th in threads:
        th.join()
    if proc.stderr is not None:
        proc.stderr.close()
    if rc != 0:
        raise OrdinateError.from_exit(argv, rc, stderr[0] if stderr else b"")
    for message in warned:
        warnings.warn(message, OrdinateWarning, stacklevel=3)
    if errors:
        raise errors[0]
    return got

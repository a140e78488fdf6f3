"""The binary's self-description (`ordinate describe --json`), and what the
package builds from it: keyword checking and option docs.

The wheel carries the description of the binary it carries (describe.json,
written at build time); without it the binary is asked once per process.
"""

from __future__ import annotations

import difflib
import functools
import json
import numbers
import os
from pathlib import Path
from typing import Any, Collection, Mapping

from ordinate.cli import run

# The description schema this package reads (schema_version).
SCHEMA_VERSION = 1

_PACKAGED = Path(__file__).resolve().parent / "describe.json"


def packaged() -> bool:
    """Whether the installation carries the description of its binary."""
    return _PACKAGED.is_file()


@functools.lru_cache(maxsize=None)
def describe() -> dict[str, Any]:
    """The description of every stage and model kind, as a dict: the JSON of
    `ordinate describe --json` (schema_version, stages, model_kinds,
    host_options)."""
    if _PACKAGED.is_file():
        d: dict[str, Any] = json.loads(_PACKAGED.read_text())
    else:
        d = json.loads(run(["describe", "--json"]))
    if d.get("schema_version") != SCHEMA_VERSION:
        raise RuntimeError(
            f"ordinate describe has schema_version {d.get('schema_version')!r}; "
            f"this package reads {SCHEMA_VERSION}: install matching versions of the "
            "package and the binary"
        )
    return d


def stage(name: str) -> dict[str, Any]:
    """The description of one stage (a dict), or ValueError naming the
    stages there are."""
    s: dict[str, Any]
    for s in describe()["stages"]:
        if s["name"] == name:
            return s
    names = ", ".join(s["name"] for s in describe()["stages"])
    raise ValueError(f"no stage {name!r}; the stages are {names}")


def _keywords(st: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each keyword a stage accepts (option keys and their aliases, in
    snake_case) mapped to its option."""
    out: dict[str, dict[str, Any]] = {}
    for o in st["options"]:
        out[o["key"]] = o
        for a in o.get("aliases") or []:
            out[a.replace("-", "_")] = o
    for o in describe().get("host_options") or []:
        out.setdefault(o["key"], o)
    return out


def flags(
    stage_name: str,
    options: Mapping[str, Any],
    *,
    reserved: Collection[str] = (),
    why: str = "{}: set by the caller itself",
) -> list[str]:
    """The command-line flags of keyword options for a stage, checked
    against its description: an unknown keyword is a TypeError naming the
    closest ones, a value of the wrong kind or not among an enum's values a
    ValueError. upper=True gives --upper, k=[5, 10] gives --k 5,10,
    exclude_endpoints gives --exclude-endpoints, False gives --flag=false,
    and None leaves the option out; a value that begins with "-" is attached
    to its flag (id="-x" gives --id=-x), so no value can be read as another
    flag. Options in reserved (keys; their aliases too) are refused with
    the message why.format(key), as set by the caller itself."""
    st = stage(stage_name)
    known = _keywords(st)
    out: list[str] = []
    for key, value in options.items():
        o = known.get(key)
        if key in reserved or (o is not None and o["key"] in reserved):
            raise ValueError(why.format(key))
        if o is None:
            usable = [k for k, v in known.items() if v["key"] not in reserved]
            close = difflib.get_close_matches(key, usable, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise TypeError(f"ordinate {stage_name} has no option {key!r}{hint} (see ordinate.describe.doc({stage_name!r}))")
        if value is None:
            continue
        out += _flag(stage_name, o, key, value)
    return out


def _flag(stage_name: str, o: Mapping[str, Any], key: str, value: Any) -> list[str]:
    flag = "--" + o["name"]
    kind = o["type"]
    where = f"ordinate {stage_name} {key}"
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{where}={value!r}: want True or False")
        return [flag] if value else [flag + "=false"]
    if kind.startswith("list of "):
        if isinstance(value, (list, tuple)):
            items = list(value)
            for v in items:
                _check_scalar(where, o, kind[len("list of "):], v)
                if "," in _text(v):
                    raise ValueError(f"{where}: item {v!r} holds a comma, which separates the items of the list")
        else:
            items = [value]  # one value or a comma list of them
            _check_scalar(where, o, kind[len("list of "):], value)
        return _with_value(flag, ",".join(_text(v) for v in items))
    _check_scalar(where, o, kind, value)
    return _with_value(flag, _text(value))


def _with_value(flag: str, text: str) -> list[str]:
    """A flag and its value as arguments. A value that begins with "-" is
    attached (--flag=value), so that no value can be read as a flag."""
    return [f"{flag}={text}"] if text.startswith("-") else [flag, text]


def _text(value: Any) -> str:
    return os.fsdecode(value) if isinstance(value, os.PathLike) else str(value)


def _check_scalar(where: str, o: Mapping[str, Any], kind: str, value: Any) -> None:
    if kind in ("int", "uint") and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ValueError(f"{where}={value!r}: want a whole number")
    if kind == "float" and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise ValueError(f"{where}={value!r}: want a number")
    if kind in ("string", "text") and not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"{where}={value!r}: want a string")
    if kind == "enum" and str(value) not in o.get("values", []):
        raise ValueError(f"{where}={value!r}: want one of {', '.join(o['values'])}")
    r = o.get("range")
    if r and kind in ("int", "uint", "float"):
        lo, hi = r.get("min"), r.get("max")
        if lo is not None and (value < lo or (r.get("min_open") and value == lo)):
            raise ValueError(f"{where}={value!r}: want a value {_range_text(r)}")
        if hi is not None and (value > hi or (r.get("max_open") and value == hi)):
            raise ValueError(f"{where}={value!r}: want a value {_range_text(r)}")


def _range_text(r: Mapping[str, Any]) -> str:
    lo, hi = r.get("min"), r.get("max")
    if lo is not None and hi is not None:
        return f"in {'(' if r.get('min_open') else '['}{lo:g}, {hi:g}{')' if r.get('max_open') else ']'}"
    if lo is not None:
        return f"{'>' if r.get('min_open') else '>='} {lo:g}"
    return f"{'<' if r.get('max_open') else '<='} {hi:g}"


def doc(stage_name: str, *, exclude: Collection[str] = ()) -> str:
    """The keyword options of a stage as docstring text: one entry per
    option (its keyword, type, default and meaning), in the binary's
    words."""
    st = stage(stage_name)
    lines = [f"Options of ordinate {stage_name} ({st['summary']}), as keywords:", ""]
    for o in st["options"]:
        if o["key"] in exclude:
            continue
        default = o.get("default")
        d = "" if default in (None, "", []) else f", default {default!r}"
        lines.append(f"    {o['key']} ({o['type']}{d})")
        lines.append(f"        {o['usage']}")
        if o.get("aliases"):
            lines.append(f"        (also: {', '.join(a.replace('-', '_') for a in o['aliases'])})")
    return "\n".join(lines)

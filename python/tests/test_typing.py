"""The typed API: the estimators' typed parameters are generated from the
binary's description and are current; the package says it is typed.
(mypy --strict itself runs in CI: .ci/run.)"""

import importlib.util
import inspect
import typing
from pathlib import Path

import ordinate
import ordinate.sklearn
from ordinate import describe

TOOLS = Path(__file__).resolve().parent.parent / "tools" / "gen_estimators.py"


def generator():
    spec = importlib.util.spec_from_file_location("gen_estimators", TOOLS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_estimators_are_generated_from_the_description():
    """sklearn.py's generated classes are what the binary's description
    gives now: a new or changed option fails here until
    python/tools/gen_estimators.py is run."""
    gen = generator()
    text = Path(ordinate.sklearn.__file__).read_text()
    assert gen.rewrite(text, gen.generate(describe.describe())) == text, \
        "ordinate/sklearn.py is stale: run python python/tools/gen_estimators.py"


def test_estimator_parameters_are_the_options():
    """Each generated estimator takes exactly its method's options (less
    the column options), typed by the option's kind."""
    gen = generator()
    for name, method, _, _ in gen.ESTIMATORS:
        cls = getattr(ordinate.sklearn, name)
        params = inspect.signature(cls.__init__).parameters
        st = describe.stage(method)
        want = [o for o in st["options"] if o["key"] not in gen.COLUMNS]
        assert list(params)[1:] == [o["key"] for o in want], name
        hints = typing.get_type_hints(cls.__init__)
        for o in want:
            args = typing.get_args(hints[o["key"]])
            assert type(None) in args, f"{name}.{o['key']}: None (the binary's default) must be allowed"
            if o["type"] == "enum":
                lit = [a for a in args if typing.get_origin(a) is typing.Literal]
                assert lit and set(typing.get_args(lit[0])) == set(o["values"]), f"{name}.{o['key']}"
            if o["type"] in ("int", "uint"):
                assert int in args, f"{name}.{o['key']}"


def test_py_typed():
    assert (Path(ordinate.__file__).parent / "py.typed").is_file()

"""ordinate: a thin Python front end to the ordinate binary.

Everything is computed by the Go binary; this package finds it, runs it,
streams in-memory tables through it (ordinate.fit, Model.transform), and (in
ordinate.spark) streams Spark's Arrow record batches through it.
"""

from ordinate import describe
from ordinate._version import __version__
from ordinate.api import Figure, Fit, Model, OrdinateWarning, evaluate, fit, plot
from ordinate.cli import DataError, Interrupted, OptionError, OrdinateError, RunError, binary, run

__all__ = ["DataError", "Figure", "Fit", "Interrupted", "Model", "OptionError", "OrdinateError", "OrdinateWarning",
           "RunError", "binary",
           "describe", "evaluate", "fit", "plot", "run", "__version__"]

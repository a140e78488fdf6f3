"""ordinate: a thin Python front end to the ordinate binary.

Everything is computed by the Go binary; this package finds it, runs it, and
(in ordinate.spark) streams Spark's Arrow record batches through it.
"""

from ordinate import describe
from ordinate._version import __version__
from ordinate.cli import OrdinateError, binary, run

__all__ = ["OrdinateError", "binary", "describe", "run", "__version__"]

"""santorini-p2p: Santorini over a LAN with no server, with signed, verifiable game records."""

from __future__ import annotations

import os

# The computer's network (ai/net.py) multiplies small batches, which BLAS threads only slow
# down, tenfold on a busy machine; set before numpy loads (an earlier import keeps its own).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

__all__ = ["__version__"]

__version__ = "0.1.0"

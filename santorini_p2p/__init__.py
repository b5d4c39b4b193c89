"""santorini-p2p: Santorini over a LAN with no server, with signed, verifiable game records."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"

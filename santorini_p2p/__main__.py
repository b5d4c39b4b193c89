"""Run the command line with ``python -m santorini_p2p``."""

from __future__ import annotations

from santorini_p2p.cli import main

# Guarded: a search process started with "spawn" imports this module again.
if __name__ == "__main__":
    raise SystemExit(main())

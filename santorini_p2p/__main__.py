"""Run the command line with ``python -m santorini_p2p``."""

from __future__ import annotations

from santorini_p2p.cli import main

raise SystemExit(main())

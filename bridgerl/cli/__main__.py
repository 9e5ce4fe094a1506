"""``python -m bridgerl.cli``: the command line."""

from . import main

raise SystemExit(main())

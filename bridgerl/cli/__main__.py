"""``python -m bridgerl.cli``: the command line."""

from . import main

if __name__ == "__main__":  # importing the module (e.g. walking the package) runs nothing
    raise SystemExit(main())

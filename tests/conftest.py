import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # for the tests' own reference solvers

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # for the tests' own reference solvers


import pytest  # noqa: E402


@pytest.fixture(scope="module")
def server():
    """The web API's server under test, one a module (`helper_web.make_server`; tests/test_web_*.py)."""
    from helper_web import make_server

    return make_server()


@pytest.fixture(scope="module")
def client(server):
    """FastAPI's test client of `server`."""
    from helper_web import make_client

    return make_client(server)

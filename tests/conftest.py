import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # for the tests' own reference solvers

# One JAX compilation cache for the whole run, shared by the test processes (pytest-xdist's workers) and every
# subprocess they start (the CLI, the four-device helper): a program compiled once (the same trainer, env or card
# player in another test, a resumed run) is read back instead of compiled again. Fresh for each run (a cold cache is
# what the suite's time is measured with), removed at its end; BRIDGERL_TEST_JAX_CACHE=DIR keeps one across runs.
_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"{os.getpid()}"
_OWN_CACHE = "BRIDGERL_TEST_JAX_CACHE" not in os.environ and "JAX_COMPILATION_CACHE_DIR" not in os.environ
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    os.environ["JAX_COMPILATION_CACHE_DIR"] = os.environ.get("BRIDGERL_TEST_JAX_CACHE") or os.path.join(
        tempfile.gettempdir(), f"bridgerl-test-jax-cache-{_RUN}")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.2")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
if "jax" in sys.modules:  # a plugin imported JAX before this file: its configuration read the environment already
    import jax

    jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs",
                      float(os.environ.get("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", 1.0)))
    jax.config.update("jax_persistent_cache_min_entry_size_bytes",
                      int(os.environ.get("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", 0)))


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


def pytest_unconfigure(config):
    """The run's own compilation cache goes with it (by the main process, once every worker has ended)."""
    if _OWN_CACHE and not hasattr(config, "workerinput"):
        import shutil

        shutil.rmtree(os.environ["JAX_COMPILATION_CACHE_DIR"], ignore_errors=True)

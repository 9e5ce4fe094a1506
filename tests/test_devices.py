"""Multi-device training (`--devices`): data parallel over 4 forced CPU host devices, finite, within float
tolerance of one device, bit-identical when resumed on as many devices; the CLI asks XLA for the devices."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridgerl.devices import HOST_DEVICE_FLAG, request_host_devices
from bridgerl.training.sharding import resolve_devices

HELPER = Path(__file__).with_name("helper_devices.py")


# the slow tier (CI runs it; docs/conventions.md), as the command's 2-device training below: the default tier checks
# that the command asks XLA for its devices (a refusal that only 2 visible devices give) and the helper's own tests
@pytest.mark.slow
def test_four_forced_host_devices_train_dqn_and_ppo(tmp_path):
    done = subprocess.run([sys.executable, str(HELPER), str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    assert result["devices"] == 4
    assert all(result["finite"].values()), result["finite"]
    for algo in ("dqn", "ppo"):
        difference, _ = result[f"{algo}_1_vs_4"]
        assert difference < 1e-4, f"{algo}: 4 devices differ from one by {difference}"
        assert result[f"{algo}_resumed"] == [0.0, True], f"{algo}: the resumed 4-device run is not bit-identical"
    assert result["self_play_resumed"] == [0.0, True], "competitive self-play with a pool: resume not bit-identical"
    assert result["model_devices"] == [None, 4, 4]  # "all" resolved to the 4 visible devices
    assert result["env_rows_per_device"] == [2]  # 8 auctions over 4 devices
    assert result["param_replicated"]
    assert result["indivisible"] == "num_envs (6) must divide over the 4 devices: choose a multiple of 4"


# the slow tier (CI runs it; docs/conventions.md): the refusal below and the helper's own tests stay in the default
@pytest.mark.slow
def test_the_command_trains_on_the_devices_it_asks_xla_for(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "XLA_FLAGS"}
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "bridgerl.cli", "train", "uncontested", "--devices", "2", "--steps",
                           "320", "--out", str(out), "--data", "test", "--eval-data", "test", "--hidden", "16",
                           "--num-envs", "8", "--batch-size", "8", "--min-replay", "32", "--quiet"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    assert "held-out IMPs/deal" in done.stdout


def test_the_command_asks_xla_for_the_devices(tmp_path):
    """The command sets XLA's host device count before JAX starts: two devices are seen, so nine envs are refused
    for not dividing over them (the training itself: the slow tier)."""
    env = {key: value for key, value in os.environ.items() if key != "XLA_FLAGS"}
    bad = subprocess.run([sys.executable, "-m", "bridgerl.cli", "train", "uncontested", "--devices", "2", "--out",
                          str(tmp_path / "bad"), "--num-envs", "9", "--quiet"],
                         capture_output=True, text=True, timeout=600, env=env)
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("bridgerl: error: num_envs (9) must divide over the 2 devices: choose a multiple "
                                  "of 2")


def test_request_host_devices(monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    assert request_host_devices("all") is None and "XLA_FLAGS" not in os.environ
    assert request_host_devices(1) is None and "XLA_FLAGS" not in os.environ
    assert request_host_devices(4) == 4 and os.environ["XLA_FLAGS"] == f"{HOST_DEVICE_FLAG}=4"
    monkeypatch.setenv("XLA_FLAGS", f"--xla_cpu_foo=1 {HOST_DEVICE_FLAG}=3")
    assert request_host_devices(8) == 3  # a count the user set is left alone
    assert os.environ["XLA_FLAGS"] == f"--xla_cpu_foo=1 {HOST_DEVICE_FLAG}=3"


def test_asking_for_more_devices_than_visible_is_one_line():
    assert resolve_devices(None) == 1
    with pytest.raises(ValueError, match=r"--devices 64: only \d+ cpu device\(s\) are visible \(on a CPU, XLA_FLAGS"):
        resolve_devices(64)

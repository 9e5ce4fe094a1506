"""How many JAX devices a run asks for, settled before JAX starts (no JAX import here).

On a CPU, XLA shows one device unless ``--xla_force_host_platform_device_count=N`` is in ``XLA_FLAGS`` when JAX
creates its backend: `request_host_devices` puts it there (leaving a count the user already set alone), so that
``--devices N`` runs data parallel over N host devices on a machine without accelerators. On a GPU machine the flag
changes nothing: the run uses the GPUs.
"""

from __future__ import annotations

import os
import re

HOST_DEVICE_FLAG = "--xla_force_host_platform_device_count"


def request_host_devices(count: int | str) -> int | None:
    """Ask XLA for ``count`` host (CPU) devices unless ``XLA_FLAGS`` already sets a count; returns the count in
    force (None where nothing is forced). Call it before JAX creates its backend (before the first JAX
    computation); ``"all"`` and 1 force nothing."""
    flags = os.environ.get("XLA_FLAGS", "")
    found = re.search(HOST_DEVICE_FLAG + r"=(\d+)", flags)
    if found:
        return int(found.group(1))
    if count == "all" or count == 1:
        return None
    os.environ["XLA_FLAGS"] = f"{flags} {HOST_DEVICE_FLAG}={int(count)}".strip()
    return int(count)

"""Data parallelism over several devices with `jax.sharding` (one 1-D mesh, axis ``"data"``).

The parallel auctions (env states and everything else with one row per auction) and the batches of every update
are split along their first axis over the devices; parameters, optimizer state and the replay buffer are
replicated. Nothing else changes: the trainers' compiled step is the same program, and XLA's partitioner
(GSPMD) runs each device's share of the envs and the batch and sums the gradients across devices. One device
means no mesh at all, which keeps a run bit-identical to the unsharded trainer.
"""

from __future__ import annotations

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "data"


def resolve_devices(devices: int | str | None) -> int:
    """The number of devices a run uses: ``None`` -> 1, ``"all"`` -> every visible device."""
    available = jax.device_count()
    if devices is None:
        return 1
    if devices == "all":
        return available
    if not isinstance(devices, int) or devices < 1:
        raise ValueError(f"devices must be a positive count or 'all', got {devices!r}")
    if devices > available:
        cpu = jax.default_backend() == "cpu"
        hint = (" (on a CPU, XLA_FLAGS=--xla_force_host_platform_device_count=N before JAX starts; the CLI's "
                "--devices does it)" if cpu else "")
        raise ValueError(f"--devices {devices}: only {available} {jax.default_backend()} device(s) are visible{hint}")
    return devices


def data_mesh(devices: int) -> Mesh | None:
    """A mesh over the first ``devices`` devices, or None for one device (no sharding)."""
    return None if devices == 1 else Mesh(jax.devices()[:devices], (AXIS,))


def check_divisible(mesh: Mesh | None, **sizes: int) -> None:
    """Each global size (num_envs, batch_size, ...) must split evenly over the devices."""
    if mesh is None:
        return
    count = mesh.devices.size
    for name, size in sizes.items():
        if size % count:
            raise ValueError(f"{name} ({size}) must divide over the {count} devices: choose a multiple of {count}")


def split_rows(mesh: Mesh | None, tree):
    """Inside a jitted function: lay ``tree``'s leaves out with their first axis over the devices."""
    if mesh is None:
        return tree
    sharding = NamedSharding(mesh, PartitionSpec(AXIS))
    return jax.tree.map(lambda leaf: jax.lax.with_sharding_constraint(leaf, sharding), tree)


def place(mesh: Mesh | None, state, row_fields: tuple[str, ...]):
    """``state`` (a flax struct dataclass) on the mesh: the ``row_fields`` (one row per auction) split over the
    devices, every other leaf replicated."""
    if mesh is None:
        return state
    rows, replicated = NamedSharding(mesh, PartitionSpec(AXIS)), NamedSharding(mesh, PartitionSpec())
    changes = {}
    for field in state.__dataclass_fields__:
        value = getattr(state, field)
        if value is not None:
            changes[field] = jax.device_put(value, rows if field in row_fields else replicated)
    return state.replace(**changes)


def constrain_rows(mesh: Mesh | None, state, row_fields: tuple[str, ...]):
    """Inside a jitted function: keep the ``row_fields`` of ``state`` split over the devices."""
    if mesh is None:
        return state
    return state.replace(**{field: split_rows(mesh, getattr(state, field)) for field in row_fields
                            if getattr(state, field) is not None})

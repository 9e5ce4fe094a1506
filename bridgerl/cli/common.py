"""What the command groups share: the help of the common flags and the dataset and JSON helpers."""

from __future__ import annotations

from ..core.dataset import DatasetError
from ..core.files import atomic_write_text

FORCE_HELP = "replace an existing output file"
DATA_HELP = "bundled split 'train', 'valid' or 'test', or a .npz dataset file"


def load_deals(data):
    """``load_dataset(data)``, refusing a dataset without deals (one line instead of a failure further on)."""
    from ..core.dataset import load_dataset

    dataset = load_dataset(data)
    if len(dataset) == 0:
        raise DatasetError(f"{dataset.source}: the dataset holds no deals")
    return dataset


def write_json(path, payload) -> None:
    """Strict JSON, atomically: a mean or CI that does not exist (NaN: no contract declared, one board) is null."""
    import json
    import math

    def finite(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: finite(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [finite(v) for v in value]
        return value

    atomic_write_text(path, json.dumps(finite(payload), indent=1, allow_nan=False))

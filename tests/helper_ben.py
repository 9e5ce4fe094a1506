"""Small ONNX files of BEN's bidding network's signature ([batch, steps, 193] in, [batch, steps, 40] out), causal
over the step axis: each step's outputs are a softmax of a random linear map of the running sum of the steps so
far. Any wrong step, seat or feature of the encoding changes them, and a row padded after its last step keeps it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bridgerl.agents.learned.ben import OUTPUTS, STEP_SIZE


def causal_weights(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, 1.0, (STEP_SIZE, OUTPUTS)).astype(np.float32)


def causal_reference(x: np.ndarray, seed: int = 0) -> np.ndarray:
    """What the file of ``seed`` computes, in numpy: float32[batch, steps, 40]."""
    z = np.cumsum(np.asarray(x, np.float64), axis=1) @ causal_weights(seed).astype(np.float64)
    z = np.exp(z - z.max(-1, keepdims=True))
    return (z / z.sum(-1, keepdims=True)).astype(np.float32)


def write_causal_onnx(folder: Path, seed: int = 0, features: int = STEP_SIZE, name: str = "bidder.onnx") -> Path:
    """``folder``/``name``: the causal stand-in of BEN's bidding network (``features`` other than 193: a file of
    another signature)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weights = causal_weights(seed)
    if features != STEP_SIZE:
        weights = np.zeros((features, OUTPUTS), np.float32)
    graph = helper.make_graph(
        [helper.make_node("CumSum", ["input", "axis"], ["running"]),
         helper.make_node("MatMul", ["running", "weights"], ["logits"]),
         helper.make_node("Softmax", ["logits"], ["Identity:0"], axis=-1)],
        "causal_stand_in",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "steps", features])],
        [helper.make_tensor_value_info("Identity:0", TensorProto.FLOAT, ["batch", "steps", OUTPUTS])],
        [numpy_helper.from_array(np.array(1, np.int64), "axis"), numpy_helper.from_array(weights, "weights")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    onnx.save(model, path)
    return path

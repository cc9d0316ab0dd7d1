"""Start a namer's training from a float ONNX namer (the shipped model, dequantised).

The training checkpoints of the earlier sessions are not kept; the shipped namer is. Its ONNX
export folded each batch normalisation into the convolution before it, so the weights load into
`build_model`'s layers with every BatchNorm2d set to the identity (mean 0, variance 1 - eps,
scale 1, shift = the folded bias). Those layers must then stay in eval mode while training
(`freeze_batch_norm`): batch statistics would undo the folding. At the start the torch model
reads exactly as the ONNX file does (tests/test_namer_from_onnx.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

LINEAR_LAYERS = ("inner.10", "inner.13")  # the two fully connected layers of build_model


def onnx_namer_weights(path: Path) -> tuple[tuple[int, ...], int, dict[str, np.ndarray]]:
    """(stage widths, crop size, torch state dict) of a float ONNX namer."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    if (
        len(convs) != 9
        or len(gemms) != 2
        or any(i not in inits for n in convs for i in n.input[1:])
    ):
        raise ValueError(f"{path} is not a float namer (dequantise an int8 one first)")
    dims = model.graph.input[0].type.tensor_type.shape.dim
    crop_size = int(dims[2].dim_value)
    state: dict[str, np.ndarray] = {}
    # build_model: stage i (Sequential index 0, 2, 4, 6) = conv 0, bn 1, relu, conv 3, bn 4, relu
    for k, node in enumerate(convs[:8]):
        stage, second = 2 * (k // 2), k % 2
        conv, bn = f"{stage}.{3 * second}", f"{stage}.{3 * second + 1}"
        weight, bias = inits[node.input[1]], inits[node.input[2]]
        state[f"{conv}.weight"] = weight
        state[f"{bn}.weight"] = np.ones_like(bias)
        state[f"{bn}.bias"] = bias
        state[f"{bn}.running_mean"] = np.zeros_like(bias)
        state[f"{bn}.running_var"] = np.full_like(bias, 1 - 1e-5)
        state[f"{bn}.num_batches_tracked"] = np.array(0, np.int64)
    squeeze = convs[8]
    state["7.weight"], state["7.bias"] = inits[squeeze.input[1]], inits[squeeze.input[2]]
    for name, node in zip(LINEAR_LAYERS, gemms, strict=True):
        layer = name.split(".")[1]
        state[f"{layer}.weight"], state[f"{layer}.bias"] = (
            inits[node.input[1]],
            inits[node.input[2]],
        )
    widths = tuple(int(state[f"{2 * s}.0.weight"].shape[0]) for s in range(4))
    return widths, crop_size, state


def load_into(model, state: dict[str, np.ndarray]) -> None:  # model: torch.nn.Module
    """Copy `onnx_namer_weights`' state dict into a `build_model` namer."""
    import torch

    model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})


def freeze_batch_norm(model) -> None:  # model: torch.nn.Module
    """Keep every BatchNorm2d on its stored statistics (eval mode) in a training model."""
    from torch import nn

    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()

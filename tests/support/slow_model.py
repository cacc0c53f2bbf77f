"""A model exactly as accurate as another and far slower (run in .venv-train, which has the onnx package):
`python tests/support/slow_model.py SRC DST`. The same graph, plus a chain of convolutions over the input whose
result is multiplied by zero and added to the logits — the outputs are the source's, the segmenter's time per hand
is many times larger. What the end-to-end loop releases as "passes the gate, regresses live": a good model too
heavy for the live slot's 4 ms per hand budget."""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

LAYERS = 12
CHANNELS = 32


def slow_copy(source: str, target: str) -> None:
    model = onnx.load(source)
    graph = model.graph
    given, answer = graph.input[0].name, graph.output[0].name
    for node in graph.node:
        for i, name in enumerate(node.output):
            if name == answer:
                node.output[i] = "logits_model"
    rng = np.random.default_rng(0)
    previous, channels = given, 3
    for k in range(LAYERS):
        weight = (rng.standard_normal((CHANNELS, channels, 3, 3)) * 0.05).astype(np.float32)
        graph.initializer.append(numpy_helper.from_array(weight, f"slow_w{k}"))
        graph.node.append(helper.make_node("Conv", [previous, f"slow_w{k}"], [f"slow_{k}"], pads=[1, 1, 1, 1]))
        previous, channels = f"slow_{k}", CHANNELS
    graph.initializer.append(numpy_helper.from_array(np.zeros((1,), np.float32), "slow_zero"))
    graph.node.append(helper.make_node("ReduceMean", [previous], ["slow_mean"], axes=[1, 2, 3], keepdims=1))
    graph.node.append(helper.make_node("Mul", ["slow_mean", "slow_zero"], ["slow_nothing"]))
    graph.node.append(helper.make_node("Add", ["logits_model", "slow_nothing"], [answer]))
    onnx.checker.check_model(model)
    onnx.save(model, target)


if __name__ == "__main__":
    slow_copy(sys.argv[1], sys.argv[2])

"""Small ONNX models written byte by byte, for tests of what the kiosk does with a model file it did not ship.

The kiosk's environment has onnxruntime but not the `onnx` package, so the protobuf is encoded here: a model is
one Conv (1×1 kernel, weights and bias given) from the segmenter's input `roi` (N, 3, 64, 64) to `logits`
(N, C, 64, 64). Zero weights and a negative bias answer "no nail" everywhere (a model that paints nothing); C = 2
answers in a shape the product cannot use. Field numbers are onnx.proto's (ModelProto, GraphProto, NodeProto,
TensorProto, ValueInfoProto, TypeProto).
"""

from __future__ import annotations

import struct
from pathlib import Path

_FLOAT = 1  # TensorProto.FLOAT


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, value: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(value)) + value


def _str(field: int, value: str) -> bytes:
    return _bytes(field, value.encode())


def _tensor(name: str, dims: list[int], values: list[float]) -> bytes:
    return (b"".join(_int(1, d) for d in dims) + _int(2, _FLOAT) + _str(8, name)
            + _bytes(9, struct.pack(f"<{len(values)}f", *values)))


def _value_info(name: str, dims: list[int | str]) -> bytes:
    shape = b"".join(_bytes(1, _str(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    tensor_type = _int(1, _FLOAT) + _bytes(2, shape)
    return _str(1, name) + _bytes(2, _bytes(1, tensor_type))


def conv_model(channels_out: int = 1, weight: float = 0.0, bias: float = -8.0) -> bytes:
    """A 1×1 Conv from `roi` (N, 3, 64, 64) to `logits` (N, channels_out, 64, 64): every weight `weight`, every
    bias `bias` (logits = bias + weight × sum of the channels)."""
    node = _str(1, "roi") + _str(1, "w") + _str(1, "b") + _str(2, "logits") + _str(3, "conv") + _str(4, "Conv")
    graph = (_bytes(1, node) + _str(2, "test_segmenter")
             + _bytes(5, _tensor("w", [channels_out, 3, 1, 1], [weight] * (channels_out * 3)))
             + _bytes(5, _tensor("b", [channels_out], [bias] * channels_out))
             + _bytes(11, _value_info("roi", ["N", 3, 64, 64]))
             + _bytes(12, _value_info("logits", ["N", channels_out, 64, 64])))
    opset = _str(1, "") + _int(2, 13)
    return _int(1, 8) + _str(2, "nailmirror-tests") + _bytes(7, graph) + _bytes(8, opset)


def write_model(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path

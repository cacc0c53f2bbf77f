"""The two things every ONNX model the kiosk ships needs before it runs: its file checked against the sha256 the
code pins (before onnxruntime ever parses it), and a session on one intra-op thread with spinning off (the kiosk's
cores belong to the video loop). The nail segmenter and the full-frame model name themselves, their fix and their
error type; the checks are the same."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any


def verified_file(path: Path, expected_sha256: str, *, what: str, fix: str,
                  error: type[Exception]) -> Path:
    """Return `path` if it holds the verified build, else raise `error` naming `what` and the `fix`."""
    if not path.is_file():
        raise error(f"{what} not found at {path}; {fix}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected_sha256:
        raise error(f"{what} at {path} is corrupt or not the verified build "
                    f"(sha256 {digest[:12]}…, expected {expected_sha256[:12]}…); {fix}")
    return path


def one_thread_session(path: Path, *, what: str, fix: str, error: type[Exception]) -> Any:
    """An onnxruntime.InferenceSession (which ships no type information) on the CPU, one thread, no spinning;
    a graph onnxruntime cannot read raises `error` naming `what` and the `fix`."""
    import onnxruntime  # type: ignore[import-untyped]

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.log_severity_level = 3
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for an unreadable graph
        raise error(f"{what} at {path} cannot be loaded ({exc}); {fix}") from exc

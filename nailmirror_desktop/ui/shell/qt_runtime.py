"""Work-arounds for the Qt binding that must run before any widget exists.

PySide6 6.12.0 (cp310-abi3 wheels) returns None, True and False without taking a reference on CPython 3.11
(its macros assume 3.12's immortal singletons): every `painter.setPen(...)`, `label.setText(...)`,
`QMutex.tryLock()` … leaves that object's reference count one lower (measured: 1000 calls → −1000). None
starts near 5,000 references, so a kiosk painting 30 frames a second dies within seconds with "Fatal Python
error: none_dealloc" (or bool_dealloc). From CPython 3.12 these objects are immortal and the bug is harmless.
Until the binding is fixed we give them reference counts so large that the leak can never reach zero (2**60
references last ~36 million years at a million calls a second). They are static objects that are never
freed, so an over-count has no other effect.
"""

from __future__ import annotations

import ctypes
import sys

_NONE_REFERENCES = 2**60


def protect_none_refcount() -> None:
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    for singleton in (None, True, False, NotImplemented, Ellipsis):
        refcount = ctypes.c_ssize_t.from_address(id(singleton))  # ob_refcnt is PyObject's first field
        if refcount.value < _NONE_REFERENCES // 2:
            refcount.value += _NONE_REFERENCES

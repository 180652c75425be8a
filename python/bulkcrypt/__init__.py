"""bulkcrypt: bulk symmetric encryption on GPUs, OpenCL devices and CPUs.

A binding of the bulkcrypt C API. The AEAD classes follow pyca/cryptography's
(``AESGCM(key).encrypt(nonce, data, associated_data)``), take any buffer (bytes,
bytearray, memoryview, NumPy) and GPU arrays (PyTorch, CuPy, Numba, anything with
``__dlpack__`` or ``__cuda_array_interface__``) without copying them, and release
the GIL while they work. See docs/python.md.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from . import _native
from ._native import Context, StreamContext
from .exceptions import (
    AlreadyFinalized,
    DeviceError,
    Error,
    InternalError,
    InvalidArgument,
    InvalidFile,
    InvalidKey,
    InvalidPadding,
    InvalidTag,
    OutOfMemory,
    UnsupportedAlgorithm,
)

__version__: str = _native.version()

__all__ = [
    "__version__",
    "AEAD",
    "AESGCM",
    "AlgorithmInfo",
    "ChaCha20Poly1305",
    "Cipher",
    "Context",
    "Device",
    "StreamContext",
    "XChaCha20Poly1305",
    "algorithms",
    "decrypt_file",
    "default_context",
    "devices",
    "encrypt_file",
    "set_default_context",
    # exceptions
    "AlreadyFinalized",
    "DeviceError",
    "Error",
    "InternalError",
    "InvalidArgument",
    "InvalidFile",
    "InvalidKey",
    "InvalidPadding",
    "InvalidTag",
    "OutOfMemory",
    "UnsupportedAlgorithm",
]

# ---- contexts -------------------------------------------------------------------

_default: Context | None = None
_default_lock = threading.Lock()


def default_context() -> Context:
    """The context keys use when none is given: ``Context(BULKCRYPT_DEVICE or "auto")``,
    opened on first use (the CPU and every GPU of the machine, or the CPU alone)."""
    global _default
    ctx = _default
    if ctx is None:
        with _default_lock:
            if _default is None:
                _default = Context(os.environ.get("BULKCRYPT_DEVICE", "auto"))
            ctx = _default
    return ctx


def set_default_context(context: Context | str) -> Context:
    """Replaces the default context (a Context, or a device string to open one).
    Keys made before keep the context they were made on."""
    global _default
    ctx = context if isinstance(context, Context) else Context(context)
    with _default_lock:
        _default = ctx
    return ctx


@dataclass(frozen=True)
class Device:
    """One device a Context can be opened on."""

    device: str  # the string Context takes: "cpu", "cuda:0", "opencl:1"
    name: str
    backend: str


def devices() -> list[Device]:
    """The CPU, every CUDA GPU and every OpenCL device this build can open, in the
    order ``bulkcrypt devices`` prints them. Each is opened once to ask it."""
    found = []
    for family in ("cpu", "cuda", "opencl"):
        for i in range(64):
            name = family if family == "cpu" else f"{family}:{i}"
            try:
                ctx = Context(name)
            except Error:
                break
            found.append(Device(name, ctx.device_name, ctx.backend))
            del ctx
            if family == "cpu":
                break
    return found


@dataclass(frozen=True)
class AlgorithmInfo:
    """The catalogue's entry for one algorithm (sizes in bytes)."""

    name: str
    kind: str  # "block" (ECB, CBC), "stream" (CTR, stream ciphers), "xts", "aead"
    key_size: int
    key_sizes: tuple[int, int]
    iv_size: int
    iv_sizes: tuple[int, int]
    tag_size: int
    tag_sizes: tuple[int, int]
    block_size: int
    max_message_size: int


def algorithms() -> list[AlgorithmInfo]:
    """Every algorithm of this build's catalogue."""
    return [AlgorithmInfo(**_native.algorithm_info(n)) for n in _native.algorithm_names()]


def _algorithm(name: str) -> AlgorithmInfo:
    return AlgorithmInfo(**_native.algorithm_info(name))


# ---- keyed objects ----------------------------------------------------------------


class AEAD(_native._Aead):
    """An AEAD key: ``AEAD("aes-256-gcm", key, context=None, tag_length=None)``.

    ``encrypt(nonce, data, associated_data)`` returns ciphertext || tag;
    ``decrypt`` raises :class:`InvalidTag` and releases nothing on a mismatch. Safe to
    share between threads.
    """

    @staticmethod
    def generate_key(algorithm: str) -> bytes:
        """A fresh random key of the algorithm's length (os.urandom)."""
        return os.urandom(_algorithm(algorithm).key_size)


class AESGCM(AEAD):
    """AES-GCM with a 128-, 192- or 256-bit key, as pyca/cryptography's AESGCM."""

    def __init__(self, key: bytes, context: Context | None = None) -> None:
        bits = memoryview(key).nbytes * 8
        if bits not in (128, 192, 256):
            raise InvalidArgument("AESGCM key must be 128, 192, or 256 bits.", "BC_ERR_KEY_SIZE")
        super().__init__(f"aes-{bits}-gcm", key, context)

    @classmethod
    def generate_key(cls, bit_length: int) -> bytes:  # type: ignore[override]
        if bit_length not in (128, 192, 256):
            raise InvalidArgument("bit_length must be 128, 192, or 256", "BC_ERR_KEY_SIZE")
        return os.urandom(bit_length // 8)


class ChaCha20Poly1305(AEAD):
    """ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag."""

    def __init__(self, key: bytes, context: Context | None = None) -> None:
        super().__init__("chacha20-poly1305", key, context)

    @classmethod
    def generate_key(cls) -> bytes:  # type: ignore[override]
        return os.urandom(32)


class XChaCha20Poly1305(AEAD):
    """XChaCha20-Poly1305: 32-byte key, 24-byte nonce (random nonces are safe), 16-byte tag."""

    def __init__(self, key: bytes, context: Context | None = None) -> None:
        super().__init__("xchacha20-poly1305", key, context)

    @classmethod
    def generate_key(cls) -> bytes:  # type: ignore[override]
        return os.urandom(32)


class Cipher(_native._Cipher):
    """A raw-mode key: ECB, CBC, CTR, XTS and the stream ciphers, e.g.
    ``Cipher("aes-128-ctr", key).encrypt(iv, data, offset=0)``.

    Raw modes do not authenticate: prefer an AEAD unless a format demands one of these.
    """

    @staticmethod
    def generate_key(algorithm: str) -> bytes:
        """A fresh random key of the algorithm's (default) length."""
        return os.urandom(_algorithm(algorithm).key_size)


from .files import FileResult, decrypt_file, encrypt_file  # noqa: E402

__all__ += ["FileResult"]

"""Arrays that are not plain host buffers: GPU memory through DLPack or
``__cuda_array_interface__``, and host arrays of other libraries (PyTorch CPU tensors).

The native one-shot calls handle buffer-protocol objects themselves and send the rest
here. Nothing here copies data: a pointer is read from the producer, checked (memory
kind, device, contiguity, writability) and handed to the C API, ordered on the
caller's stream.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

from . import _native
from .exceptions import InvalidArgument, UnsupportedAlgorithm

# DLPack device types (DLDeviceType)
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
# The C API's bc_memory
_HOST, _DEVICE = 0, 1
# CUDA's special stream handles in DLPack's and the array interface's numbering
_LEGACY_DEFAULT = 1

_OPS = ("encrypt", "decrypt", "encrypt", "decrypt")  # seal, open, encrypt, decrypt


@dataclass
class _View:
    ptr: int
    nbytes: int
    device: int  # CUDA ordinal; -1 for host memory
    keep: Any  # what must stay alive while the pointer is used (a capsule, the array)
    obj: Any

    @property
    def memory(self) -> int:
        return _HOST if self.device < 0 else _DEVICE

    def where(self) -> str:
        return "host memory" if self.device < 0 else f"CUDA memory on device {self.device}"


def _framework(obj: Any) -> str:
    return type(obj).__module__.split(".", 1)[0]


def stream_handle(stream: Any) -> int:
    """A CUDA stream handle from an int or a stream object of PyTorch, CuPy, Numba or
    anything with ``__cuda_stream__``."""
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    handle = getattr(stream, "handle", None)  # numba.cuda.Stream: a ctypes pointer
    if handle is not None:
        return int(getattr(handle, "value", handle) or 0)
    raise InvalidArgument(f"stream: not a CUDA stream ({type(stream).__name__})", "BC_ERR_INVALID_ARGUMENT")


def _current_stream(obj: Any, device: int) -> int:
    """The caller's current stream in the array's own library; the legacy default
    stream (0) for a library without one."""
    fw = _framework(obj)
    if fw == "torch":
        import torch

        return int(torch.cuda.current_stream(device).cuda_stream)
    if fw == "cupy":
        import cupy

        with cupy.cuda.Device(device):
            return int(cupy.cuda.get_current_stream().ptr)
    return 0


def _dlpack_view(obj: Any, writable: bool, what: str, stream: int | None) -> _View:
    dev_type, dev_id = obj.__dlpack_device__()
    kwargs: dict[str, Any] = {}
    if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        if stream is None:
            stream = _current_stream(obj, dev_id)
        # DLPack numbers the legacy default stream 1 (0 is ambiguous there).
        kwargs["stream"] = stream if stream not in (0, None) else _LEGACY_DEFAULT
    elif dev_type not in (_DL_CPU, _DL_CUDA_HOST):
        raise UnsupportedAlgorithm(
            f"{what}: DLPack device type {dev_type} is not supported (host memory and CUDA are)",
            "BC_ERR_NOT_SUPPORTED",
        )
    try:
        try:
            capsule = obj.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:  # a producer of DLPack before 1.0
            capsule = obj.__dlpack__(**kwargs)
    except (BufferError, ValueError, RuntimeError) as e:  # the producer refused to export
        raise InvalidArgument(f"{what}: {type(obj).__name__} cannot be exported ({e})",
                              "BC_ERR_INVALID_ARGUMENT") from None
    ptr, nbytes, _, _, contiguous, readonly = _native._read_dlpack(capsule)
    if not contiguous:
        raise InvalidArgument(
            f"{what} is not C-contiguous; bulkcrypt never copies behind your back (call .contiguous())",
            "BC_ERR_INVALID_ARGUMENT",
        )
    if writable and readonly:
        raise InvalidArgument(f"{what} is read-only", "BC_ERR_INVALID_ARGUMENT")
    device = dev_id if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED) else -1
    return _View(ptr, nbytes, device, capsule, obj)


def _cai_view(obj: Any, writable: bool, what: str) -> tuple[_View, int | None]:
    cai = obj.__cuda_array_interface__
    ptr, readonly = cai["data"]
    shape = tuple(cai["shape"])
    itemsize = int(cai["typestr"][2:])
    strides = cai.get("strides")
    if strides is not None:
        expected = itemsize
        for extent, stride in zip(reversed(shape), reversed(strides)):
            if extent != 1 and stride != expected:
                raise InvalidArgument(
                    f"{what} is not C-contiguous; bulkcrypt never copies behind your back",
                    "BC_ERR_INVALID_ARGUMENT",
                )
            expected *= extent
    if writable and readonly:
        raise InvalidArgument(f"{what} is read-only", "BC_ERR_INVALID_ARGUMENT")
    nbytes = math.prod(shape) * itemsize
    device = -1
    if nbytes:
        kind, ordinal = _native._cuda_pointer(ptr)
        if kind == 1:  # page-locked host memory exported as a device array
            device = -1
        elif kind in (2, 4):
            device = ordinal
        else:
            raise InvalidArgument(f"{what}: the CUDA driver does not know its pointer", "BC_ERR_INVALID_ARGUMENT")
    return _View(ptr or 0, nbytes, device, obj, obj), cai.get("stream")


def _not_contiguous(what: str) -> InvalidArgument:
    return InvalidArgument(f"{what} is not C-contiguous; bulkcrypt never copies behind your back "
                           "(.contiguous() or ascontiguousarray make a copy)", "BC_ERR_INVALID_ARGUMENT")


def _torch_view(t: Any, what: str, stream: int | None) -> tuple[_View, int | None]:
    """A PyTorch tensor read from its attributes: what DLPack would give, without a
    capsule a call (tens of microseconds on a GPU tensor). Its producer is the current
    stream of the tensor's device, so a call on another stream is ordered after it."""
    if not t.is_contiguous():
        raise _not_contiguous(what)
    nbytes = t.numel() * t.element_size()
    if t.device.type == "cpu":
        return _View(t.data_ptr(), nbytes, -1, t, t), None
    if t.device.type != "cuda":
        raise UnsupportedAlgorithm(f"{what}: PyTorch device {t.device} is not supported (cpu and cuda are)",
                                   "BC_ERR_NOT_SUPPORTED")
    device = t.device.index if t.device.index is not None else 0
    producer = None
    if stream is not None:
        import torch

        producer = int(torch.cuda.current_stream(device).cuda_stream)
    return _View(t.data_ptr(), nbytes, device, t, t), producer


def _cupy_view(a: Any, what: str, stream: int | None) -> tuple[_View, int | None]:
    """A CuPy array read from its attributes (as _torch_view)."""
    if not a.flags.c_contiguous:
        raise _not_contiguous(what)
    device = a.device.id
    producer = None
    if stream is not None:
        producer = _current_stream(a, device)
    return _View(a.data.ptr, a.nbytes, device, a, a), producer


def view(obj: Any, writable: bool, what: str, stream: int | None) -> tuple[_View, int | None]:
    """The memory of an array, and the stream its producer last wrote it on where that
    is not the call's own (None: already ordered)."""
    fw = _framework(obj)
    if fw == "torch" and type(obj).__name__ in ("Tensor", "Parameter"):
        return _torch_view(obj, what, stream)
    if fw == "cupy" and type(obj).__name__ == "ndarray":
        return _cupy_view(obj, what, stream)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _dlpack_view(obj, writable, what, stream), None
    if hasattr(obj, "__cuda_array_interface__"):
        return _cai_view(obj, writable, what)
    raise InvalidArgument(
        f"{what} must be a bytes-like object, or an array with __dlpack__ or "
        f"__cuda_array_interface__, not {type(obj).__name__}",
        "BC_ERR_INVALID_ARGUMENT",
    )


def host_empty(like: Any, nbytes: int, same_shape: bool) -> Any:
    """A new host output of the input's kind: NumPy for NumPy (None: bytes)."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(like, np.ndarray):
        if same_shape:
            return np.empty(like.shape, dtype=like.dtype)
        return np.empty(nbytes, dtype=np.uint8)
    return None


def _empty_like(obj: Any, src: _View, nbytes: int, same_shape: bool) -> Any:
    fw = _framework(obj)
    if fw == "torch":
        import torch

        if same_shape:
            return torch.empty(obj.shape, dtype=obj.dtype, device=obj.device)
        return torch.empty(nbytes, dtype=torch.uint8, device=obj.device)
    if fw == "cupy":
        import cupy

        with cupy.cuda.Device(src.device):
            if same_shape:
                return cupy.empty(obj.shape, dtype=obj.dtype)
            return cupy.empty(nbytes, dtype=cupy.uint8)
    if fw == "numba":
        from numba import cuda

        if same_shape:
            return cuda.device_array(obj.shape, dtype=obj.dtype)
        return cuda.device_array(nbytes, dtype="uint8")
    raise InvalidArgument(
        f"bulkcrypt cannot allocate an output like a {type(obj).__name__}; "
        "pass one to encrypt_into / decrypt_into",
        "BC_ERR_INVALID_ARGUMENT",
    )


def _check_context(key: Any, v: _View) -> None:
    if v.memory == _HOST:
        return
    ctx = key.context
    backend = ctx.backend
    if backend in ("cpu", "opencl"):
        raise UnsupportedAlgorithm(
            f"this key's context runs on '{ctx.device}' ({backend}), which cannot read CUDA memory; "
            "make the key on Context('cuda:N'), 'cuda:all', 'hybrid' or 'auto' on a GPU machine",
            "BC_ERR_NOT_SUPPORTED",
        )
    if backend == "cuda" and ctx.device.startswith("cuda:"):
        ordinal = int(ctx.device.split(":", 1)[1])
        if ordinal != v.device:
            raise InvalidArgument(
                f"the data is on CUDA device {v.device} but this key's context runs on {ctx.device}",
                "BC_ERR_INVALID_ARGUMENT",
            )


def _any_view(obj: Any, writable: bool, what: str, stream: int | None) -> tuple[_View, int | None]:
    fw = _framework(obj)
    if fw not in ("torch", "cupy") and _is_buffer(obj):
        return _host_view(obj, writable, what), None
    return view(obj, writable, what, stream)


def _order_after(v: _View, producer: int | None, s: int) -> None:
    """Orders the call's stream s after the stream the array was last written on."""
    if v.memory == _DEVICE and producer is not None and producer != s and not (producer == _LEGACY_DEFAULT and s == 0):
        _native._cuda_stream_wait(s, producer, v.device)


def call(key: Any, op: int, iv: Any, data: Any, aad: Any, out: Any, stream: Any, offset: int,
         data_unit_size: int, padding: bool, tag_len: int) -> Any:
    """A one-shot call whose data (or output) is not a host buffer."""
    wanted = None if stream is None else stream_handle(stream)
    src, producer = _any_view(data, False, "data", wanted)
    s = wanted
    if s is None:
        s = _current_stream(data, src.device) if src.memory == _DEVICE else 0
    _order_after(src, producer, s)
    _check_context(key, src)
    seal, open_ = op == 0, op == 1
    if open_ and src.nbytes < tag_len:
        raise InvalidArgument(f"data is shorter than the {tag_len}-byte tag", "BC_ERR_INPUT_LENGTH")
    if seal:
        cap = src.nbytes + tag_len
    elif open_:
        cap = src.nbytes - tag_len
    else:
        cap = src.nbytes + (key.block_size if padding and op == 2 else 0)
    into = out is not None
    if into:
        dst, producer = _any_view(out, True, "buf", wanted)
        _order_after(dst, producer, s)
    else:
        out = _empty_like(data, src, cap, op >= 2 and not padding)
        dst, _ = view(out, True, "output", None)
    if dst.memory != src.memory or (src.memory == _DEVICE and dst.device != src.device):
        raise InvalidArgument(
            f"data is in {src.where()} but the output is in {dst.where()}; "
            "bulkcrypt never copies between them",
            "BC_ERR_INVALID_ARGUMENT",
        )
    n = key._call_pointers(op, iv, aad, src.ptr, src.nbytes, dst.ptr, dst.nbytes, src.memory, s or 0,
                           offset, data_unit_size, padding, tag_len, src.device)
    if into:
        return n
    return out if n == cap else out[:n]


def _is_buffer(obj: Any) -> bool:
    if hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack_device__"):
        if not (hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__")):
            return False  # GPU arrays may define a buffer hook that only refuses
    try:
        memoryview(obj)
    except Exception:
        return False
    return True


def _host_view(obj: Any, writable: bool, what: str) -> _View:
    mv = memoryview(obj)
    if "O" in mv.format:
        raise InvalidArgument(f"{what} holds Python objects (format '{mv.format}'), not bytes",
                              "BC_ERR_INVALID_ARGUMENT")
    if writable and mv.readonly:
        raise InvalidArgument(f"{what} is read-only", "BC_ERR_INVALID_ARGUMENT")
    if not mv.c_contiguous:
        raise InvalidArgument(f"{what} is not C-contiguous", "BC_ERR_INVALID_ARGUMENT")
    flat = mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv
    return _View(_native._buffer_address(flat), flat.nbytes, -1, flat, obj)

"""GPU arrays: PyTorch and CuPy tensors in CUDA memory, through DLPack and through
__cuda_array_interface__, against the same calls on host bytes (the CPU backend).

Needs a CUDA device and PyTorch or CuPy; skipped with the reason otherwise. The rate
that shows no host copy happened is in the benchmark (bench/python_bench.py): a
unit test asserts pointers, not timings.
"""

from __future__ import annotations

import os
import random

import pytest

import bulkcrypt

try:
    import torch  # noqa: F811
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None


def _cuda_context():
    if torch is None and cupy is None:
        pytest.skip("neither PyTorch nor CuPy is installed")
    if torch is not None and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    try:
        return bulkcrypt.Context("cuda:0")
    except bulkcrypt.DeviceError as e:
        pytest.skip(f"no CUDA device for bulkcrypt ({e})")


@pytest.fixture(scope="module")
def ctx():
    return _cuda_context()


@pytest.fixture(scope="module")
def cpu():
    return bulkcrypt.Context("cpu")


def need_torch():
    if torch is None:
        pytest.skip("PyTorch is not installed")


def need_cupy():
    if cupy is None:
        pytest.skip("CuPy is not installed")


SIZES = [0, 1, 16, 4095, 4096, 65537, 1 << 20, (8 << 20) + 3]
AEADS = ["aes-128-gcm", "aes-256-gcm", "chacha20-poly1305", "xchacha20-poly1305"]


def keys(alg: str, seed: int):
    rng = random.Random(seed)
    info = bulkcrypt._native.algorithm_info(alg)
    return rng.randbytes(info["key_size"]), rng.randbytes(info["iv_size"]), rng.randbytes(rng.randrange(0, 40))


@pytest.mark.parametrize("alg", AEADS)
@pytest.mark.parametrize("size", SIZES)
def test_torch_aead_round_trip_matches_cpu(ctx, cpu, alg, size):
    need_torch()
    key, nonce, aad = keys(alg, size)
    host = os.urandom(size)
    t = torch.frombuffer(bytearray(host), dtype=torch.uint8).cuda() if size else torch.empty(0, dtype=torch.uint8,
                                                                                              device="cuda")
    gpu = bulkcrypt.AEAD(alg, key, ctx)
    sealed = gpu.encrypt(nonce, t, aad)
    assert isinstance(sealed, torch.Tensor) and sealed.is_cuda and sealed.dtype == torch.uint8
    expected = bulkcrypt.AEAD(alg, key, cpu).encrypt(nonce, host, aad)
    assert bytes(sealed.cpu().numpy()) == expected
    opened = gpu.decrypt(nonce, sealed, aad)
    assert torch.equal(opened, t)


def test_torch_in_place_keeps_the_pointer_and_tamper_zeroes(ctx, cpu):
    need_torch()
    key, nonce, aad = keys("aes-256-gcm", 7)
    n = 3 << 20
    buf = torch.randint(0, 256, (n + 16,), dtype=torch.uint8, device="cuda")
    plain = buf[:n].clone()
    ptr = buf.data_ptr()
    a = bulkcrypt.AESGCM(key, ctx)
    assert a.encrypt_into(nonce, buf[:n], aad, buf) == n + 16
    assert buf.data_ptr() == ptr
    assert bytes(buf.cpu().numpy()) == bulkcrypt.AESGCM(key, cpu).encrypt(nonce, bytes(plain.cpu().numpy()), aad)
    buf[5] ^= 1
    out = torch.full((n,), 0xAB, dtype=torch.uint8, device="cuda")
    with pytest.raises(bulkcrypt.InvalidTag):
        a.decrypt_into(nonce, buf, aad, out)
    assert int(out.count_nonzero()) == 0, "a failed open left bytes in the output"
    buf[5] ^= 1
    assert a.decrypt_into(nonce, buf, aad, buf) == n
    assert torch.equal(buf[:n], plain)


@pytest.mark.parametrize("alg", ["aes-128-ctr", "aes-256-xts", "chacha20", "aes-256-cbc"])
def test_torch_raw_modes_keep_shape_and_dtype(ctx, cpu, alg):
    need_torch()
    info = bulkcrypt._native.algorithm_info(alg)
    key, iv = os.urandom(info["key_size"]), os.urandom(info["iv_size"])
    x = torch.randn(256, 1024, device="cuda")  # 1 MiB of float32: whole blocks and data units
    c = bulkcrypt.Cipher(alg, key, ctx)
    kw = {"data_unit_size": 4096} if info["kind"] == "xts" else {}
    y = c.encrypt(iv, x, **kw)
    assert y.shape == x.shape and y.dtype == x.dtype and y.is_cuda
    host = bytes(x.cpu().numpy().tobytes())
    assert bytes(y.cpu().numpy().tobytes()) == bulkcrypt.Cipher(alg, key, cpu).encrypt(iv, host, **kw)
    assert torch.equal(c.decrypt(iv, y, **kw), x)


def test_torch_ctr_offset_matches_cpu(ctx, cpu):
    need_torch()
    key, iv = os.urandom(16), os.urandom(16)
    data = os.urandom(100_000)
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8).cuda()
    got = bulkcrypt.Cipher("aes-128-ctr", key, ctx).encrypt(iv, t, offset=12345)
    assert bytes(got.cpu().numpy()) == bulkcrypt.Cipher("aes-128-ctr", key, cpu).encrypt(iv, data, offset=12345)


def test_torch_on_a_side_stream(ctx, cpu):
    """Data produced on a non-default stream and sealed there: the call is ordered after
    the producing kernel without a device-wide synchronisation."""
    need_torch()
    key, nonce, _ = keys("chacha20-poly1305", 3)
    a = bulkcrypt.ChaCha20Poly1305(key, ctx)
    s = torch.cuda.Stream()
    n = 16 << 20
    with torch.cuda.stream(s):
        x = torch.arange(n, dtype=torch.int64, device="cuda").to(torch.uint8)  # queued on s
        sealed = a.encrypt(nonce, x, None)  # current stream s: after the producer
        out = torch.empty(n, dtype=torch.uint8, device="cuda")
        a.decrypt_into(nonce, sealed, None, out, stream=s)
    s.synchronize()
    expected = bulkcrypt.ChaCha20Poly1305(key, cpu).encrypt(nonce, bytes(x.cpu().numpy()), None)
    assert bytes(sealed.cpu().numpy()) == expected
    assert torch.equal(out, x)


def test_cupy_round_trip_and_in_place(ctx, cpu):
    need_cupy()
    key, nonce, aad = keys("aes-256-gcm", 11)
    n = (5 << 20) + 7
    x = cupy.random.randint(0, 256, n, dtype=cupy.uint8)
    a = bulkcrypt.AESGCM(key, ctx)
    sealed = a.encrypt(nonce, x, aad)
    assert isinstance(sealed, cupy.ndarray)
    assert bytes(cupy.asnumpy(sealed)) == bulkcrypt.AESGCM(key, cpu).encrypt(nonce, bytes(cupy.asnumpy(x)), aad)
    buf = cupy.empty(n + 16, dtype=cupy.uint8)
    buf[:n] = x
    ptr = buf.data.ptr
    a.encrypt_into(nonce, buf[:n], aad, buf)
    assert buf.data.ptr == ptr and bool((buf == sealed).all())
    assert a.decrypt_into(nonce, buf, aad, buf) == n
    assert bool((buf[:n] == x).all())


class _InterfaceOnly:
    """Exposes another array's memory through __cuda_array_interface__ alone, as Numba's
    device arrays do, so the interface path is tested whatever else is installed."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_cuda_array_interface_path(ctx, cpu):
    if cupy is None and torch is None:
        pytest.skip("neither PyTorch nor CuPy is installed")
    key, nonce, aad = keys("chacha20-poly1305", 5)
    n = 1 << 20
    if cupy is not None:
        x = cupy.random.randint(0, 256, n, dtype=cupy.uint8)
        out = cupy.zeros(n + 16, dtype=cupy.uint8)
        to_host = cupy.asnumpy
    else:
        x = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
        out = torch.zeros(n + 16, dtype=torch.uint8, device="cuda")
        to_host = lambda t: t.cpu().numpy()  # noqa: E731
    a = bulkcrypt.ChaCha20Poly1305(key, ctx)
    assert a.encrypt_into(nonce, _InterfaceOnly(x), aad, _InterfaceOnly(out)) == n + 16
    assert bytes(to_host(out)) == bulkcrypt.ChaCha20Poly1305(key, cpu).encrypt(nonce, bytes(to_host(x)), aad)
    with pytest.raises(bulkcrypt.InvalidArgument, match="cannot allocate"):
        a.encrypt(nonce, _InterfaceOnly(x), aad)


def test_numba_device_arrays(ctx, cpu):
    numba_cuda = pytest.importorskip("numba.cuda", reason="Numba is not installed")
    import numpy as np

    key, nonce, _ = keys("aes-128-gcm", 9)
    host = np.frombuffer(os.urandom(1 << 20), dtype=np.uint8)
    d = numba_cuda.to_device(host)
    a = bulkcrypt.AESGCM(key, ctx)
    sealed = a.encrypt(nonce, d, None)
    assert bytes(sealed.copy_to_host()) == bulkcrypt.AESGCM(key, cpu).encrypt(nonce, host.tobytes(), None)


def test_refusals_are_clear(ctx, cpu):
    need_torch()
    key, nonce, _ = keys("aes-256-gcm", 1)
    t = torch.zeros(4096, dtype=torch.uint8, device="cuda")
    with pytest.raises(bulkcrypt.UnsupportedAlgorithm, match="cannot read CUDA memory"):
        bulkcrypt.AESGCM(key, cpu).encrypt(nonce, t, None)
    with pytest.raises(bulkcrypt.InvalidArgument, match="not C-contiguous"):
        bulkcrypt.AESGCM(key, ctx).encrypt(nonce, t[::2], None)
    with pytest.raises(bulkcrypt.InvalidArgument, match="never copies"):
        bulkcrypt.AESGCM(key, ctx).encrypt_into(nonce, t, None, bytearray(4096 + 16))
    with pytest.raises(bulkcrypt.InvalidArgument, match="host memory"):
        bulkcrypt.AESGCM(key, ctx).encrypt(nonce, t, t[:16])
    if torch.cuda.device_count() > 1:
        t1 = torch.zeros(4096, dtype=torch.uint8, device="cuda:1")
        with pytest.raises(bulkcrypt.InvalidArgument, match="device 1"):
            bulkcrypt.AESGCM(key, ctx).encrypt(nonce, t1, None)


def test_auto_context_takes_gpu_tensors(cpu):
    """The default kind of context ("auto": the CPU and every GPU) routes device
    pointers to the GPU that owns them."""
    need_torch()
    _cuda_context()
    ctx = bulkcrypt.Context("auto")
    key, nonce, _ = keys("aes-256-gcm", 2)
    x = torch.randint(0, 256, (1 << 20,), dtype=torch.uint8, device="cuda")
    sealed = bulkcrypt.AESGCM(key, ctx).encrypt(nonce, x, None)
    assert bytes(sealed.cpu().numpy()) == bulkcrypt.AESGCM(key, cpu).encrypt(nonce, bytes(x.cpu().numpy()), None)


class _DlpackOnly:
    """GPU memory reachable through DLPack alone (JAX and others), recording what the
    package asked of the producer."""

    def __init__(self, arr):
        self._arr = arr
        self.calls = []

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self._arr.__dlpack__(**kwargs)


def test_dlpack_path_asks_for_the_call_stream(ctx, cpu):
    need_torch()
    key, nonce, aad = keys("aes-256-gcm", 13)
    n = 2 << 20
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
        out = torch.empty(n + 16, dtype=torch.uint8, device="cuda")
    src, dst = _DlpackOnly(x), _DlpackOnly(out)
    a = bulkcrypt.AESGCM(key, ctx)
    assert a.encrypt_into(nonce, src, aad, dst, stream=s) == n + 16
    assert src.calls and src.calls[0].get("stream") == s.cuda_stream, src.calls
    s.synchronize()
    assert bytes(out.cpu().numpy()) == bulkcrypt.AESGCM(key, cpu).encrypt(nonce, bytes(x.cpu().numpy()), aad)
    # on the default stream the producer is asked for the legacy default stream (1), never 0
    y = _DlpackOnly(x)
    a.encrypt_into(nonce, y, aad, _DlpackOnly(out))
    assert y.calls[0].get("stream") not in (None, 0), y.calls

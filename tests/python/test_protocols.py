"""The array protocols on host memory, where CI can run them: DLPack producers that are
not buffer exporters (a wrapper exposing only __dlpack__ over a NumPy array), and what
is refused. test_gpu.py runs the same protocols on GPU memory."""

from __future__ import annotations

import os

import pytest

import bulkcrypt

np = pytest.importorskip("numpy", reason="NumPy is not installed")


class DlpackOnly:
    """Memory reachable through DLPack alone, as JAX arrays or other producers are."""

    def __init__(self, arr, versioned=True):
        self._arr = arr
        self._versioned = versioned
        self.calls = []

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        if not self._versioned:
            if "max_version" in kwargs:
                raise TypeError("a producer of DLPack 0.8 takes no max_version")
            return self._arr.__dlpack__()
        return self._arr.__dlpack__(**kwargs)


@pytest.fixture(scope="module")
def cpu():
    return bulkcrypt.Context("cpu")


@pytest.mark.parametrize("versioned", [True, False], ids=["dlpack-1.0", "dlpack-0.8"])
def test_dlpack_host_arrays_round_trip(cpu, versioned):
    key, nonce = os.urandom(32), os.urandom(12)
    x = np.random.default_rng(1).integers(0, 256, 100_003, dtype=np.uint8)
    out = np.zeros(x.nbytes + 16, dtype=np.uint8)
    a = bulkcrypt.ChaCha20Poly1305(key, cpu)
    src, dst = DlpackOnly(x, versioned), DlpackOnly(out, versioned)
    assert a.encrypt_into(nonce, src, b"ad", dst) == x.nbytes + 16
    assert out.tobytes() == a.encrypt(nonce, x.tobytes(), b"ad")
    assert src.calls, "the input was not read through DLPack"
    assert "stream" not in src.calls[0], "a stream was asked of host memory"
    back = np.zeros_like(x)
    assert a.decrypt_into(nonce, DlpackOnly(out, versioned), b"ad", DlpackOnly(back, versioned)) == x.nbytes
    assert np.array_equal(back, x)


def test_dlpack_refusals(cpu):
    a = bulkcrypt.AESGCM(os.urandom(16), cpu)
    x = np.arange(4096, dtype=np.uint8)
    with pytest.raises(bulkcrypt.InvalidArgument, match="not C-contiguous"):
        a.encrypt_into(bytes(12), DlpackOnly(x.reshape(64, 64).T), None, np.empty(4112, np.uint8))
    with pytest.raises(bulkcrypt.InvalidArgument, match="cannot allocate"):
        a.encrypt(bytes(12), DlpackOnly(x), None)
    ro = np.empty(4112, np.uint8)
    ro.flags.writeable = False
    with pytest.raises(bulkcrypt.InvalidArgument, match="read-only"):
        a.encrypt_into(bytes(12), DlpackOnly(x), None, DlpackOnly(ro))
    with pytest.raises(bulkcrypt.InvalidArgument, match="too small|smaller|holds"):
        a.encrypt_into(bytes(12), DlpackOnly(x), None, DlpackOnly(np.empty(4096, np.uint8)))


def test_raw_mode_through_dlpack_matches_buffers(cpu):
    key, iv = os.urandom(16), os.urandom(16)
    x = np.random.default_rng(2).random((64, 33))  # float64, not whole AES blocks in a row
    c = bulkcrypt.Cipher("aes-128-ctr", key, cpu)
    out = np.empty_like(x)
    assert c.encrypt_into(iv, DlpackOnly(x), DlpackOnly(out), offset=7) == x.nbytes
    assert out.tobytes() == c.encrypt(iv, x.tobytes(), offset=7)

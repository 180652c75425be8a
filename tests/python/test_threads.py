"""Threads: keys shared by many Python threads (checked against pyca/cryptography),
the GIL released during long calls (shown functionally: another thread keeps running),
a StreamContext refusing a second thread, and first use from several threads at once.

Timing is not used as evidence (two cores, shared machines): the GIL test counts what
another Python thread manages to do during the call, against a control call that is
known to hold the GIL.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher as PycaCipher
from cryptography.hazmat.primitives.ciphers import algorithms as pyca_alg
from cryptography.hazmat.primitives.ciphers import modes as pyca_modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaAESGCM
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as PycaChaChaPoly

import bulkcrypt
from bulkcrypt import AESGCM, AlreadyFinalized, ChaCha20Poly1305, Cipher, Context, InvalidTag

SEED = 0x7EAD_2024
THREADS = 12


def make_rng(*parts: object) -> tuple[str, random.Random]:
    seed = ":".join([str(SEED), *map(str, parts)])
    return seed, random.Random(seed)


def run_threads(target, n: int, timeout: float = 120) -> list[str]:
    """Runs target(i, barrier) in n threads started together; returns their failures."""
    barrier = threading.Barrier(n)
    errors: list[str] = []

    def wrap(i: int) -> None:
        try:
            target(i, barrier)
        except Exception as e:  # reported by the main thread, with the thread's seed
            errors.append(f"thread {i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=wrap, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"threads still running after {timeout} s: {stuck}"
    return errors


@pytest.fixture(scope="module")
def cpu() -> Context:
    return Context("cpu")


# ---- one key, many threads -------------------------------------------------------------


@pytest.mark.parametrize("alg", ["aes-256-gcm", "chacha20-poly1305"])
def test_shared_aead_key_agrees_with_pyca(cpu, alg):
    key = make_rng("key", alg)[1].randbytes(32)
    ours = (AESGCM if alg == "aes-256-gcm" else ChaCha20Poly1305)(key, cpu)
    peer = (PycaAESGCM if alg == "aes-256-gcm" else PycaChaChaPoly)(key)

    def work(i: int, barrier: threading.Barrier) -> None:
        seed, rng = make_rng("shared", alg, i)
        scratch = bytearray(300_000)
        barrier.wait()
        for j in range(30):
            # Some under the GIL threshold (4096), most above it so threads overlap.
            size = rng.choice([0, 1, 100, 4095, 4096, rng.randrange(4097, 60_000), rng.randrange(60_000, 280_000)])
            nonce, data = rng.randbytes(12), rng.randbytes(size)
            aad = rng.choice([None, b"", rng.randbytes(rng.randrange(1, 64))])
            sealed = ours.encrypt(nonce, data, aad)
            if sealed != peer.encrypt(nonce, data, aad):
                raise AssertionError(f"seal differs from pyca, message {j}, {size} bytes (seed={seed!r})")
            theirs = peer.encrypt(nonce, data, aad)
            n = ours.decrypt_into(nonce, theirs, aad, scratch)
            if n != size or scratch[:n] != data:
                raise AssertionError(f"open of pyca's differs, message {j} (seed={seed!r})")
            if j % 7 == 0 and size:
                bad = bytearray(sealed)
                bad[rng.randrange(len(bad))] ^= 1
                try:
                    ours.decrypt(nonce, bytes(bad), aad)
                    raise AssertionError(f"tampered message {j} opened (seed={seed!r})")
                except InvalidTag:
                    pass

    errors = run_threads(work, THREADS)
    assert not errors, "\n".join(errors)


def test_shared_cipher_key_parallel_ctr_segments(cpu):
    # Threads encrypt disjoint segments of one message at their offsets: together they
    # must equal pyca's CTR over the whole (seeking is what makes this safe).
    seed, rng = make_rng("ctr-segments")
    key, iv = rng.randbytes(16), rng.randbytes(16)
    data = rng.randbytes(3_000_017)
    c = Cipher("aes-128-ctr", key, cpu)
    cuts = sorted(rng.sample(range(1, len(data)), THREADS - 1))
    bounds = list(zip([0] + cuts, cuts + [len(data)]))
    out = bytearray(len(data))

    def work(i: int, barrier: threading.Barrier) -> None:
        lo, hi = bounds[i]
        barrier.wait()
        view = memoryview(out)[lo:hi]
        assert c.encrypt_into(iv, memoryview(data)[lo:hi], view, offset=lo) == hi - lo

    errors = run_threads(work, THREADS)
    assert not errors, "\n".join(errors)
    want = PycaCipher(pyca_alg.AES(key), pyca_modes.CTR(iv)).encryptor().update(data)
    assert bytes(out) == want, f"segments disagree with pyca (seed={seed!r})"


def test_streams_of_one_key_in_many_threads(cpu):
    key = make_rng("stream-key")[1].randbytes(16)
    a = AESGCM(key, cpu)
    peer = PycaAESGCM(key)

    def work(i: int, barrier: threading.Barrier) -> None:
        seed, rng = make_rng("streams", i)
        barrier.wait()
        for j in range(5):
            nonce, data, aad = rng.randbytes(12), rng.randbytes(rng.randrange(0, 200_000)), rng.randbytes(9)
            enc = a.encryptor(nonce)
            enc.authenticate_additional_data(aad)
            out, pos = bytearray(), 0
            while pos < len(data):
                step = rng.randrange(1, 20_000)
                out += enc.update(data[pos:pos + step])
                pos += step
            out += enc.finalize()
            if bytes(out) + enc.tag != peer.encrypt(nonce, data, aad):
                raise AssertionError(f"stream {j} differs from pyca (seed={seed!r})")

    errors = run_threads(work, THREADS)
    assert not errors, "\n".join(errors)


def test_default_context_is_made_once(monkeypatch):
    # Opening a context releases the GIL: racing first callers must still share one.
    monkeypatch.setattr(bulkcrypt, "_default", None)
    monkeypatch.setenv("BULKCRYPT_DEVICE", "cpu")
    got: list[object] = []

    def work(i: int, barrier: threading.Barrier) -> None:
        barrier.wait()
        got.append(bulkcrypt.default_context())

    errors = run_threads(work, 8)
    assert not errors, "\n".join(errors)
    assert len(got) == 8 and all(g is got[0] for g in got)


# ---- the GIL is released --------------------------------------------------------------


class Spinner:
    """Another Python thread counting as fast as it can; it only counts while it holds
    the GIL, so what it counts during a call shows whether the call let go of it."""

    def __init__(self) -> None:
        self.count = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        n = 0
        while not self._stop:
            n += 1
            self.count = n

    def __enter__(self) -> "Spinner":
        self._thread.start()
        time.sleep(0.05)
        c0, t0 = self.count, time.perf_counter()
        time.sleep(0.2)  # the main thread asleep: the spinner's free rate
        self.rate = (self.count - c0) / (time.perf_counter() - t0)
        return self

    def __exit__(self, *exc) -> None:
        self._stop = True
        self._thread.join(10)

    def share_during(self, call) -> tuple[float, float]:
        """(the spinner's count during call / its free rate x the call's time, seconds)."""
        c0, t0 = self.count, time.perf_counter()
        call()
        dt = time.perf_counter() - t0
        return (self.count - c0) / (self.rate * dt), dt


@pytest.mark.parametrize("how", ["one-shot", "stream-update"])
def test_gil_is_released_during_a_long_call(how):
    # One worker thread: the call keeps one core busy and leaves the other to the spinner.
    ctx = Context("cpu", "threads=1")
    a = AESGCM(bytes(range(32)), ctx)
    big = bytes(256 << 20)
    call = ((lambda: a.encrypt(bytes(12), big, None)) if how == "one-shot"
            else (lambda: a.encryptor(bytes(12)).update(big)))
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)  # less slack at the call's edges for a GIL holder
    try:
        with Spinner() as s:
            released, dt = s.share_during(call)
            # Control: bytes.count holds the GIL throughout; the spinner must nearly stall.
            held, dt_held = s.share_during(lambda: big.count(b"\x01"))
    finally:
        sys.setswitchinterval(old)
    detail = (f"spinner share during the call {released:.2f} ({dt:.3f} s), "
              f"during a GIL holder {held:.2f} ({dt_held:.3f} s)")
    assert held < 0.25, "the control does not discriminate: " + detail
    assert released > 0.25 and released > 3 * held, "the GIL was not released: " + detail


def test_stream_refuses_a_second_thread():
    ctx = Context("cpu", "threads=1")
    key, nonce = bytes(range(16)), bytes(12)
    a = AESGCM(key, ctx)
    big = bytes(64 << 20)
    refusal = None
    # The other thread must be inside its update (GIL released) while this one calls:
    # an empty update is harmless when it wins the race, so retry until it loses.
    for attempt in range(5):
        s = a.encryptor(nonce)
        inside, result = threading.Event(), {}

        def long_update() -> None:
            inside.set()
            try:
                result["ct"] = s.update(big)
            except AlreadyFinalized as e:  # this thread lost the race instead: retry
                result["lost"] = e

        t = threading.Thread(target=long_update, daemon=True)
        t.start()
        inside.wait()
        while t.is_alive():
            try:
                assert s.update(b"") == b""
            except AlreadyFinalized as e:
                refusal = e
                break
        t.join(60)
        if refusal is not None and "ct" in result:
            break
        refusal = None
    assert refusal is not None, "could not catch the stream busy in 5 attempts"
    assert refusal.status == "BC_ERR_BAD_STATE"
    assert "one thread at a time" in str(refusal), str(refusal)
    # The refused call left the stream as it was.
    tail = s.finalize()
    sealed = a.encrypt(nonce, big, None)
    assert result["ct"] + tail == sealed[:-16] and s.tag == sealed[-16:]


def test_first_numpy_calls_from_many_threads_do_not_deadlock():
    """The first NumPy-array (or array.array) call looks up a Python helper, an import
    that may hand the GIL to another thread: were the lookup a C++ function-local static,
    that thread would wait on its initialisation guard while holding the GIL (a deadlock).
    Many threads make their first call at once, in a fresh interpreter."""
    script = textwrap.dedent("""
        import sys, threading
        sys.setswitchinterval(1e-6)  # hand the GIL over often, as a busy program would
        import numpy as np, bulkcrypt
        key = bulkcrypt.AESGCM(bytes(16), bulkcrypt.Context("cpu"))
        arr = np.zeros(64, np.uint8)
        barrier = threading.Barrier(8)
        def work():
            barrier.wait()
            for _ in range(3):
                key.encrypt(bytes(12), arr, None)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("done")
    """)
    try:
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: 8 threads making their first NumPy call did not finish in 10 s")
    assert r.returncode == 0 and r.stdout.strip() == "done", r.stderr[-500:]

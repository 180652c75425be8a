"""AEAD keys (AESGCM, ChaCha20Poly1305, XChaCha20Poly1305 and the generic AEAD class)
against two independent implementations: pyca/cryptography and PyCryptodome.

Every differential runs both ways (bulkcrypt seals, the peer opens; the peer seals,
bulkcrypt opens) on the CPU backend's two implementations (OpenSSL's libcrypto and
bulkcrypt's portable cores). Inputs are random from a fixed seed that every failure
message prints. GCM over the catalogue's other 128-bit block ciphers is checked against
a small GCM written here on top of the peer's ECB, itself first checked against pyca.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from Crypto.Cipher import AES as CryptodomeAES
from Crypto.Cipher import ChaCha20_Poly1305 as CryptodomeChaChaPoly
from cryptography.hazmat.primitives.ciphers import Cipher as PycaCipher
from cryptography.hazmat.primitives.ciphers import algorithms as pyca_algorithms
from cryptography.hazmat.primitives.ciphers import modes as pyca_modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaAESGCM
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as PycaChaChaPoly

import bulkcrypt
from bulkcrypt import AEAD, AESGCM, AlreadyFinalized, ChaCha20Poly1305, InvalidArgument, InvalidTag, XChaCha20Poly1305

try:
    from cryptography.hazmat.decrepit.ciphers.algorithms import SEED as PycaSEED
except ImportError:  # older pyca: SEED still lived beside AES
    PycaSEED = getattr(pyca_algorithms, "SEED", None)

SEED = 0xAEAD_2024


def make_rng(*parts: object) -> tuple[str, random.Random]:
    """A generator seeded from the test's identity: reruns see the same inputs."""
    seed = ":".join([str(SEED), *map(str, parts)])
    return seed, random.Random(seed)


def assert_same(got: bytes, want: bytes, seed: str, what: str) -> None:
    """Equality without pytest diffing megabytes: says where they first differ."""
    got, want = bytes(got), bytes(want)
    if got == want:
        return
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    pytest.fail(f"{what}: {len(got)} vs {len(want)} bytes, first difference at {first} (seed={seed!r})")


# The GIL threshold (4096) and the block and Poly1305 edges around it, a large message
# and a few random lengths.
_size_rng = random.Random(SEED)
SIZES = [0, 1, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 1 << 20] + sorted(
    _size_rng.randrange(2, 100_000) for _ in range(3))

NAMED = {
    "aes-128-gcm": (AESGCM, 16),
    "aes-192-gcm": (AESGCM, 24),
    "aes-256-gcm": (AESGCM, 32),
    "chacha20-poly1305": (ChaCha20Poly1305, 32),
    "xchacha20-poly1305": (XChaCha20Poly1305, 32),
}
NONCE = {"chacha20-poly1305": 12, "xchacha20-poly1305": 24}


def nonce_len(alg: str) -> int:
    return NONCE.get(alg, 12)


@pytest.fixture(scope="module")
def contexts() -> dict[str, bulkcrypt.Context]:
    return {"evp": bulkcrypt.Context("cpu"), "portable": bulkcrypt.Context("cpu", "cpu.impl=portable")}


# ---- the two peers --------------------------------------------------------------------


def peer_seal(peer: str, alg: str, key: bytes, nonce: bytes, data: bytes, aad: bytes | None,
              tag_len: int = 16) -> bytes:
    gcm = alg.endswith("-gcm")
    if peer == "pyca":
        if alg == "xchacha20-poly1305":
            pytest.skip("pyca/cryptography has no XChaCha20-Poly1305")
        if tag_len != 16:
            pytest.skip("pyca/cryptography's AESGCM makes 16-byte tags only")
        return (PycaAESGCM if gcm else PycaChaChaPoly)(key).encrypt(nonce, data, aad)
    c = (CryptodomeAES.new(key, CryptodomeAES.MODE_GCM, nonce=nonce, mac_len=tag_len) if gcm
         else CryptodomeChaChaPoly.new(key=key, nonce=nonce))
    if aad:
        c.update(aad)
    ct, tag = c.encrypt_and_digest(data)
    return ct + tag


def peer_open(peer: str, alg: str, key: bytes, nonce: bytes, sealed: bytes, aad: bytes | None,
              tag_len: int = 16) -> bytes:
    gcm = alg.endswith("-gcm")
    if peer == "pyca":
        return (PycaAESGCM if gcm else PycaChaChaPoly)(key).decrypt(nonce, sealed, aad)
    c = (CryptodomeAES.new(key, CryptodomeAES.MODE_GCM, nonce=nonce, mac_len=tag_len) if gcm
         else CryptodomeChaChaPoly.new(key=key, nonce=nonce))
    if aad:
        c.update(aad)
    return c.decrypt_and_verify(sealed[:-tag_len], sealed[-tag_len:])


# ---- differential: the named classes -------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("peer", ["pyca", "pycryptodome"])
@pytest.mark.parametrize("impl", ["evp", "portable"])
@pytest.mark.parametrize("alg", list(NAMED))
def test_named_class_matches_peer(contexts, alg, impl, peer, size):
    cls, key_len = NAMED[alg]
    seed, rng = make_rng("named", alg, impl, peer, size)
    key = rng.randbytes(key_len)
    ours = cls(key, contexts[impl])
    assert ours.algorithm == alg
    for aad in (None, b"", rng.randbytes(rng.randrange(1, 300))):
        data = rng.randbytes(size)
        nonce = rng.randbytes(nonce_len(alg))
        sealed = ours.encrypt(nonce, data, aad)
        assert type(sealed) is bytes and len(sealed) == size + 16, seed
        assert_same(sealed, peer_seal(peer, alg, key, nonce, data, aad), seed, f"seal vs {peer}, aad={aad!r:.20}")
        assert_same(peer_open(peer, alg, key, nonce, sealed, aad), data, seed, f"{peer} opens ours")

        nonce2 = rng.randbytes(nonce_len(alg))
        theirs = peer_seal(peer, alg, key, nonce2, data, aad)
        opened = ours.decrypt(nonce2, theirs, aad)
        assert type(opened) is bytes, seed
        assert_same(opened, data, seed, f"we open {peer}'s")


@pytest.mark.parametrize("alg", list(NAMED))
def test_generic_aead_class_equals_named_class(alg):
    cls, key_len = NAMED[alg]
    seed, rng = make_rng("generic", alg)
    key, nonce, data, aad = rng.randbytes(key_len), rng.randbytes(nonce_len(alg)), rng.randbytes(333), b"hdr"
    generic = AEAD(alg, key, tag_length=16)
    assert isinstance(cls(key), AEAD)
    assert generic.nonce_size == nonce_len(alg) and generic.tag_size == 16 and generic.key_size == key_len
    assert_same(generic.encrypt(nonce, data, aad), cls(key).encrypt(nonce, data, aad), seed, "AEAD vs named")
    assert_same(generic.decrypt(nonce, cls(key).encrypt(nonce, data, aad), aad), data, seed, "AEAD opens named")


@pytest.mark.parametrize("nlen", [1, 8, 13, 16, 60, 1024])
@pytest.mark.parametrize("alg", ["aes-128-gcm", "aes-256-gcm"])
def test_gcm_nonce_lengths_other_than_12(alg, nlen):
    # Nonces that are not 96 bits go through GHASH to make J0: PyCryptodome takes any length.
    seed, rng = make_rng("gcm-nonce", alg, nlen)
    key = rng.randbytes(NAMED[alg][1])
    ours = AESGCM(key)
    for size in (0, 31, 5000):
        nonce, data, aad = rng.randbytes(nlen), rng.randbytes(size), rng.randbytes(20)
        sealed = ours.encrypt(nonce, data, aad)
        assert_same(sealed, peer_seal("pycryptodome", alg, key, nonce, data, aad), seed, f"nonce {nlen}")
        assert_same(ours.decrypt(nonce, sealed, aad), data, seed, "round trip")


@pytest.mark.parametrize("size", [0, 1, 33, 4097])
@pytest.mark.parametrize("tag_len", [12, 8, 4, 15])
@pytest.mark.parametrize("alg", ["aes-128-gcm", "aes-192-gcm", "aes-256-gcm"])
def test_gcm_short_tags_match_pycryptodome(alg, tag_len, size):
    seed, rng = make_rng("short-tag", alg, tag_len, size)
    key = rng.randbytes(NAMED[alg][1])
    ours = AEAD(alg, key, tag_length=tag_len)
    assert ours.tag_size == tag_len
    nonce, data, aad = rng.randbytes(12), rng.randbytes(size), rng.randbytes(rng.randrange(0, 50))
    sealed = ours.encrypt(nonce, data, aad)
    assert len(sealed) == size + tag_len, seed
    assert_same(sealed, peer_seal("pycryptodome", alg, key, nonce, data, aad, tag_len), seed, "seal")
    # A truncated GCM tag is the full tag's prefix.
    assert_same(sealed, AESGCM(key).encrypt(nonce, data, aad)[:size + tag_len], seed, "prefix of the 16-byte tag")
    theirs = peer_seal("pycryptodome", alg, key, nonce, data, aad, tag_len)
    assert_same(ours.decrypt(nonce, theirs, aad), data, seed, "open")
    assert_same(peer_open("pycryptodome", alg, key, nonce, sealed, aad, tag_len), data, seed, "peer opens")
    # A key expecting 16-byte tags must not accept the short one.
    if size + tag_len >= 16:
        with pytest.raises(InvalidTag):
            AESGCM(key).decrypt(nonce, sealed, aad)


# ---- GCM over the catalogue's other block ciphers ------------------------------------

_R = 0xE1 << 120


def _gf_mul(x: int, y: int) -> int:
    """GF(2^128) product in GCM's bit order (SP 800-38D, algorithm 1)."""
    z = 0
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= y
        y = (y >> 1) ^ _R if y & 1 else y >> 1
    return z


def _ghash(h: int, aad: bytes, ct: bytes) -> int:
    y = 0
    for part in (aad, ct):
        for i in range(0, len(part), 16):
            y = _gf_mul(y ^ int.from_bytes(part[i:i + 16].ljust(16, b"\0"), "big"), h)
    return _gf_mul(y ^ ((len(aad) * 8) << 64 | len(ct) * 8), h)


def _xor(a: bytes, b: bytes) -> bytes:
    return (np.frombuffer(a, np.uint8) ^ np.frombuffer(b, np.uint8)).tobytes()


def reference_gcm_seal(ecb, nonce: bytes, data: bytes, aad: bytes, tag_len: int = 16) -> bytes:
    """GCM from a 16-byte block cipher's ECB encryption (SP 800-38D); slow, small inputs only."""
    h = int.from_bytes(ecb(bytes(16)), "big")
    j0 = nonce + b"\0\0\0\1" if len(nonce) == 12 else _ghash(h, b"", nonce).to_bytes(16, "big")
    prefix, ctr = j0[:12], int.from_bytes(j0[12:], "big")
    blocks = b"".join(prefix + ((ctr + i) & 0xFFFFFFFF).to_bytes(4, "big") for i in range(1, len(data) // 16 + 2))
    ct = _xor(data, ecb(blocks)[:len(data)])
    tag = (_ghash(h, aad, ct) ^ int.from_bytes(ecb(j0), "big")).to_bytes(16, "big")
    return ct + tag[:tag_len]


def pyca_ecb(algorithm):
    def encrypt(blocks: bytes) -> bytes:
        return PycaCipher(algorithm, pyca_modes.ECB()).encryptor().update(blocks)
    return encrypt


def test_reference_gcm_agrees_with_pyca():
    # The reference must be right before it judges anything.
    seed, rng = make_rng("reference-gcm")
    for size in (0, 1, 16, 17, 100, 300):
        key = rng.randbytes(16)
        nonce = rng.randbytes(rng.choice([12, 12, 8, 20]))
        data, aad = rng.randbytes(size), rng.randbytes(rng.randrange(0, 40))
        ref = reference_gcm_seal(pyca_ecb(pyca_algorithms.AES(key)), nonce, data, aad)
        if len(nonce) == 12:
            assert_same(ref, PycaAESGCM(key).encrypt(nonce, data, aad), seed, "reference vs pyca")
        want = peer_seal("pycryptodome", "aes-128-gcm", key, nonce, data, aad)
        assert_same(ref, want, seed, "reference vs PyCryptodome")


def _pyca_block(family: str, key: bytes):
    if family == "sm4":
        return pyca_algorithms.SM4(key)
    if family == "seed":
        if PycaSEED is None:
            pytest.skip("this pyca/cryptography has no SEED")
        return PycaSEED(key)
    return None


OTHER_GCM = [a.name for a in bulkcrypt.algorithms()
             if a.kind == "aead" and a.name.endswith("-gcm") and not a.name.startswith("aes-")]


def test_catalogue_has_other_gcm_algorithms():
    # Without this, the parametrised tests below would silently collect nothing.
    assert OTHER_GCM, "the catalogue lists no GCM besides AES"


@pytest.mark.parametrize("alg", OTHER_GCM)
def test_other_gcm_round_trip_and_tamper(alg):
    info = bulkcrypt._native.algorithm_info(alg)
    seed, rng = make_rng("other-gcm", alg)
    key = rng.randbytes(info["key_size"])
    a = AEAD(alg, key)
    assert (a.nonce_size, a.tag_size, a.key_size) == (info["iv_size"], info["tag_size"], info["key_size"])
    for size in (0, 1, 16, 4097, 70_000):
        nonce, data, aad = rng.randbytes(12), rng.randbytes(size), rng.randbytes(rng.randrange(1, 64))
        sealed = a.encrypt(nonce, data, aad)
        assert len(sealed) == size + 16
        assert_same(a.decrypt(nonce, sealed, aad), data, seed, "round trip")
        if size:
            assert sealed[:size] != data, seed
        bad = bytearray(sealed)
        bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        with pytest.raises(InvalidTag):
            a.decrypt(nonce, bytes(bad), aad)
        with pytest.raises(InvalidTag):
            a.decrypt(nonce, sealed, aad + b"!")


@pytest.mark.parametrize("alg", OTHER_GCM)
def test_other_gcm_matches_reference(alg):
    family = alg.split("-")[0]
    block = _pyca_block(family, bytes(16))
    if block is None:
        pytest.skip(f"neither pyca/cryptography nor PyCryptodome has the block cipher of {alg}")
    seed, rng = make_rng("other-gcm-ref", alg)
    key = rng.randbytes(16)
    ecb = pyca_ecb(_pyca_block(family, key))
    for size, nlen, tag_len in ((0, 12, 16), (1, 12, 16), (47, 12, 16), (300, 16, 16), (100, 12, 8)):
        a = AEAD(alg, key, tag_length=tag_len)
        nonce, data, aad = rng.randbytes(nlen), rng.randbytes(size), rng.randbytes(rng.randrange(0, 40))
        want = reference_gcm_seal(ecb, nonce, data, aad, tag_len)
        assert_same(a.encrypt(nonce, data, aad), want, seed, f"{alg} vs reference GCM ({size}, {nlen}, {tag_len})")
        assert_same(a.decrypt(nonce, want, aad), data, seed, "open the reference's")


def test_sm4_gcm_matches_pyca():
    seed, rng = make_rng("sm4-gcm-pyca")
    key = rng.randbytes(16)
    a = AEAD("sm4-gcm", key)
    for size in (0, 5, 64, 4097, 100_000):
        nonce, data, aad = rng.randbytes(12), rng.randbytes(size), rng.randbytes(rng.randrange(0, 40))
        try:
            enc = PycaCipher(pyca_algorithms.SM4(key), pyca_modes.GCM(nonce)).encryptor()
        except Exception as e:  # pyca's OpenSSL may lack SM4-GCM
            pytest.skip(f"pyca/cryptography cannot do SM4-GCM here ({e})")
        enc.authenticate_additional_data(aad)
        want = enc.update(data) + enc.finalize() + enc.tag
        assert_same(a.encrypt(nonce, data, aad), want, seed, "sm4-gcm vs pyca")
        assert_same(a.decrypt(nonce, want, aad), data, seed, "open pyca's")


# ---- tampering ---------------------------------------------------------------------

TAMPER_ALGS = list(NAMED) + OTHER_GCM


def _aead_for(alg: str, key: bytes) -> AEAD:
    return NAMED[alg][0](key) if alg in NAMED else AEAD(alg, key)


def _key_len(alg: str) -> int:
    return bulkcrypt._native.algorithm_info(alg)["key_size"]


@pytest.mark.parametrize("where", ["ciphertext", "tag", "aad", "nonce"])
@pytest.mark.parametrize("size", [1, 100, 5000])
@pytest.mark.parametrize("alg", TAMPER_ALGS)
def test_tampering_raises_invalid_tag_and_releases_nothing(alg, size, where):
    seed, rng = make_rng("tamper", alg, size, where)
    key = rng.randbytes(_key_len(alg))
    a = _aead_for(alg, key)
    nonce, data, aad = rng.randbytes(nonce_len(alg)), rng.randbytes(size), rng.randbytes(24)
    sealed = bytearray(a.encrypt(nonce, data, aad))
    bit = 1 << rng.randrange(8)
    if where == "ciphertext":
        sealed[rng.randrange(size)] ^= bit
    elif where == "tag":
        sealed[size + rng.randrange(16)] ^= bit
    elif where == "aad":
        aad = bytearray(aad)
        aad[rng.randrange(len(aad))] ^= bit
    else:
        nonce = bytearray(nonce)
        nonce[rng.randrange(len(nonce))] ^= bit
    with pytest.raises(InvalidTag) as e:
        a.decrypt(nonce, bytes(sealed), aad)
    assert e.value.status == "BC_ERR_AUTH_FAILED", seed
    assert isinstance(e.value, bulkcrypt.Error)

    # Out of place: the plaintext part is zeroed, the caller's bytes past it are left alone.
    buf = bytearray(b"\xa5" * (size + 40))
    with pytest.raises(InvalidTag):
        a.decrypt_into(nonce, bytes(sealed), aad, buf)
    assert buf[:size] == bytes(size), f"plaintext released on a failed open (seed={seed!r})"
    assert buf[size:] == b"\xa5" * 40, seed

    # In place: the ciphertext is replaced by zeros, never by unauthenticated plaintext.
    inplace = bytearray(sealed)
    with pytest.raises(InvalidTag):
        a.decrypt_into(nonce, inplace, aad, inplace)
    assert inplace[:size] == bytes(size), seed


def test_tampered_numpy_output_is_zeroed():
    seed, rng = make_rng("tamper-numpy")
    a = ChaCha20Poly1305(rng.randbytes(32))
    nonce, data = rng.randbytes(12), rng.randbytes(9000)
    sealed = bytearray(a.encrypt(nonce, data, None))
    sealed[-1] ^= 0x80
    out = np.full(9000, 0x5A, np.uint8)
    with pytest.raises(InvalidTag):
        a.decrypt_into(nonce, sealed, None, out)
    assert not out.any(), seed


def test_open_of_data_shorter_than_tag():
    a = AESGCM(bytes(16))
    with pytest.raises(InvalidArgument) as e:
        a.decrypt(bytes(12), b"short", None)
    assert e.value.status == "BC_ERR_INPUT_LENGTH"
    assert "16-byte tag" in str(e.value)


# ---- encrypt_into / decrypt_into ---------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 70_001])
@pytest.mark.parametrize("alg", list(NAMED))
def test_into_bytearray_numpy_and_in_place(alg, size):
    seed, rng = make_rng("into", alg, size)
    key = rng.randbytes(NAMED[alg][1])
    a = NAMED[alg][0](key)
    nonce, data, aad = rng.randbytes(nonce_len(alg)), rng.randbytes(size), rng.randbytes(17)
    sealed = a.encrypt(nonce, data, aad)

    # Out of place into a larger bytearray: the count comes back, the tail is untouched.
    buf = bytearray(b"\xee" * (size + 16 + 9))
    assert a.encrypt_into(nonce, data, aad, buf) == size + 16
    assert_same(buf[:size + 16], sealed, seed, "encrypt_into bytearray")
    assert buf[size + 16:] == b"\xee" * 9
    plain = bytearray(size + 3)
    assert a.decrypt_into(nonce, sealed, aad, plain) == size
    assert_same(plain[:size], data, seed, "decrypt_into bytearray")

    # Into NumPy.
    arr = np.zeros(size + 16, np.uint8)
    assert a.encrypt_into(nonce, data, aad, arr) == size + 16
    assert_same(arr.tobytes(), sealed, seed, "encrypt_into numpy")
    back = np.zeros(size, np.uint8)
    assert a.decrypt_into(nonce, arr, aad, back) == size
    assert_same(back.tobytes(), data, seed, "decrypt_into numpy")

    # In place: the plaintext is the buffer's first n bytes, the tag lands after it.
    work = bytearray(data) + bytearray(16)
    assert a.encrypt_into(nonce, memoryview(work)[:size], aad, work) == size + 16
    assert_same(work, sealed, seed, "in-place seal")
    assert a.decrypt_into(nonce, work, aad, work) == size
    assert_same(work[:size], data, seed, "in-place open")


@pytest.mark.parametrize("alg", ["aes-128-gcm", "chacha20-poly1305"])
def test_into_too_small_is_refused_untouched(alg):
    a = NAMED[alg][0](bytes(NAMED[alg][1]))
    nonce, data = bytes(nonce_len(alg)), b"m" * 50
    small = bytearray(b"\x11" * 65)
    with pytest.raises(InvalidArgument) as e:
        a.encrypt_into(nonce, data, None, small)
    assert e.value.status == "BC_ERR_OUTPUT_TOO_SMALL"
    assert "too small" in str(e.value) and "66" in str(e.value), str(e.value)
    assert small == b"\x11" * 65, "a refused call wrote into the buffer"
    sealed = a.encrypt(nonce, data, None)
    small = bytearray(49)
    with pytest.raises(InvalidArgument) as e:
        a.decrypt_into(nonce, sealed, None, small)
    assert e.value.status == "BC_ERR_OUTPUT_TOO_SMALL" and "50" in str(e.value), str(e.value)


@pytest.mark.parametrize("make_ro", [
    lambda n: bytes(n),
    lambda n: memoryview(bytes(n)),
    lambda n: np.frombuffer(bytes(n), np.uint8),
], ids=["bytes", "memoryview-of-bytes", "readonly-numpy"])
def test_into_read_only_buffer_is_refused(make_ro):
    a = AESGCM(bytes(16))
    with pytest.raises(InvalidArgument) as e:
        a.encrypt_into(bytes(12), b"abc", None, make_ro(64))
    assert "read-only" in str(e.value)
    sealed = a.encrypt(bytes(12), b"abc", None)
    with pytest.raises(InvalidArgument) as e:
        a.decrypt_into(bytes(12), sealed, None, make_ro(64))
    assert "read-only" in str(e.value)


# ---- keys, nonces, tag lengths ------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 15, 17, 31, 33, 64])
def test_aesgcm_key_sizes(n):
    with pytest.raises(InvalidArgument) as e:
        AESGCM(b"x" * n)
    assert isinstance(e.value, ValueError)
    assert e.value.status == "BC_ERR_KEY_SIZE"
    assert "128, 192, or 256" in str(e.value)


@pytest.mark.parametrize("alg,n", [("aes-128-gcm", 24), ("aes-256-gcm", 16), ("chacha20-poly1305", 31),
                                   ("xchacha20-poly1305", 33), ("sm4-gcm", 32)])
def test_generic_key_size_errors(alg, n):
    with pytest.raises(InvalidArgument) as e:
        AEAD(alg, bytes(n))
    assert e.value.status == "BC_ERR_KEY_SIZE", str(e.value)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("cls", [ChaCha20Poly1305, XChaCha20Poly1305])
def test_chacha_key_size_errors(cls):
    for n in (16, 31, 33):
        with pytest.raises(InvalidArgument) as e:
            cls(bytes(n))
        assert e.value.status == "BC_ERR_KEY_SIZE"


def test_generate_key_lengths():
    for bits in (128, 192, 256):
        k = AESGCM.generate_key(bits)
        assert type(k) is bytes and len(k) == bits // 8
        AESGCM(k).encrypt(bytes(12), b"usable", None)
    assert AESGCM.generate_key(256) != AESGCM.generate_key(256)
    for bad in (0, 64, 127, 512):
        with pytest.raises(InvalidArgument):
            AESGCM.generate_key(bad)
    assert len(ChaCha20Poly1305.generate_key()) == 32
    assert len(XChaCha20Poly1305.generate_key()) == 32
    for alg in ("aes-192-gcm", "sm4-gcm", "xchacha20-poly1305"):
        assert len(AEAD.generate_key(alg)) == _key_len(alg)


@pytest.mark.parametrize("alg,n", [("aes-128-gcm", 0), ("aes-256-gcm", 1025), ("chacha20-poly1305", 11),
                                   ("chacha20-poly1305", 24), ("xchacha20-poly1305", 12)])
def test_nonce_size_errors_name_algorithm_and_length(alg, n):
    a = _aead_for(alg, bytes(_key_len(alg)))
    for call in (lambda: a.encrypt(bytes(n), b"data", None), lambda: a.decrypt(bytes(n), bytes(40), None)):
        with pytest.raises(InvalidArgument) as e:
            call()
        msg = str(e.value)
        assert e.value.status == "BC_ERR_IV_SIZE", msg
        assert alg in msg and "nonce" in msg and re.search(rf"\b{n}\b", msg), msg
    # The stream's message (src/capi/api_stream.cpp) names no sizes: only what is checked here.
    with pytest.raises(InvalidArgument) as e:
        a.encryptor(bytes(n))
    assert e.value.status == "BC_ERR_IV_SIZE" and alg in str(e.value) and "nonce" in str(e.value)


def test_nonce_is_required():
    # nanobind refuses None before the call (TypeError, as pyca does); either is fine.
    with pytest.raises((TypeError, InvalidArgument)):
        AESGCM(bytes(16)).encrypt(None, b"data", None)
    with pytest.raises((TypeError, InvalidArgument)):
        AESGCM(bytes(16)).encryptor(None)


@pytest.mark.parametrize("alg,tag_len", [("aes-128-gcm", 3), ("aes-128-gcm", 17), ("aes-128-gcm", 0),
                                         ("chacha20-poly1305", 12), ("xchacha20-poly1305", 8)])
def test_tag_length_out_of_range(alg, tag_len):
    with pytest.raises(InvalidArgument) as e:
        AEAD(alg, bytes(_key_len(alg)), tag_length=tag_len)
    assert e.value.status == "BC_ERR_TAG_SIZE"
    assert str(tag_len) in str(e.value) and alg in str(e.value)


# ---- streaming ---------------------------------------------------------------------


def _pieces(rng: random.Random, data: bytes) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = rng.choice([0, 1, 7, 16, 63, rng.randrange(1, 3000), rng.randrange(4096, 9000)])
        out.append(data[i:i + n])
        i += n
    return out + [b""]


def _feed(rng: random.Random, stream, data: bytes) -> bytes:
    """update() and update_into() alternately, on random cuts."""
    out = bytearray()
    for piece in _pieces(rng, data):
        if rng.random() < 0.5:
            out += stream.update(piece)
        else:
            buf = bytearray(len(piece) + 64)
            n = stream.update_into(piece, buf)
            out += buf[:n]
    return bytes(out)


STREAM_ALGS = list(NAMED) + ["sm4-gcm", "aria-256-gcm"]


@pytest.mark.parametrize("size", [0, 1, 100, 70_000])
@pytest.mark.parametrize("alg", STREAM_ALGS)
def test_streaming_equals_one_shot(alg, size):
    seed, rng = make_rng("stream", alg, size)
    key = rng.randbytes(_key_len(alg))
    a = _aead_for(alg, key)
    nonce, data = rng.randbytes(nonce_len(alg)), rng.randbytes(size)
    aad_parts = [rng.randbytes(rng.randrange(0, 40)) for _ in range(rng.randrange(0, 4))]
    aad = b"".join(aad_parts)
    sealed = a.encrypt(nonce, data, aad)

    enc = a.encryptor(nonce)
    for part in aad_parts:
        enc.authenticate_additional_data(part)
    ct = _feed(rng, enc, data)
    ct += enc.finalize()
    assert_same(ct, sealed[:size], seed, "streamed ciphertext")
    assert type(enc.tag) is bytes
    assert_same(enc.tag, sealed[size:], seed, "streamed tag")

    dec = a.decryptor(nonce)
    for part in aad_parts:
        dec.authenticate_additional_data(part)
    pt = _feed(rng, dec, sealed[:size])
    pt += dec.finalize_with_tag(sealed[size:])
    assert_same(pt, data, seed, "streamed plaintext")


def test_streaming_matches_pyca_chacha():
    seed, rng = make_rng("stream-pyca")
    key, nonce, data, aad = rng.randbytes(32), rng.randbytes(12), rng.randbytes(20_000), rng.randbytes(30)
    enc = ChaCha20Poly1305(key).encryptor(nonce)
    enc.authenticate_additional_data(aad)
    ct = _feed(rng, enc, data) + enc.finalize()
    assert_same(ct + enc.tag, PycaChaChaPoly(key).encrypt(nonce, data, aad), seed, "stream vs pyca")


def test_streaming_short_tag():
    seed, rng = make_rng("stream-short-tag")
    key, nonce, data = rng.randbytes(16), rng.randbytes(12), rng.randbytes(500)
    a = AEAD("aes-128-gcm", key, tag_length=8)
    enc = a.encryptor(nonce)
    enc.update(data)
    enc.finalize()
    assert len(enc.tag) == 8
    assert_same(enc.tag, a.encrypt(nonce, data, None)[-8:], seed, "8-byte tag")
    dec = a.decryptor(nonce)
    assert_same(dec.update(a.encrypt(nonce, data, None)[:-8]), data, seed, "short-tag stream open")
    assert dec.finalize_with_tag(enc.tag) == b""


@pytest.mark.parametrize("alg", ["aes-256-gcm", "chacha20-poly1305"])
def test_streaming_wrong_tag(alg):
    seed, rng = make_rng("stream-wrong-tag", alg)
    a = _aead_for(alg, rng.randbytes(32))
    nonce, data = rng.randbytes(12), rng.randbytes(300)
    sealed = bytearray(a.encrypt(nonce, data, None))
    sealed[-3] ^= 4
    dec = a.decryptor(nonce)
    dec.update(bytes(sealed[:-16]))
    with pytest.raises(InvalidTag) as e:
        dec.finalize_with_tag(bytes(sealed[-16:]))
    assert e.value.status == "BC_ERR_AUTH_FAILED"
    # A failed stream stays failed.
    with pytest.raises(AlreadyFinalized):
        dec.update(b"more")


def test_streaming_order_errors():
    a = AESGCM(bytes(16))
    enc = a.encryptor(bytes(12))
    with pytest.raises(AlreadyFinalized) as e:
        enc.tag
    assert "finalize" in str(e.value)
    enc.update(b"x")
    with pytest.raises(AlreadyFinalized):
        enc.authenticate_additional_data(b"late aad")
    enc.finalize()
    assert len(enc.tag) == 16
    with pytest.raises(AlreadyFinalized) as e:
        enc.update(b"after")
    assert e.value.status == "BC_ERR_BAD_STATE"
    with pytest.raises(AlreadyFinalized):
        enc.finalize()
    with pytest.raises(AlreadyFinalized):
        enc.finalize_with_tag(bytes(16))

    dec = a.decryptor(bytes(12))
    with pytest.raises(AlreadyFinalized) as e:
        dec.finalize()
    assert "finalize_with_tag" in str(e.value)
    with pytest.raises(AlreadyFinalized):
        dec.tag


@pytest.mark.parametrize("cut", [15, 12, 8, 4])
def test_streaming_decryptor_refuses_a_truncated_tag(cut):
    """finalize_with_tag takes the key's whole tag only: were a prefix of the right tag
    accepted, a 4-byte prefix would make forgery odds 2^-32, not 2^-128 (pyca's GCM mode
    refuses short tags the same way)."""
    a = AESGCM(bytes(range(16)))
    nonce, data = bytes(12), b"attack at dawn"
    sealed = a.encrypt(nonce, data, None)
    dec = a.decryptor(nonce)
    dec.update(sealed[:-16])
    with pytest.raises((InvalidArgument, InvalidTag)):
        dec.finalize_with_tag(sealed[-16:][:cut])


# ---- another device -------------------------------------------------------------------


@pytest.fixture(scope="module")
def opencl():
    try:
        return bulkcrypt.Context("opencl:0")
    except bulkcrypt.DeviceError as e:
        pytest.skip(f"no OpenCL device ({e})")


@pytest.mark.parametrize("size", [0, 17, 5000])
@pytest.mark.parametrize("alg", ["aes-128-gcm", "chacha20-poly1305"])
def test_opencl_context_matches_pyca(opencl, alg, size):
    # Small on purpose: PoCL is slow. The point is that another backend agrees.
    seed, rng = make_rng("opencl", alg, size)
    key = rng.randbytes(NAMED[alg][1])
    a = NAMED[alg][0](key, opencl)
    assert a.context is opencl
    nonce, data, aad = rng.randbytes(12), rng.randbytes(size), rng.randbytes(10)
    sealed = a.encrypt(nonce, data, aad)
    assert_same(sealed, peer_seal("pyca", alg, key, nonce, data, aad), seed, "opencl vs pyca")
    assert_same(a.decrypt(nonce, sealed, aad), data, seed, "opencl open")

#!/usr/bin/env python3
"""An independent reader and writer of the bulkcrypt file format (docs/format.md),
written from that page alone, in pure Python (standard library only), for the
ChaCha20-Poly1305 and XChaCha20-Poly1305 containers (the standard library has no
AES). It checks that the page says everything a second implementation needs:
test_cli.py decrypts the command's files with it and has the command decrypt
files written by it.

Slow (pure Python): meant for files of a few hundred KiB.
"""
import hashlib
import hmac
import os
import struct

MAGIC = b"\x89BCF\r\n\x1a\n"
ALGS = {1: ("aes-256-gcm", 32, 12), 2: ("chacha20-poly1305", 32, 12), 3: ("aes-128-gcm", 16, 12),
        4: ("xchacha20-poly1305", 32, 24)}
TAG = 16


class FormatError(Exception):
    pass


# ---- ChaCha20 and Poly1305 (RFC 8439), HChaCha20 (draft-irtf-cfrg-xchacha) -------

def _rotl(v, c):
    return ((v << c) & 0xffffffff) | (v >> (32 - c))


def _quarter(x, a, b, c, d):
    x[a] = (x[a] + x[b]) & 0xffffffff; x[d] = _rotl(x[d] ^ x[a], 16)
    x[c] = (x[c] + x[d]) & 0xffffffff; x[b] = _rotl(x[b] ^ x[c], 12)
    x[a] = (x[a] + x[b]) & 0xffffffff; x[d] = _rotl(x[d] ^ x[a], 8)
    x[c] = (x[c] + x[d]) & 0xffffffff; x[b] = _rotl(x[b] ^ x[c], 7)


def _rounds(x):
    for _ in range(10):
        _quarter(x, 0, 4, 8, 12); _quarter(x, 1, 5, 9, 13); _quarter(x, 2, 6, 10, 14); _quarter(x, 3, 7, 11, 15)
        _quarter(x, 0, 5, 10, 15); _quarter(x, 1, 6, 11, 12); _quarter(x, 2, 7, 8, 13); _quarter(x, 3, 4, 9, 14)


_SIGMA = struct.unpack("<4I", b"expand 32-byte k")


def chacha20_block(key, counter, nonce):
    state = list(_SIGMA) + list(struct.unpack("<8I", key)) + [counter] + list(struct.unpack("<3I", nonce))
    x = state[:]
    _rounds(x)
    return struct.pack("<16I", *[(a + b) & 0xffffffff for a, b in zip(x, state)])


def hchacha20(key, nonce16):
    x = list(_SIGMA) + list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))
    _rounds(x)
    return struct.pack("<8I", *(x[0:4] + x[12:16]))


def chacha20_xor(key, counter, nonce, data):
    out = bytearray()
    for i in range(0, len(data), 64):
        ks = chacha20_block(key, counter + i // 64, nonce)
        chunk = data[i:i + 64]
        out += bytes(a ^ b for a, b in zip(chunk, ks))
    return bytes(out)


def poly1305(key, msg):
    r = int.from_bytes(key[:16], "little") & 0x0ffffffc0ffffffc0ffffffc0fffffff
    s = int.from_bytes(key[16:], "little")
    p = (1 << 130) - 5
    acc = 0
    for i in range(0, len(msg), 16):
        block = msg[i:i + 16] + b"\x01"
        acc = (acc + int.from_bytes(block, "little")) * r % p
    return ((acc + s) % (1 << 128)).to_bytes(16, "little")


def _pad16(b):
    return b"\0" * (-len(b) % 16)


def _chacha_poly_keys(key, nonce):
    if len(nonce) == 24:
        key, nonce = hchacha20(key, nonce[:16]), b"\0\0\0\0" + nonce[16:]
    return key, nonce


def aead_seal(key, nonce, aad, pt):
    key, nonce = _chacha_poly_keys(key, nonce)
    otk = chacha20_block(key, 0, nonce)[:32]
    ct = chacha20_xor(key, 1, nonce, pt)
    mac = aad + _pad16(aad) + ct + _pad16(ct) + struct.pack("<QQ", len(aad), len(ct))
    return ct + poly1305(otk, mac)


def aead_open(key, nonce, aad, sealed):
    if len(sealed) < TAG:
        raise FormatError("segment shorter than a tag")
    ct, tag = sealed[:-TAG], sealed[-TAG:]
    key2, nonce2 = _chacha_poly_keys(key, nonce)
    otk = chacha20_block(key2, 0, nonce2)[:32]
    mac = aad + _pad16(aad) + ct + _pad16(ct) + struct.pack("<QQ", len(aad), len(ct))
    if not hmac.compare_digest(poly1305(otk, mac), tag):
        raise FormatError("tag mismatch")
    return chacha20_xor(key2, 1, nonce2, ct)


# ---- HKDF-SHA256 (RFC 5869) ----------------------------------------------------------

def hkdf_sha256(ikm, salt, info, length):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


# ---- the format -------------------------------------------------------------------------

def master_key(kdf_id, params, key=None, passphrase=None):
    if kdf_id == 0:
        if key is None or len(key) != 32:
            raise FormatError("a 32-byte key is needed")
        return key
    if kdf_id == 1:
        log_n, r, p = params[0], *struct.unpack(">II", params[1:9])
        salt = params[9:25]
        return hashlib.scrypt(passphrase, salt=salt, n=1 << log_n, r=r, p=p, maxmem=2 ** 31 - 1, dklen=32)
    raise FormatError(f"key source {kdf_id} not supported by this reader")


def read(blob, key=None, passphrase=None):
    if blob[:8] != MAGIC:
        raise FormatError("bad magic")
    if len(blob) < 64 or blob[8] != 1:
        raise FormatError("short header or unknown version")
    alg_id, kdf_id, L = blob[9], blob[10], blob[11]
    if alg_id not in (2, 4):
        raise FormatError(f"algorithm {alg_id} not supported by this reader")
    name, klen, nlen = ALGS[alg_id]
    S = struct.unpack(">I", blob[12:16])[0]
    salt, check = blob[16:48], blob[48:64]
    P = nlen - 5
    H = 64 + P + L
    prefix, params = blob[64:64 + P], blob[64 + P:H]
    header = blob[:H]
    m = master_key(kdf_id, params, key, passphrase)
    if not hmac.compare_digest(hkdf_sha256(m, salt, b"bulkcrypt v1 key check", 16), check):
        raise FormatError("wrong key")
    k = hkdf_sha256(m, salt, b"bulkcrypt v1 file key " + name.encode(), klen)
    body = blob[H:]
    n = max(1, -(-len(body) // (S + TAG)))
    out = b""
    for i in range(n):
        seg = body[i * (S + TAG):(i + 1) * (S + TAG)]
        nonce = prefix + struct.pack(">I", i) + bytes([1 if i == n - 1 else 0])
        out += aead_open(k, nonce, header, seg)
    return out


def write(plaintext, key, alg_id=2, segment_size=4096):
    name, klen, nlen = ALGS[alg_id]
    salt, prefix = os.urandom(32), os.urandom(nlen - 5)
    check = hkdf_sha256(key, salt, b"bulkcrypt v1 key check", 16)
    header = MAGIC + bytes([1, alg_id, 0, 0]) + struct.pack(">I", segment_size) + salt + check + prefix
    k = hkdf_sha256(key, salt, b"bulkcrypt v1 file key " + name.encode(), klen)
    n = max(1, -(-len(plaintext) // segment_size))
    out = header
    for i in range(n):
        nonce = prefix + struct.pack(">I", i) + bytes([1 if i == n - 1 else 0])
        out += aead_seal(k, nonce, header, plaintext[i * segment_size:(i + 1) * segment_size])
    return out

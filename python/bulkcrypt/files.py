"""Files in bulkcrypt's container format (docs/format.md), interchangeable with the
``bulkcrypt encrypt`` / ``bulkcrypt decrypt`` command both ways.

Segments are sealed and opened on a pool of threads, each call releasing the GIL.
Output goes to a temporary file beside the destination (created exclusively, mode
0600) that is renamed into place only when everything succeeded; on decryption a
segment's plaintext is written only after its tag verified, and any failure deletes
the temporary file, so no unverified plaintext ever appears at the destination.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import secrets
import struct
import threading
from dataclasses import dataclass
from typing import Union

from . import _native
from .exceptions import InvalidArgument, InvalidFile, InvalidKey, InvalidTag, UnsupportedAlgorithm

PathLike = Union[str, "os.PathLike[str]"]

MAGIC = b"\x89BCF\r\n\x1a\n"
VERSION = 1
_FIXED = 64
_FILE_SALT = 32
_KEY_CHECK = 16
_TAG = 16
_KDF_SALT = 16
_MASTER = 32
_MIN_SEGMENT, _MAX_SEGMENT = 16, 64 << 20
_MAX_SEGMENTS = 1 << 32  # the nonce's 32-bit counter
DEFAULT_SEGMENT = 4 << 20

# Algorithm ids are part of the format (docs/format.md): (id, name, nonce length).
_ALGORITHMS = [
    (1, "aes-256-gcm", 12),
    (2, "chacha20-poly1305", 12),
    (3, "aes-128-gcm", 12),
    (4, "xchacha20-poly1305", 24),
    (5, "sm4-gcm", 12),
    (6, "aria-128-gcm", 12),
    (7, "aria-192-gcm", 12),
    (8, "aria-256-gcm", 12),
    (9, "seed-128-gcm", 12),
]
_BY_NAME = {name: (i, n) for i, name, n in _ALGORITHMS}
_BY_ID = {i: (name, n) for i, name, n in _ALGORITHMS}

_KEY_FILE, _SCRYPT, _ARGON2ID = 0, 1, 2
# Bounds a reader enforces, so a hostile header cannot make it compute without limit.
_SCRYPT_MAX_LOGN, _SCRYPT_MAX_R, _SCRYPT_MAX_P = 22, 32, 16
_ARGON_MAX_T, _ARGON_MAX_P = 64, 64
_KDF_MAX_MEMORY = 4 << 30
_SCRYPT_DEFAULT = {"logN": 17, "r": 8, "p": 1}
_ARGON_DEFAULT = {"t": 3, "m": 65536, "p": 4}


@dataclass(frozen=True)
class FileResult:
    """What encrypt_file or decrypt_file did."""

    algorithm: str
    segments: int
    plaintext_bytes: int
    container_bytes: int


# ---- keys ---------------------------------------------------------------------------


def _hkdf_sha256(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256, RFC 5869."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def _read_key_file(path: PathLike) -> bytes:
    with open(path, "rb") as f:
        text = f.read(4097)
    if len(text) > 4096:
        raise InvalidArgument(f"key file '{os.fspath(path)}' is larger than 4096 bytes", "BC_ERR_KEY_SIZE")
    if len(text) == _MASTER:
        return text
    stripped = text.rstrip()
    try:
        if len(stripped) == 2 * _MASTER:
            return bytes.fromhex(stripped.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        pass
    raise InvalidArgument(
        f"key file '{os.fspath(path)}' holds {len(text)} bytes; it must hold {_MASTER} raw bytes "
        f"or {2 * _MASTER} hex digits",
        "BC_ERR_KEY_SIZE",
    )


def _passphrase_bytes(passphrase: str | bytes) -> bytes:
    return passphrase.encode("utf-8") if isinstance(passphrase, str) else bytes(passphrase)


def _check_new_passphrase(data: bytes) -> None:
    """A new file's passphrase must be one the command can be given: the first line of a
    file or the prompt, so never empty and never holding a line break."""
    if not data or b"\n" in data or b"\r" in data:
        raise InvalidArgument("passphrase must be non-empty and hold no line break (the command could not "
                              "take it)", "BC_ERR_INVALID_ARGUMENT")


@dataclass
class _Kdf:
    id: int
    params: dict
    salt: bytes = b""

    def encode(self) -> bytes:
        if self.id == _SCRYPT:
            return struct.pack(">BII", self.params["logN"], self.params["r"], self.params["p"]) + self.salt
        if self.id == _ARGON2ID:
            return struct.pack(">III", self.params["t"], self.params["m"], self.params["p"]) + self.salt
        return b""

    @staticmethod
    def decode(kdf_id: int, block: bytes) -> "_Kdf":
        if kdf_id == _KEY_FILE:
            if block:
                raise InvalidFile("malformed header: key-file files carry no KDF parameters", "BC_ERR_INVALID_ARGUMENT")
            return _Kdf(_KEY_FILE, {})
        if kdf_id == _SCRYPT:
            if len(block) != 9 + _KDF_SALT:
                raise InvalidFile("malformed header: scrypt parameter block size", "BC_ERR_INVALID_ARGUMENT")
            logn, r, p = struct.unpack(">BII", block[:9])
            kdf = _Kdf(_SCRYPT, {"logN": logn, "r": r, "p": p}, block[9:])
        elif kdf_id == _ARGON2ID:
            if len(block) != 12 + _KDF_SALT:
                raise InvalidFile("malformed header: argon2id parameter block size", "BC_ERR_INVALID_ARGUMENT")
            t, m, p = struct.unpack(">III", block[:12])
            kdf = _Kdf(_ARGON2ID, {"t": t, "m": m, "p": p}, block[12:])
        else:
            raise InvalidFile(f"malformed header: unknown key derivation {kdf_id}", "BC_ERR_INVALID_ARGUMENT")
        problem = kdf.bounds_problem()
        if problem:
            raise InvalidFile("malformed header: " + problem, "BC_ERR_INVALID_ARGUMENT")
        return kdf

    def bounds_problem(self) -> str:
        p = self.params
        if self.id == _SCRYPT:
            if not 1 <= p["logN"] <= _SCRYPT_MAX_LOGN:
                return f"scrypt logN {p['logN']} outside 1..{_SCRYPT_MAX_LOGN}"
            if not 1 <= p["r"] <= _SCRYPT_MAX_R:
                return f"scrypt r {p['r']} outside 1..{_SCRYPT_MAX_R}"
            if not 1 <= p["p"] <= _SCRYPT_MAX_P:
                return f"scrypt p {p['p']} outside 1..{_SCRYPT_MAX_P}"
            if 128 * p["r"] << p["logN"] > _KDF_MAX_MEMORY:
                return "scrypt needs more than 4 GiB of memory"
        elif self.id == _ARGON2ID:
            if not 1 <= p["t"] <= _ARGON_MAX_T:
                return f"argon2id t {p['t']} outside 1..{_ARGON_MAX_T}"
            if not 1 <= p["p"] <= _ARGON_MAX_P:
                return f"argon2id p {p['p']} outside 1..{_ARGON_MAX_P}"
            if p["m"] < 8 * p["p"]:
                return f"argon2id m {p['m']} KiB under 8*p"
            if p["m"] * 1024 > _KDF_MAX_MEMORY:
                return f"argon2id m {p['m']} KiB over the 4 GiB bound"
        return ""

    def derive(self, passphrase: bytes) -> bytes:
        p = self.params
        if self.id == _SCRYPT:
            n = 1 << p["logN"]
            need = 128 * p["r"] * n + 128 * p["r"] * p["p"] + (1 << 20)
            if need >= 1 << 31:
                raise UnsupportedAlgorithm(
                    "this file's scrypt cost needs more memory than Python's hashlib.scrypt allows (2 GiB); "
                    "decrypt it with the bulkcrypt command",
                    "BC_ERR_NOT_SUPPORTED",
                )
            return hashlib.scrypt(passphrase, salt=self.salt, n=n, r=p["r"], p=p["p"], maxmem=need, dklen=_MASTER)
        try:
            from argon2.low_level import Type, hash_secret_raw
        except ImportError:
            raise UnsupportedAlgorithm(
                "Argon2id passphrases need the argon2-cffi package (pip install 'bulkcrypt[argon2]')",
                "BC_ERR_NOT_SUPPORTED",
            ) from None
        return hash_secret_raw(passphrase, self.salt, time_cost=p["t"], memory_cost=p["m"], parallelism=p["p"],
                               hash_len=_MASTER, type=Type.ID, version=19)


def _new_kdf(kdf: str, params: dict | None) -> _Kdf:
    name = kdf.lower()
    if name == "scrypt":
        k = _Kdf(_SCRYPT, {**_SCRYPT_DEFAULT, **(params or {})}, secrets.token_bytes(_KDF_SALT))
    elif name == "argon2id":
        k = _Kdf(_ARGON2ID, {**_ARGON_DEFAULT, **(params or {})}, secrets.token_bytes(_KDF_SALT))
    else:
        raise InvalidArgument(f"kdf must be 'scrypt' or 'argon2id', not {kdf!r}", "BC_ERR_INVALID_ARGUMENT")
    unknown = set(k.params) - set(_SCRYPT_DEFAULT if k.id == _SCRYPT else _ARGON_DEFAULT)
    if unknown:
        raise InvalidArgument(f"kdf_params: unknown {sorted(unknown)} for {name}", "BC_ERR_INVALID_ARGUMENT")
    problem = k.bounds_problem()
    if problem:
        raise InvalidArgument("kdf_params: " + problem, "BC_ERR_INVALID_ARGUMENT")
    return k


def _key_source(key, key_file, passphrase) -> tuple[bytes | None, bytes | None]:
    """(master key, passphrase): exactly one of the three must be given."""
    given = [x is not None for x in (key, key_file, passphrase)]
    if sum(given) != 1:
        raise InvalidArgument("give exactly one of key, key_file and passphrase", "BC_ERR_INVALID_ARGUMENT")
    if key is not None:
        master = bytes(key)
        if len(master) != _MASTER:
            raise InvalidArgument(f"key must be {_MASTER} bytes, not {len(master)}", "BC_ERR_KEY_SIZE")
        return master, None
    if key_file is not None:
        return _read_key_file(key_file), None
    return None, _passphrase_bytes(passphrase)


# ---- the header ---------------------------------------------------------------------


@dataclass
class _Header:
    alg_id: int
    algorithm: str
    nonce_size: int
    kdf: _Kdf
    segment_size: int
    file_salt: bytes
    key_check: bytes
    nonce_prefix: bytes
    raw: bytes = b""

    def encode(self) -> bytes:
        kdf = self.kdf.encode()
        fixed = MAGIC + struct.pack(">BBBBI", VERSION, self.alg_id, self.kdf.id, len(kdf), self.segment_size)
        return fixed + self.file_salt + self.key_check + self.nonce_prefix + kdf

    @staticmethod
    def read(f) -> "_Header":
        fixed = f.read(_FIXED)
        if len(fixed) < _FIXED or fixed[:8] != MAGIC:
            raise InvalidFile("not a bulkcrypt file (bad magic or shorter than a header)", "BC_ERR_INVALID_ARGUMENT")
        version, alg_id, kdf_id, kdf_len, segment = struct.unpack(">BBBBI", fixed[8:16])
        if version != VERSION:
            raise InvalidFile(f"unsupported format version {version} (this reader knows {VERSION})",
                              "BC_ERR_INVALID_ARGUMENT")
        if alg_id not in _BY_ID:
            raise InvalidFile(f"unknown algorithm id {alg_id}", "BC_ERR_INVALID_ARGUMENT")
        if not _MIN_SEGMENT <= segment <= _MAX_SEGMENT:
            raise InvalidFile(f"segment size {segment} outside {_MIN_SEGMENT}..{_MAX_SEGMENT}",
                              "BC_ERR_INVALID_ARGUMENT")
        name, nonce_size = _BY_ID[alg_id]
        rest = f.read(nonce_size - 5 + kdf_len)
        if len(rest) != nonce_size - 5 + kdf_len:
            raise InvalidFile("truncated header", "BC_ERR_INVALID_ARGUMENT")
        kdf = _Kdf.decode(kdf_id, rest[nonce_size - 5:])
        return _Header(alg_id, name, nonce_size, kdf, segment, fixed[16:48], fixed[48:64], rest[: nonce_size - 5],
                       fixed + rest)


def _file_key(master: bytes, h: _Header, key_size: int) -> bytes:
    return _hkdf_sha256(master, h.file_salt, b"bulkcrypt v1 file key " + h.algorithm.encode(), key_size)


def _key_check(master: bytes, file_salt: bytes) -> bytes:
    return _hkdf_sha256(master, file_salt, b"bulkcrypt v1 key check", _KEY_CHECK)


def _nonce(prefix: bytes, index: int, last: bool) -> bytes:
    return prefix + struct.pack(">IB", index, 1 if last else 0)


# ---- output -------------------------------------------------------------------------


class _TempOutput:
    """A temporary file beside dst, renamed over it on commit, deleted otherwise."""

    def __init__(self, dst: PathLike, overwrite: bool) -> None:
        self.dst = os.fspath(dst)
        self.overwrite = overwrite
        if not overwrite and os.path.lexists(self.dst):
            raise FileExistsError(f"'{self.dst}' exists (pass overwrite=True to replace it)")
        directory, base = os.path.split(os.path.abspath(self.dst))
        for _ in range(100):
            path = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.bctmp")
            try:
                self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                # Held while the file is ours: the command removes unlocked leftovers of
                # interrupted runs (.NAME.*.bctmp), never one being written.
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(f"cannot create a temporary file in '{directory}'")
        self.path = path

    def commit(self) -> None:
        os.fsync(self.fd)
        os.close(self.fd)
        self.fd = -1
        if self.overwrite:
            os.replace(self.path, self.dst)
        else:
            try:
                os.link(self.path, self.dst)  # refuses to replace a file that appeared meanwhile
            except FileExistsError:
                os.unlink(self.path)
                raise FileExistsError(f"'{self.dst}' appeared while writing (pass overwrite=True)") from None
            os.unlink(self.path)

    def discard(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _workers(workers: int | None) -> int:
    return max(1, workers if workers else min(64, os.cpu_count() or 1))


def _run_segments(count: int, workers: int, task) -> None:
    """task(i) for every segment on `workers` threads, each pulling the next index; the
    first failure stops the rest and is raised."""
    if count == 1 or workers == 1:
        for i in range(count):
            task(i)
        return
    next_index = iter(range(count))
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker() -> None:
        while True:
            with lock:
                if errors:
                    return
                i = next(next_index, None)
            if i is None:
                return
            try:
                task(i)
            except BaseException as e:  # noqa: BLE001 - re-raised by the caller
                with lock:
                    errors.append(e)
                return

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(workers, count))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _read_exact(fd: int, buf: memoryview, offset: int) -> None:
    got = 0
    while got < len(buf):
        n = os.preadv(fd, [buf[got:]], offset + got)
        if n == 0:
            raise InvalidFile("the input changed while it was read (shorter than its size)", "BC_ERR_INPUT_LENGTH")
        got += n


def _write_all(fd: int, buf: memoryview, offset: int) -> None:
    done = 0
    while done < len(buf):
        done += os.pwrite(fd, buf[done:], offset + done)


# ---- one file's segments ------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """Everything that seals or opens segments of one container: small and picklable, so
    that Dask tasks on other machines can work on ranges of it (bulkcrypt.dask). It holds
    the file key."""

    algorithm: str
    file_key: bytes
    header: bytes
    nonce_prefix: bytes
    segment_size: int
    size: int  # plaintext bytes
    count: int  # segments

    @property
    def container_size(self) -> int:
        return len(self.header) + self.size + _TAG * self.count

    def nonce(self, i: int) -> bytes:
        return _nonce(self.nonce_prefix, i, i == self.count - 1)

    def plain_range(self, i: int) -> tuple[int, int]:
        start = i * self.segment_size
        return start, min(self.segment_size, self.size - start)

    def sealed_offset(self, i: int) -> int:
        return len(self.header) + i * (self.segment_size + _TAG)


def _new_master(key, key_file, passphrase, kdf: str, kdf_params: dict | None) -> tuple[bytes, _Kdf]:
    """The master key of a new file and how the header records its source."""
    master, phrase = _key_source(key, key_file, passphrase)
    if phrase is None:
        return master, _Kdf(_KEY_FILE, {})
    k = _new_kdf(kdf, kdf_params)
    _check_new_passphrase(phrase)
    return k.derive(phrase), k


def _plan_encryption(size: int, master: bytes, k: _Kdf, algorithm: str, segment_size: int) -> _Plan:
    name = algorithm.lower()
    if name not in _BY_NAME:
        raise UnsupportedAlgorithm(f"'{algorithm}' is not a container algorithm ({', '.join(_BY_NAME)})",
                                   "BC_ERR_UNKNOWN_ALGORITHM")
    if not _MIN_SEGMENT <= segment_size <= _MAX_SEGMENT:
        raise InvalidArgument(f"segment_size {segment_size} outside {_MIN_SEGMENT}..{_MAX_SEGMENT}",
                              "BC_ERR_INVALID_ARGUMENT")
    count = max(1, -(-size // segment_size))
    if count > _MAX_SEGMENTS:
        raise InvalidArgument(f"{size} bytes need {count} segments of {segment_size}; a file holds at most "
                              f"2^32 (use a larger segment_size)", "BC_ERR_MESSAGE_TOO_LONG")
    alg_id, nonce_size = _BY_NAME[name]
    file_salt = secrets.token_bytes(_FILE_SALT)
    h = _Header(alg_id, name, nonce_size, k, segment_size, file_salt, _key_check(master, file_salt),
                secrets.token_bytes(nonce_size - 5))
    key_size = _native.algorithm_info(name)["key_size"]
    return _Plan(name, _file_key(master, h, key_size), h.encode(), h.nonce_prefix, segment_size, size, count)


def _read_header(src: PathLike) -> _Header:
    with open(src, "rb", buffering=0) as f:
        return _Header.read(f)


def _master_for(h: _Header, key, key_file, passphrase) -> bytes:
    """The master key that opens a file with header h: derived, and its key check compared."""
    master, phrase = _key_source(key, key_file, passphrase)
    if phrase is not None:
        if h.kdf.id == _KEY_FILE:
            raise InvalidKey("this file was encrypted with a key file, not a passphrase", "BC_ERR_AUTH_FAILED")
        master = h.kdf.derive(phrase)
    elif h.kdf.id != _KEY_FILE:
        raise InvalidKey("this file was encrypted with a passphrase, not a key", "BC_ERR_AUTH_FAILED")
    _check_master(h, master)
    return master


def _check_master(h: _Header, master: bytes) -> None:
    if not hmac.compare_digest(_key_check(master, h.file_salt), h.key_check):
        raise InvalidKey("wrong key or passphrase for this file (its key check differs)", "BC_ERR_AUTH_FAILED")


def _plan_decryption(h: _Header, master: bytes, container_size: int) -> _Plan:
    stride = h.segment_size + _TAG
    body = container_size - len(h.raw)
    count = max(1, -(-body // stride))
    last_len = body - (count - 1) * stride
    if body < _TAG or last_len < _TAG:
        raise InvalidTag("truncated: the file ends inside a segment's tag", "BC_ERR_AUTH_FAILED")
    if count > _MAX_SEGMENTS:
        raise InvalidFile(f"{count} segments: more than a file can hold (2^32)", "BC_ERR_INVALID_ARGUMENT")
    key_size = _native.algorithm_info(h.algorithm)["key_size"]
    return _Plan(h.algorithm, _file_key(master, h, key_size), h.raw, h.nonce_prefix, h.segment_size,
                 body - _TAG * count, count)


def _seal_segments(plan: _Plan, aead, in_fd: int, out_fd: int, first: int, last: int, buf: memoryview) -> None:
    """Seals segments [first, last) of in_fd into out_fd at their fixed offsets: running a
    range twice writes the same bytes (a retried task is harmless)."""
    for i in range(first, last):
        start, n = plan.plain_range(i)
        _read_exact(in_fd, buf[:n], start)
        m = aead.encrypt_into(plan.nonce(i), buf[:n], plan.header, buf)
        _write_all(out_fd, buf[:m], plan.sealed_offset(i))


def _open_segments(plan: _Plan, aead, in_fd: int, out_fd: int, first: int, last: int, buf: memoryview) -> None:
    """Opens segments [first, last), writing each one's plaintext only after its tag
    verified; InvalidTag names the first that fails."""
    for i in range(first, last):
        _, n = plan.plain_range(i)
        sealed = buf[: n + _TAG]
        _read_exact(in_fd, sealed, plan.sealed_offset(i))
        try:
            m = aead.decrypt_into(plan.nonce(i), sealed, plan.header, buf)
        except InvalidTag:
            raise InvalidTag(f"segment {i} of {plan.count} failed authentication: the file is damaged, truncated "
                             "or was tampered with; nothing was written", "BC_ERR_AUTH_FAILED") from None
        _write_all(out_fd, buf[:m], i * plan.segment_size)


def _segment_buffer(plan: _Plan) -> memoryview:
    return memoryview(bytearray(plan.segment_size + _TAG))


# ---- the two calls --------------------------------------------------------------------


def encrypt_file(src: PathLike, dst: PathLike, *, key: bytes | None = None, key_file: PathLike | None = None,
                 passphrase: str | bytes | None = None, algorithm: str = "aes-256-gcm", kdf: str = "scrypt",
                 kdf_params: dict | None = None, segment_size: int = DEFAULT_SEGMENT, context=None,
                 overwrite: bool = False, workers: int | None = None) -> FileResult:
    """Encrypts the file src into a bulkcrypt container at dst (what ``bulkcrypt encrypt``
    writes). The key is one of: ``key`` (32 bytes, as a key file holds), ``key_file`` (a
    file written by ``bulkcrypt keygen``) or ``passphrase`` (through ``kdf``: "scrypt" or
    "argon2id", with ``kdf_params`` such as ``{"logN": 17}`` or ``{"t": 3, "m": 65536, "p": 4}``).
    dst is written whole or not at all; an existing dst is replaced only with overwrite=True."""
    if algorithm.lower() not in _BY_NAME:
        raise UnsupportedAlgorithm(f"'{algorithm}' is not a container algorithm ({', '.join(_BY_NAME)})",
                                   "BC_ERR_UNKNOWN_ALGORITHM")
    if not _MIN_SEGMENT <= segment_size <= _MAX_SEGMENT:
        raise InvalidArgument(f"segment_size {segment_size} outside {_MIN_SEGMENT}..{_MAX_SEGMENT}",
                              "BC_ERR_INVALID_ARGUMENT")
    master, k = _new_master(key, key_file, passphrase, kdf, kdf_params)
    return _encrypt_with_master(src, dst, master, k, algorithm, segment_size, context, overwrite, workers)


def _encrypt_with_master(src, dst, master: bytes, k: _Kdf, algorithm: str, segment_size: int, context,
                         overwrite: bool, workers: int | None) -> FileResult:
    from . import AEAD

    in_fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC)
    try:
        size = os.fstat(in_fd).st_size
        plan = _plan_encryption(size, master, k, algorithm, segment_size)
        aead = AEAD(plan.algorithm, plan.file_key, context)
        out = _TempOutput(dst, overwrite)
        try:
            os.ftruncate(out.fd, plan.container_size)
            _write_all(out.fd, memoryview(plan.header), 0)
            local = threading.local()

            def seal(i: int) -> None:
                if not hasattr(local, "buf"):
                    local.buf = _segment_buffer(plan)
                _seal_segments(plan, aead, in_fd, out.fd, i, i + 1, local.buf)

            _run_segments(plan.count, _workers(workers), seal)
            if os.fstat(in_fd).st_size != size:
                raise InvalidFile("the input changed size while it was read", "BC_ERR_INPUT_LENGTH")
            out.commit()
        except BaseException:
            out.discard()
            raise
    finally:
        os.close(in_fd)
    return FileResult(plan.algorithm, plan.count, plan.size, plan.container_size)


def decrypt_file(src: PathLike, dst: PathLike, *, key: bytes | None = None, key_file: PathLike | None = None,
                 passphrase: str | bytes | None = None, context=None, overwrite: bool = False,
                 workers: int | None = None) -> FileResult:
    """Decrypts a bulkcrypt container (from ``bulkcrypt encrypt`` or encrypt_file) into
    dst. Every segment is verified before its plaintext is written to a temporary file,
    which becomes dst only when all of them verified: on InvalidTag (naming the segment),
    InvalidKey or InvalidFile nothing is left at dst."""
    _key_source(key, key_file, passphrase)  # argument errors before touching the input
    h = _read_header(src)
    return _decrypt_with_master(src, dst, h, _master_for(h, key, key_file, passphrase), context, overwrite,
                                workers)


def _decrypt_with_master(src, dst, h: _Header, master: bytes, context, overwrite: bool,
                         workers: int | None) -> FileResult:
    from . import AEAD

    in_fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC)
    try:
        plan = _plan_decryption(h, master, os.fstat(in_fd).st_size)
        aead = AEAD(plan.algorithm, plan.file_key, context)
        out = _TempOutput(dst, overwrite)
        try:
            os.ftruncate(out.fd, plan.size)
            local = threading.local()

            def open_segment(i: int) -> None:
                if not hasattr(local, "buf"):
                    local.buf = _segment_buffer(plan)
                _open_segments(plan, aead, in_fd, out.fd, i, i + 1, local.buf)

            _run_segments(plan.count, _workers(workers), open_segment)
            out.commit()
        except BaseException:
            out.discard()
            raise
    finally:
        os.close(in_fd)
    return FileResult(plan.algorithm, plan.count, plan.size, plan.container_size)

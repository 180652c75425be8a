"""bulkcrypt on a Dask cluster: one large file, a directory tree, or a Dask array,
encrypted and decrypted by many workers (``pip install ".[dask]"``).

Files are the command line's containers (docs/format.md), byte for byte:

- One file: the client writes the header and sizes a temporary file beside the
  destination; tasks seal ranges of segments at their fixed offsets. A task run twice
  (its worker died) writes the same bytes, so a retried job is exact. Decryption
  verifies every segment in tasks and renames the result into place only when all
  passed: no unverified plaintext at the destination, as ``bulkcrypt decrypt``.
- A tree: one container a file, a task each, with a manifest that makes the job
  resumable (files whose source and container are unchanged are skipped).
- Arrays: each chunk sealed under a key of the array's own (HKDF from the key and a
  random salt), its nonce the chunk's index, its associated data the array's
  description, so chunks cannot be swapped, moved or replayed into another array.

Keys travel to the workers inside task arguments. Dask protects them only as well as
its communications are protected: on more than one machine, configure TLS
(``distributed.comm.require-encryption: true`` and a ``Security`` object with
certificates); these functions refuse a cluster reached over plain TCP on another
host unless ``allow_insecure=True``. docs/dask.md has the details.

The destination paths must be on a file system every worker and the client share (a
local disk for a LocalCluster, NFS, Lustre, GPFS...), where a file can be written at
offsets; object stores cannot, so containers go to such a path first.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from typing import Any, Iterable

from . import files as _files
from .exceptions import Error, InvalidArgument, InvalidFile

__all__ = ["encrypt_file", "decrypt_file", "encrypt_tree", "decrypt_tree", "encrypt_array", "decrypt_array",
           "EncryptedArray"]

DEFAULT_TASK_BYTES = 256 << 20  # plaintext a task seals: large enough that scheduling is noise
MANIFEST = ".bulkcrypt-manifest.jsonl"
_SUFFIX = ".bc"


# ---- where work runs ---------------------------------------------------------------------

_contexts: dict = {}


def _context(device: str | None):
    """One Context a worker process and device (opened on first use, then shared by the
    worker's threads, as the C API allows). device: None for the default context, a
    device string ("cpu", "cuda:0"), or "DEVICE OPTIONS" (e.g. "cpu threads=4": a node
    running several workers gives each a share of its cores)."""
    from . import Context, default_context

    if device is None:
        return default_context()
    ctx = _contexts.get(device)
    if ctx is None:
        name, _, options = device.partition(" ")
        ctx = _contexts.setdefault(device, Context(name, options or None))
    return ctx


def _client(client):
    if client is not None:
        return client
    from distributed import get_client

    return get_client()


def _check_transport(client, allow_insecure: bool) -> None:
    """Keys ride in task arguments: refuse plain TCP to another host unless told."""
    if allow_insecure:
        return
    address = str(getattr(client.scheduler, "address", "") or "")
    if address.startswith(("tls://", "inproc://", "ucx://")):
        return
    host = address.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")
    if host in ("127.0.0.1", "localhost", "::1", ""):
        return
    raise InvalidArgument(
        f"the scheduler is reached over plain TCP ({address}): keys sent to workers would cross the network in "
        "the clear. Configure TLS (distributed.comm.require-encryption and a Security with certificates) or pass "
        "allow_insecure=True", "BC_ERR_INVALID_ARGUMENT")


def _ranges(count: int, per_task: int) -> list[tuple[int, int]]:
    return [(a, min(count, a + per_task)) for a in range(0, count, per_task)]


def _run(client, fn, calls: list[tuple], name: str, retries: int, progress: bool = False) -> list:
    """Submits fn(*args) for each args (pure=False: every call is work), waits for all,
    and raises the first failure after cancelling the rest. The tasks show on the
    dashboard as bulkcrypt-NAME; progress=True also draws Dask's progress bar."""
    from distributed import wait

    token = secrets.token_hex(4)
    futures = [client.submit(fn, *args, key=f"bulkcrypt-{name}-{token}-{i}", pure=False, retries=retries)
               for i, args in enumerate(calls)]
    try:
        if progress:
            from distributed import progress as bar

            bar(futures)
        wait(futures)
        errors = [f for f in futures if f.status == "error"]
        if errors:
            errors[0].result()  # raises the task's exception
        return [f.result() for f in futures]
    finally:
        client.cancel(futures)


# ---- one file -----------------------------------------------------------------------------


def _segments_task(plan: _files._Plan, src: str, tmp: str, first: int, last: int, device: str | None,
                   sealing: bool) -> int:
    """Seals (or opens) segments [first, last) of src into tmp at their fixed offsets."""
    from . import AEAD

    aead = AEAD(plan.algorithm, plan.file_key, _context(device))
    work = _files._seal_segments if sealing else _files._open_segments
    in_fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC)
    out_fd = os.open(tmp, os.O_WRONLY | os.O_CLOEXEC)
    try:
        work(plan, aead, in_fd, out_fd, first, last, _files._segment_buffer(plan))
    finally:
        os.close(in_fd)
        os.close(out_fd)
    return last - first


def _path(p) -> str:
    p = os.fspath(p)
    if p.startswith("file://"):
        return p[len("file://"):]
    if "://" in p:
        raise InvalidArgument(f"{p}: only paths on a shared file system (or file:// URLs) can be written at "
                              "offsets by many workers", "BC_ERR_NOT_SUPPORTED")
    return os.path.abspath(p)


def encrypt_file(src, dst, *, key: bytes | None = None, key_file=None, passphrase=None,
                 algorithm: str = "aes-256-gcm", kdf: str = "scrypt", kdf_params: dict | None = None,
                 segment_size: int = _files.DEFAULT_SEGMENT, task_bytes: int = DEFAULT_TASK_BYTES,
                 client=None, device: str | None = None, overwrite: bool = False, retries: int = 2,
                 allow_insecure: bool = False, progress: bool = False) -> _files.FileResult:
    """bulkcrypt.encrypt_file across a Dask cluster: the same container, sealed by tasks
    of ``task_bytes`` of plaintext each on the workers (``device``: the Context they open,
    "auto" by default). Paths are on a file system the client and every worker share."""
    client = _client(client)
    _check_transport(client, allow_insecure)
    src, dst = _path(src), _path(dst)
    master, k = _files._new_master(key, key_file, passphrase, kdf, kdf_params)
    plan = _files._plan_encryption(os.stat(src).st_size, master, k, algorithm, segment_size)
    out = _files._TempOutput(dst, overwrite)
    try:
        os.ftruncate(out.fd, plan.container_size)
        _files._write_all(out.fd, memoryview(plan.header), 0)
        per_task = max(1, task_bytes // segment_size)
        _run(client, _segments_task, [(plan, src, out.path, a, b, device, True)
                                      for a, b in _ranges(plan.count, per_task)],
             "seal", retries, progress)
        if os.stat(src).st_size != plan.size:
            raise InvalidFile("the input changed size while it was read", "BC_ERR_INPUT_LENGTH")
        out.commit()
    except BaseException:
        out.discard()
        raise
    return _files.FileResult(plan.algorithm, plan.count, plan.size, plan.container_size)


def decrypt_file(src, dst, *, key: bytes | None = None, key_file=None, passphrase=None,
                 task_bytes: int = DEFAULT_TASK_BYTES, client=None, device: str | None = None,
                 overwrite: bool = False, retries: int = 2, allow_insecure: bool = False,
                 progress: bool = False) -> _files.FileResult:
    """bulkcrypt.decrypt_file across a Dask cluster: every segment verified by a task
    before its plaintext is written to a temporary file beside dst, renamed into place
    only when all verified. A failure (InvalidTag naming the segment, InvalidKey,
    InvalidFile) leaves nothing at dst."""
    client = _client(client)
    _check_transport(client, allow_insecure)
    src, dst = _path(src), _path(dst)
    _files._key_source(key, key_file, passphrase)
    h = _files._read_header(src)
    plan = _files._plan_decryption(h, _files._master_for(h, key, key_file, passphrase), os.stat(src).st_size)
    out = _files._TempOutput(dst, overwrite)
    try:
        os.ftruncate(out.fd, plan.size)
        per_task = max(1, task_bytes // plan.segment_size)
        _run(client, _segments_task, [(plan, src, out.path, a, b, device, False)
                                      for a, b in _ranges(plan.count, per_task)],
             "open", retries, progress)
        out.commit()
    except BaseException:
        out.discard()
        raise
    return _files.FileResult(plan.algorithm, plan.count, plan.size, plan.container_size)


# ---- a tree of files ----------------------------------------------------------------------


@dataclass(frozen=True)
class TreeResult:
    """What encrypt_tree or decrypt_tree did: files done now, files skipped as already
    done (a resumed job), bytes of plaintext processed now, and the manifest's path."""

    done: int
    skipped: int
    plaintext_bytes: int
    manifest: str


def _walk(root: str) -> Iterable[str]:
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p) and n != MANIFEST:
                yield os.path.relpath(p, root)


def _read_manifest(path: str) -> dict[str, dict]:
    entries: dict[str, dict] = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    e = json.loads(line)
                    entries[e["path"]] = e
    except FileNotFoundError:
        pass
    return entries


def _stat_key(p: str) -> tuple[int, int]:
    st = os.stat(p)
    return st.st_size, st.st_mtime_ns


def _tree_encrypt_task(src: str, dst: str, master: bytes, kdf: _files._Kdf, algorithm: str, segment_size: int,
                       device: str | None) -> dict:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    size, mtime = _stat_key(src)
    r = _files._encrypt_with_master(src, dst, master, kdf, algorithm, segment_size, _context(device), True, 1)
    return {"size": size, "mtime_ns": mtime, "container_size": r.container_bytes}


def encrypt_tree(src_dir, dst_dir, *, key: bytes | None = None, key_file=None, passphrase=None,
                 algorithm: str = "aes-256-gcm", kdf: str = "scrypt", kdf_params: dict | None = None,
                 segment_size: int = _files.DEFAULT_SEGMENT, client=None, device: str | None = None,
                 retries: int = 2, allow_insecure: bool = False) -> TreeResult:
    """Every regular file under src_dir into its own container at dst_dir/RELATIVE.bc,
    one task a file. dst_dir/.bulkcrypt-manifest.jsonl records each file done (its
    source's size and modification time, its container's size), appended as tasks
    finish, so a job run again after a failure skips what is done and unchanged. A
    passphrase is stretched once, on the client (every container records the same KDF
    salt and cost), not once a file."""
    from distributed import as_completed

    client = _client(client)
    _check_transport(client, allow_insecure)
    src_dir, dst_dir = _path(src_dir), _path(dst_dir)
    os.makedirs(dst_dir, exist_ok=True)
    manifest = os.path.join(dst_dir, MANIFEST)
    done = _read_manifest(manifest)
    master, k = _files._new_master(key, key_file, passphrase, kdf, kdf_params)
    todo, skipped = [], 0
    for rel in _walk(src_dir):
        s, d = os.path.join(src_dir, rel), os.path.join(dst_dir, rel + _SUFFIX)
        e = done.get(rel)
        if e and (e["size"], e["mtime_ns"]) == _stat_key(s) and os.path.isfile(d) and \
                os.path.getsize(d) == e["container_size"]:
            skipped += 1
            continue
        todo.append((rel, s, d))
    token = secrets.token_hex(4)
    futures = {client.submit(_tree_encrypt_task, s, d, master, k, algorithm, segment_size, device,
                             key=f"bulkcrypt-tree-{token}-{i}", pure=False, retries=retries): rel
               for i, (rel, s, d) in enumerate(todo)}
    total, failures = 0, []
    with open(manifest, "a") as m:
        for fut in as_completed(futures):
            rel = futures[fut]
            if fut.status == "error":
                failures.append((rel, fut.exception()))
                continue
            e = fut.result()
            total += e["size"]
            m.write(json.dumps({"path": rel, "container": rel + _SUFFIX, **e}) + "\n")
            m.flush()
    if failures:
        rel, exc = failures[0]
        if isinstance(exc, Error):
            raise type(exc)(f"{rel}: {exc} ({len(failures)} file(s) failed; run again to resume)",
                            exc.status) from exc
        raise exc
    return TreeResult(len(todo), skipped, total, manifest)


def _tree_decrypt_task(src: str, dst: str, master: bytes, device: str | None) -> int:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    h = _files._read_header(src)
    _files._check_master(h, master)
    return _files._decrypt_with_master(src, dst, h, master, _context(device), True, 1).plaintext_bytes


def decrypt_tree(src_dir, dst_dir, *, key: bytes | None = None, key_file=None, passphrase=None, client=None,
                 device: str | None = None, retries: int = 2, allow_insecure: bool = False) -> TreeResult:
    """Every container (*.bc) under src_dir back to dst_dir/RELATIVE (without .bc), one
    task a file, each verified whole before it appears. Passphrases are stretched on
    the client, once for each KDF salt the containers record."""
    client = _client(client)
    _check_transport(client, allow_insecure)
    src_dir, dst_dir = _path(src_dir), _path(dst_dir)
    jobs, masters = [], {}
    for rel in _walk(src_dir):
        if not rel.endswith(_SUFFIX):
            continue
        s = os.path.join(src_dir, rel)
        h = _files._read_header(s)
        kdf_id = (h.kdf.id, h.kdf.encode())
        if kdf_id not in masters:
            masters[kdf_id] = _files._master_for(h, key, key_file, passphrase)
        jobs.append((s, os.path.join(dst_dir, rel[: -len(_SUFFIX)]), masters[kdf_id], device))
    sizes = _run(client, _tree_decrypt_task, jobs, "untree", retries)
    return TreeResult(len(jobs), 0, sum(sizes), "")


# ---- arrays -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EncryptedArray:
    """A sealed Dask array: ``data`` is a 1-D uint8 Dask array whose chunks are the sealed
    chunks of the original (ciphertext || 16-byte tag, in the row-major order of the chunk
    grid); ``meta`` (JSON-serialisable, not secret) is what opening needs beside the key:
    shape, dtype, chunks, the array module, the algorithm and the array's salt."""

    data: Any
    meta: dict


def _array_key(key: bytes, meta: dict) -> bytes:
    from . import _native

    size = _native.algorithm_info(meta["algorithm"])["key_size"]
    return _files._hkdf_sha256(bytes(key), bytes.fromhex(meta["salt"]),
                               b"bulkcrypt v1 array key " + meta["algorithm"].encode(), size)


def _array_aad(meta: dict) -> bytes:
    # the description every chunk is bound to (not the salt: it already keys the array)
    desc = {k: meta[k] for k in ("version", "shape", "dtype", "chunks", "algorithm")}
    return hashlib.sha256(json.dumps(desc, sort_keys=True).encode()).digest()


def _chunk_nonce(index: int, nonce_size: int) -> bytes:
    return index.to_bytes(nonce_size, "big")


def _seal_block(block, array_key: bytes, algorithm: str, index: int, aad: bytes, device: str | None):
    from . import AEAD, _native

    a = AEAD(algorithm, array_key, _context(device))
    flat = block.reshape(-1).view("uint8") if block.size else block.reshape(-1).view("uint8")
    return a.encrypt(_chunk_nonce(index, _native.algorithm_info(algorithm)["iv_size"]), flat, aad)


def _open_block(sealed, array_key: bytes, algorithm: str, index: int, aad: bytes, dtype: str, shape: tuple,
                device: str | None):
    from . import AEAD, _native

    a = AEAD(algorithm, array_key, _context(device))
    plain = a.decrypt(_chunk_nonce(index, _native.algorithm_info(algorithm)["iv_size"]), sealed, aad)
    return plain.view(dtype).reshape(shape)


def encrypt_array(x, key: bytes, *, algorithm: str = "aes-256-gcm", device: str | None = None) -> EncryptedArray:
    """Seals a Dask array chunk by chunk (NumPy or CuPy chunks; CuPy chunks stay on their
    GPU). ``key``: 32 bytes of the caller's; the array gets a key of its own from it and a
    random salt, so nonces (the chunk's index) never repeat across arrays."""
    import dask.array as da
    import numpy as np
    from dask import delayed

    key = bytes(key)
    if len(key) != 32:
        raise InvalidArgument(f"key must be 32 bytes, not {len(key)}", "BC_ERR_KEY_SIZE")
    from . import _native

    info = _native.algorithm_info(algorithm)
    if info["kind"] != "aead":
        raise InvalidArgument(f"'{algorithm}' is not an AEAD", "BC_ERR_INVALID_ARGUMENT")
    xp = type(x._meta).__module__.split(".")[0]
    meta = {"version": 1, "shape": list(x.shape), "dtype": np.dtype(x.dtype).str,
            "chunks": [list(c) for c in x.chunks], "algorithm": info["name"], "salt": secrets.token_hex(32),
            "module": xp}
    if np.dtype(x.dtype).hasobject:
        raise InvalidArgument("object arrays hold pointers, not data", "BC_ERR_INVALID_ARGUMENT")
    ak, aad = _array_key(key, meta), _array_aad(meta)
    blocks = x.to_delayed().ravel()
    itemsize = np.dtype(x.dtype).itemsize
    sizes = [int(np.prod([x.chunks[d][i] for d, i in enumerate(idx)])) * itemsize
             for idx in np.ndindex(*x.numblocks)]
    empty = x._meta.reshape(-1).view("uint8")[:0]
    parts = [da.from_delayed(delayed(_seal_block, pure=False)(b, ak, info["name"], i, aad, device),
                             shape=(n + info["tag_size"],), dtype=np.uint8, meta=empty)
             for i, (b, n) in enumerate(zip(blocks, sizes))]
    data = da.concatenate(parts) if parts else da.zeros((0,), dtype=np.uint8)
    return EncryptedArray(data, meta)


def decrypt_array(enc: EncryptedArray, key: bytes, *, device: str | None = None):
    """Opens an EncryptedArray back into a Dask array of the original shape, dtype and
    chunks. A chunk that fails authentication makes computing it raise InvalidTag."""
    import dask.array as da
    import numpy as np
    from dask import delayed

    meta = enc.meta
    if meta.get("version") != 1:
        raise InvalidFile(f"unknown encrypted-array version {meta.get('version')}", "BC_ERR_INVALID_ARGUMENT")
    from . import _native

    tag = _native.algorithm_info(meta["algorithm"])["tag_size"]
    ak, aad = _array_key(bytes(key), meta), _array_aad(meta)
    dtype = np.dtype(meta["dtype"])
    chunks = [tuple(c) for c in meta["chunks"]]
    grid = tuple(len(c) for c in chunks)
    sealed = enc.data.to_delayed().ravel()
    if len(sealed) != int(np.prod(grid)):
        raise InvalidFile(f"{len(sealed)} sealed chunks for a grid of {grid}", "BC_ERR_INVALID_ARGUMENT")
    if meta.get("module") == "cupy":
        import cupy

        empty = cupy.empty((0,) * len(grid), dtype=dtype)
    else:
        empty = np.empty((0,) * len(grid), dtype=dtype)
    blocks = np.empty(grid, dtype=object)
    for i, idx in enumerate(np.ndindex(*grid)):
        shape = tuple(chunks[d][j] for d, j in enumerate(idx))
        if enc.data.chunks[0][i] != int(np.prod(shape)) * dtype.itemsize + tag:
            raise InvalidFile(f"sealed chunk {i} has {enc.data.chunks[0][i]} bytes, not what its shape needs",
                              "BC_ERR_INVALID_ARGUMENT")
        blocks[idx] = da.from_delayed(
            delayed(_open_block, pure=False)(sealed[i], ak, meta["algorithm"], i, aad, dtype.str, shape, device),
            shape=shape, dtype=dtype, meta=empty)
    return da.block(blocks.tolist()) if grid else blocks[()]

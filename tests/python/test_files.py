"""bulkcrypt.encrypt_file / decrypt_file against docs/format.md and the bulkcrypt command.

Every container algorithm and key source is exchanged with the command both ways;
the tampering cases of format.md's table must raise before any plaintext reaches the
destination (nothing at dst, no temporary file beside it), and the command must reject
the same bytes. The command is $BULKCRYPT (conftest's `cli` fixture).
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
import struct
import subprocess
import time
from types import SimpleNamespace

import pytest

import bulkcrypt
from bulkcrypt import (
    InvalidArgument,
    InvalidFile,
    InvalidKey,
    InvalidTag,
    UnsupportedAlgorithm,
    decrypt_file,
    encrypt_file,
)
from bulkcrypt.files import FileResult

# docs/format.md's algorithm table: name -> (id, nonce length).
ALGS = {
    "aes-256-gcm": (1, 12),
    "chacha20-poly1305": (2, 12),
    "aes-128-gcm": (3, 12),
    "xchacha20-poly1305": (4, 24),
    "sm4-gcm": (5, 12),
    "aria-128-gcm": (6, 12),
    "aria-192-gcm": (7, 12),
    "aria-256-gcm": (8, 12),
    "seed-128-gcm": (9, 12),
}
MAGIC = b"\x89BCF\r\n\x1a\n"
TAG = 16
SEG = 1024
EXIT_USAGE, EXIT_IO, EXIT_AUTH = 1, 2, 3

# Cheap KDF costs (the same in both spellings), so the whole file stays fast.
# Argon2id m=50 with p=4 is not a multiple of 4*p: both sides must round it alike.
SCRYPT_PY, SCRYPT_CLI = {"logN": 10, "r": 4, "p": 2}, "logN=10,r=4,p=2"
ARGON_PY, ARGON_CLI = {"t": 1, "m": 50, "p": 4}, "t=1,m=50,p=4"
KDFS = {"scrypt": (SCRYPT_PY, SCRYPT_CLI), "argon2id": (ARGON_PY, ARGON_CLI)}

# Non-ASCII on purpose: str is UTF-8 encoded, bytes are taken as they are (unnormalised).
PASS_STR = "correct horse – bätterý stäple ✓"
PASS_BYTES = b"\xff\xfe raw \x80 bytes, not UTF-8 \xc3"


def rand(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def bc(cli: str, *args, rc: int = 0) -> subprocess.CompletedProcess:
    p = subprocess.run([cli, *map(str, args)], capture_output=True, timeout=300)
    assert p.returncode == rc, f"bulkcrypt {' '.join(map(str, args))}: rc={p.returncode}, " \
                               f"wanted {rc}: {p.stderr.decode(errors='replace')}"
    return p


def header_len(blob: bytes) -> int:
    """H = 64 + P + L, from the header's own fields (format.md)."""
    nonce = {i: n for i, n in ALGS.values()}[blob[9]]
    return 64 + (nonce - 5) + blob[11]


def expected_segments(size: int, seg: int) -> int:
    return max(1, -(-size // seg))


def check_result(r: FileResult, alg: str, size: int, seg: int, container: bytes) -> None:
    """FileResult and the file itself against container = H + L + 16 n."""
    n = expected_segments(size, seg)
    assert (r.algorithm, r.segments, r.plaintext_bytes) == (alg, n, size)
    assert r.container_bytes == len(container) == header_len(container) + size + TAG * n


def write(path, data: bytes):
    path.write_bytes(data)
    return path


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def keys(cli, tmp_path):
    """Both key-file formats, written by `bulkcrypt keygen`, and their 32 bytes."""
    d = tmp_path / "keys"
    d.mkdir()
    raw, hexk = d / "raw.key", d / "hex.key"
    bc(cli, "keygen", raw)
    bc(cli, "keygen", "--hex", hexk)
    raw_bytes, hex_text = raw.read_bytes(), hexk.read_bytes()
    # Make sure we really have the two formats docs/cli.md describes.
    assert len(raw_bytes) == 32
    assert len(hex_text) == 65 and hex_text.endswith(b"\n")
    return SimpleNamespace(raw=raw, hex=hexk, raw_bytes=raw_bytes, hex_bytes=bytes.fromhex(hex_text.decode()))


def pass_file(tmp_path, phrase: str | bytes):
    """A --passphrase-file holding phrase as its first line."""
    data = phrase.encode("utf-8") if isinstance(phrase, str) else phrase
    return write(tmp_path / "pass.txt", data + b"\n")


# ---- interop: every algorithm, every key source, both directions ---------------------------


@pytest.mark.parametrize("alg", list(ALGS))
def test_key_file_interop(cli, keys, tmp_path, alg):
    data = rand(3 * SEG + 5, 1)
    src = write(tmp_path / "plain", data)

    # Python -> command.
    py = tmp_path / "py.bcx"
    r = encrypt_file(src, py, key_file=keys.raw, algorithm=alg, segment_size=SEG, workers=4)
    blob = py.read_bytes()
    check_result(r, alg, len(data), SEG, blob)
    # The header's fixed fields, as format.md lays them out.
    assert blob[:8] == MAGIC
    assert blob[8:12] == bytes([1, ALGS[alg][0], 0, 0])
    assert struct.unpack(">I", blob[12:16])[0] == SEG
    bc(cli, "decrypt", "-k", keys.raw, py, tmp_path / "cli.out")
    assert (tmp_path / "cli.out").read_bytes() == data

    # Command -> Python.
    cl = tmp_path / "cli.bcx"
    bc(cli, "encrypt", "-k", keys.raw, "-a", alg, "--segment-size", SEG, src, cl)
    r = decrypt_file(cl, tmp_path / "py.out", key_file=keys.raw, workers=4)
    assert (tmp_path / "py.out").read_bytes() == data
    check_result(r, alg, len(data), SEG, cl.read_bytes())


@pytest.mark.parametrize("fmt", ["raw", "hex"])
@pytest.mark.parametrize("alg", list(ALGS))
def test_key_bytes_interop(cli, keys, tmp_path, alg, fmt):
    """key=bytes is the same master key as the key file holding them (raw or hex)."""
    keyfile = keys.raw if fmt == "raw" else keys.hex
    key = keys.raw_bytes if fmt == "raw" else keys.hex_bytes
    data = rand(2 * SEG + 17, 2)
    src = write(tmp_path / "plain", data)

    py = tmp_path / "py.bcx"
    encrypt_file(src, py, key=key, algorithm=alg, segment_size=SEG)
    bc(cli, "decrypt", "-k", keyfile, py, tmp_path / "cli.out")
    assert (tmp_path / "cli.out").read_bytes() == data

    cl = tmp_path / "cli.bcx"
    bc(cli, "encrypt", "-k", keyfile, "-a", alg, "--segment-size", SEG, src, cl)
    decrypt_file(cl, tmp_path / "py.out", key=key)
    assert (tmp_path / "py.out").read_bytes() == data
    # And the key file itself, in this format.
    decrypt_file(cl, tmp_path / "py2.out", key_file=keyfile)
    assert (tmp_path / "py2.out").read_bytes() == data


@pytest.mark.parametrize("ptype", ["str", "bytes"])
@pytest.mark.parametrize("kdf", list(KDFS))
@pytest.mark.parametrize("alg", list(ALGS))
def test_passphrase_interop(cli, tmp_path, alg, kdf, ptype):
    phrase = PASS_STR if ptype == "str" else PASS_BYTES
    pw = pass_file(tmp_path, phrase)
    params_py, params_cli = KDFS[kdf]
    data = rand(2 * SEG + 1, 3)
    src = write(tmp_path / "plain", data)

    py = tmp_path / "py.bcx"
    r = encrypt_file(src, py, passphrase=phrase, kdf=kdf, kdf_params=params_py, algorithm=alg, segment_size=SEG)
    blob = py.read_bytes()
    check_result(r, alg, len(data), SEG, blob)
    # Key source and parameter block as format.md's KDF table says.
    k0 = 64 + ALGS[alg][1] - 5
    if kdf == "scrypt":
        assert (blob[10], blob[11]) == (1, 25)
        assert struct.unpack(">BII", blob[k0:k0 + 9]) == (10, 4, 2)
    else:
        assert (blob[10], blob[11]) == (2, 28)
        assert struct.unpack(">III", blob[k0:k0 + 12]) == (1, 50, 4)
    bc(cli, "decrypt", "--passphrase-file", pw, py, tmp_path / "cli.out")
    assert (tmp_path / "cli.out").read_bytes() == data

    cl = tmp_path / "cli.bcx"
    bc(cli, "encrypt", "--passphrase-file", pw, "--kdf", kdf, "--kdf-params", params_cli, "--weak-kdf", "-a", alg,
       "--segment-size", SEG, src, cl)
    r = decrypt_file(cl, tmp_path / "py.out", passphrase=phrase)
    assert (tmp_path / "py.out").read_bytes() == data
    check_result(r, alg, len(data), SEG, cl.read_bytes())


def test_passphrase_str_is_its_utf8_bytes(tmp_path):
    data = rand(100, 4)
    src = write(tmp_path / "plain", data)
    encrypt_file(src, tmp_path / "c", passphrase=PASS_STR, kdf_params=SCRYPT_PY)
    decrypt_file(tmp_path / "c", tmp_path / "d", passphrase=PASS_STR.encode("utf-8"))
    assert (tmp_path / "d").read_bytes() == data


def test_scrypt_default_parameters_round_trip(cli, tmp_path):
    """The one expensive KDF call: the default cost as format.md states it (2^17, 8, 1)."""
    data = rand(5000, 5)
    src = write(tmp_path / "plain", data)
    pw = pass_file(tmp_path, PASS_STR)
    encrypt_file(src, tmp_path / "c", passphrase=PASS_STR)
    blob = (tmp_path / "c").read_bytes()
    assert blob[10] == 1
    assert struct.unpack(">BII", blob[71:80]) == (17, 8, 1)
    bc(cli, "decrypt", "--passphrase-file", pw, tmp_path / "c", tmp_path / "d")
    assert (tmp_path / "d").read_bytes() == data


@pytest.mark.parametrize("phrase", ["", "line one\nline two", "ends in cr\r"],
                         ids=["empty", "newline", "trailing-cr"])
def test_passphrase_the_command_cannot_take_is_refused(cli, tmp_path, phrase):
    """The module promises files interchangeable with the command both ways, and
    format.md defines the passphrase as the first line of --passphrase-file without its
    line ending (or a prompt line). The command refuses an empty one (exit 1) and cannot
    be given a \\n or \\r, so a file sealed with such a passphrase could never be opened
    by it: encrypt_file should refuse it up front (InvalidArgument)."""
    src = write(tmp_path / "plain", b"x")
    # What the command makes of the same passphrase file: a refusal, or another passphrase.
    pw = write(tmp_path / "pw", phrase.encode() + b"\n")
    bc(cli, "encrypt", "--passphrase-file", pw, "--kdf-params", SCRYPT_CLI, "--weak-kdf", src, tmp_path / "cli.bcx",
       rc=EXIT_USAGE if phrase == "" else 0)
    if phrase:
        with pytest.raises(InvalidKey):
            decrypt_file(tmp_path / "cli.bcx", tmp_path / "d", passphrase=phrase)
    with pytest.raises(InvalidArgument):
        encrypt_file(src, tmp_path / "c", passphrase=phrase, kdf_params=SCRYPT_PY)
    assert not (tmp_path / "c").exists()


# ---- sizes and FileResult -------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, SEG - 1, SEG, SEG + 1, 3 * SEG, 7 * SEG + 5],
                         ids=["empty", "1", "seg-1", "one-segment", "seg+1", "3-segments-exact", "8-segments"])
def test_sizes(cli, keys, tmp_path, size):
    data = rand(size, 100 + size)
    src = write(tmp_path / "plain", data)
    c = tmp_path / "c"
    r = encrypt_file(src, c, key_file=keys.raw, segment_size=SEG, workers=4)
    blob = c.read_bytes()
    check_result(r, "aes-256-gcm", size, SEG, blob)
    if size and size % SEG == 0:
        # No empty last segment: the last one holds S bytes.
        assert len(blob) - header_len(blob) == size + TAG * (size // SEG)
    if size == 0:
        assert len(blob) == header_len(blob) + TAG  # one empty last segment: just its tag

    r2 = decrypt_file(c, tmp_path / "d", key_file=keys.raw, workers=4)
    assert (tmp_path / "d").read_bytes() == data
    assert r2 == r
    bc(cli, "decrypt", "-k", keys.raw, c, tmp_path / "cli.out")
    assert (tmp_path / "cli.out").read_bytes() == data

    # The command's container of the same plaintext has the same length.
    bc(cli, "encrypt", "-k", keys.raw, "--segment-size", SEG, src, tmp_path / "cli.bcx")
    assert os.path.getsize(tmp_path / "cli.bcx") == len(blob)
    r3 = decrypt_file(tmp_path / "cli.bcx", tmp_path / "d2", key_file=keys.raw)
    assert (tmp_path / "d2").read_bytes() == data
    assert r3 == r


@pytest.mark.parametrize("seg,size,workers", [(16, 100 * 16 + 5, 4), (64, 300 * 64, 4), (64, 300 * 64, 1),
                                              (1024, 200 * 1024 + 999, 4)])
def test_many_small_segments_in_parallel(cli, keys, tmp_path, seg, size, workers):
    data = rand(size, seg + workers)
    src = write(tmp_path / "plain", data)
    c = tmp_path / "c"
    r = encrypt_file(src, c, key=keys.raw_bytes, segment_size=seg, workers=workers)
    check_result(r, "aes-256-gcm", size, seg, c.read_bytes())
    bc(cli, "decrypt", "-k", keys.raw, c, tmp_path / "cli.out")
    assert (tmp_path / "cli.out").read_bytes() == data

    bc(cli, "encrypt", "-k", keys.raw, "-a", "chacha20-poly1305", "--segment-size", seg, src, tmp_path / "cli.bcx")
    r = decrypt_file(tmp_path / "cli.bcx", tmp_path / "d", key=keys.raw_bytes, workers=workers)
    assert (tmp_path / "d").read_bytes() == data
    check_result(r, "chacha20-poly1305", size, seg, (tmp_path / "cli.bcx").read_bytes())


def test_default_segment_size_few_mib(cli, keys, tmp_path):
    size = 9 * (1 << 20) + 1  # three 4 MiB segments, the last of 1 MiB + 1
    data = rand(size, 6)
    src = write(tmp_path / "plain", data)
    c = tmp_path / "c"
    r = encrypt_file(src, c, key_file=keys.raw)
    blob = c.read_bytes()
    assert struct.unpack(">I", blob[12:16])[0] == 4 << 20
    check_result(r, "aes-256-gcm", size, 4 << 20, blob)
    assert r.segments == 3
    bc(cli, "decrypt", "-k", keys.raw, c, tmp_path / "cli.out")
    assert (tmp_path / "cli.out").read_bytes() == data

    bc(cli, "encrypt", "-k", keys.raw, src, tmp_path / "cli.bcx")
    r = decrypt_file(tmp_path / "cli.bcx", tmp_path / "d", key_file=keys.raw)
    assert (tmp_path / "d").read_bytes() == data
    assert r.segments == 3 and r.plaintext_bytes == size


def test_each_file_gets_fresh_salt_and_nonce(keys, tmp_path):
    """Same plaintext, same key: different file salt, nonce prefix and ciphertext."""
    src = write(tmp_path / "plain", rand(3000, 7))
    encrypt_file(src, tmp_path / "a", key=keys.raw_bytes, segment_size=SEG)
    encrypt_file(src, tmp_path / "b", key=keys.raw_bytes, segment_size=SEG)
    a, b = (tmp_path / "a").read_bytes(), (tmp_path / "b").read_bytes()
    assert len(a) == len(b)
    assert a[16:48] != b[16:48] and a[64:71] != b[64:71] and a[71:] != b[71:]


# ---- no unverified plaintext ------------------------------------------------------------------


def reject(cli, tmp_path, blob: bytes, exc, match=None, cli_args=(), cli_rc=EXIT_AUTH, **kw):
    """decrypt_file(blob) raises exc; the destination's folder stays empty (no dst, no
    temporary file); the command rejects the same bytes too."""
    bad = write(tmp_path / "bad.bcx", blob)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    with pytest.raises(exc, match=match) as info:
        decrypt_file(bad, out / "plain", **kw)
    assert os.listdir(out) == []
    bc(cli, "decrypt", *cli_args, bad, out / "cli", rc=cli_rc)
    assert os.listdir(out) == []
    return info.value


def seg_re(k: int) -> str:
    return rf"\bsegment {k}\b"


@pytest.fixture
def sealed(cli, keys, tmp_path):
    """A 6-segment container (5 full segments of SEG, a last one of 100 bytes)."""
    data = rand(5 * SEG + 100, 8)
    src = write(tmp_path / "plain", data)
    c = tmp_path / "sealed.bcx"
    encrypt_file(src, c, key_file=keys.raw, segment_size=SEG, workers=4)
    blob = c.read_bytes()
    h = header_len(blob)
    stride = SEG + TAG
    assert len(blob) == h + 6 * stride - SEG + 100
    # Positive control: the intact file opens, so every rejection below is the damage's doing.
    decrypt_file(c, tmp_path / "ok", key_file=keys.raw)
    assert (tmp_path / "ok").read_bytes() == data
    os.unlink(tmp_path / "ok")

    def seg(k: int) -> slice:
        return slice(h + k * stride, min(len(blob), h + (k + 1) * stride))

    return SimpleNamespace(blob=blob, h=h, stride=stride, seg=seg, data=data,
                           key=dict(key_file=keys.raw), cli=("-k", keys.raw))


def flipped(blob: bytes, pos: int, mask: int = 0x01) -> bytes:
    b = bytearray(blob)
    b[pos] ^= mask
    return bytes(b)


@pytest.mark.parametrize("where", ["ciphertext", "tag"])
@pytest.mark.parametrize("k", [0, 2, 5])
def test_flipped_byte_names_its_segment(cli, tmp_path, sealed, k, where):
    s = sealed.seg(k)
    pos = s.start + 7 if where == "ciphertext" else s.stop - 3
    e = reject(cli, tmp_path, flipped(sealed.blob, pos), InvalidTag, seg_re(k), sealed.cli, workers=4,
               **sealed.key)
    assert e.status == "BC_ERR_AUTH_FAILED"


def test_flipped_byte_single_worker(cli, tmp_path, sealed):
    reject(cli, tmp_path, flipped(sealed.blob, sealed.seg(3).start + 500), InvalidTag, seg_re(3), sealed.cli,
           workers=1, **sealed.key)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_truncated_at_segment_boundary(cli, tmp_path, sealed, k):
    """Cut after segment k-1: that segment was sealed as not-last and fails as the last."""
    blob = sealed.blob[:sealed.seg(k).start]
    reject(cli, tmp_path, blob, InvalidTag, seg_re(k - 1), sealed.cli, **sealed.key)


@pytest.mark.parametrize("k,keep", [(2, 100), (5, 50), (5, 115)])
def test_truncated_inside_segment(cli, tmp_path, sealed, k, keep):
    """At least a tag's worth of segment k is left: its tag fails."""
    blob = sealed.blob[:sealed.seg(k).start + keep]
    reject(cli, tmp_path, blob, InvalidTag, seg_re(k), sealed.cli, **sealed.key)


@pytest.mark.parametrize("keep", [1, 15])
def test_truncated_inside_a_tag(cli, tmp_path, sealed, keep):
    """Under a tag's worth of segment 3 left: too short to be a segment at all."""
    blob = sealed.blob[:sealed.seg(3).start + keep]
    reject(cli, tmp_path, blob, InvalidTag, None, sealed.cli, **sealed.key)


def test_truncated_to_the_header(cli, tmp_path, sealed):
    """Every file has at least one segment (format.md): a header alone is truncated."""
    reject(cli, tmp_path, sealed.blob[:sealed.h], InvalidTag, None, sealed.cli, **sealed.key)


def test_truncated_inside_header(cli, tmp_path, sealed):
    for n in (7, 40, sealed.h - 1):
        reject(cli, tmp_path, sealed.blob[:n], InvalidFile, None, sealed.cli, **sealed.key)


@pytest.mark.parametrize("extra", [1, 16, 17, SEG + TAG], ids=["1", "tag", "tag+1", "whole-segment"])
def test_appended_bytes(cli, tmp_path, sealed, extra):
    """The real last segment (5) grows, or is followed by another and so read as not-last:
    either way its tag fails. One worker, so segment 5 is the first to fail."""
    blob = sealed.blob + rand(extra, 9)
    reject(cli, tmp_path, blob, InvalidTag, seg_re(5), sealed.cli, workers=1, **sealed.key)


def test_appended_copy_of_last_segment(cli, tmp_path, sealed):
    """Duplicating the last segment at the end: the first copy is now not-last."""
    blob = sealed.blob + sealed.blob[sealed.seg(5)]
    reject(cli, tmp_path, blob, InvalidTag, r"\bsegment (5|6)\b", sealed.cli, workers=4, **sealed.key)
    reject(cli, tmp_path, blob, InvalidTag, seg_re(5), sealed.cli, workers=1, **sealed.key)


def test_segments_swapped(cli, tmp_path, sealed):
    b = sealed.blob
    s1, s2 = sealed.seg(1), sealed.seg(2)
    blob = b[:s1.start] + b[s2] + b[s1] + b[s2.stop:]
    assert len(blob) == len(b)
    reject(cli, tmp_path, blob, InvalidTag, seg_re(1), sealed.cli, workers=1, **sealed.key)
    reject(cli, tmp_path, blob, InvalidTag, r"\bsegment (1|2)\b", sealed.cli, workers=4, **sealed.key)


def test_segment_dropped_or_duplicated(cli, tmp_path, sealed):
    b = sealed.blob
    dropped = b[:sealed.seg(2).start] + b[sealed.seg(3).start:]
    reject(cli, tmp_path, dropped, InvalidTag, seg_re(2), sealed.cli, workers=1, **sealed.key)
    duplicated = b[:sealed.seg(3).start] + b[sealed.seg(2)] + b[sealed.seg(3).start:]
    reject(cli, tmp_path, duplicated, InvalidTag, seg_re(3), sealed.cli, workers=1, **sealed.key)


def test_segment_from_another_file(cli, keys, tmp_path, sealed):
    """Same key file, same plaintext, same position: another salt, so another file key."""
    other = tmp_path / "other.bcx"
    encrypt_file(tmp_path / "plain", other, key_file=keys.raw, segment_size=SEG)
    o = other.read_bytes()
    s = sealed.seg(4)
    blob = sealed.blob[:s.start] + o[s] + sealed.blob[s.stop:]
    reject(cli, tmp_path, blob, InvalidTag, seg_re(4), sealed.cli, **sealed.key)


def _set(pos: int, value: bytes):
    return lambda blob: blob[:pos] + value + blob[pos + len(value):]


def _flip(pos: int):
    return lambda blob: flipped(blob, pos)


# Header of an aes-256-gcm key-file file: magic 0..7, version 8, alg 9, key source 10, L 11,
# S 12..15, file salt 16..47, key check 48..63, nonce prefix 64..70. What each change meets:
HEADER_CASES = [
    ("magic", _flip(1), InvalidFile),
    ("version", _flip(8), InvalidFile),
    ("unknown-algorithm-id", _set(9, b"\x7f"), InvalidFile),
    # The key check does not depend on the algorithm: the key passes, the segments fail.
    ("algorithm-1-to-3", _set(9, b"\x03"), InvalidTag),
    ("algorithm-1-to-4", _set(9, b"\x04"), InvalidTag),  # longer nonce prefix: H moves too
    ("key-source-scrypt", _set(10, b"\x01"), InvalidFile),  # scrypt needs a 25-byte block
    ("key-source-unknown", _set(10, b"\x09"), InvalidFile),
    ("kdf-length", _set(11, b"\x19"), InvalidFile),  # a key-file file carries no parameters
    ("segment-size-under-16", _set(12, struct.pack(">I", 8)), InvalidFile),
    ("segment-size-over-64MiB", _set(12, struct.pack(">I", (64 << 20) + 1)), InvalidFile),
    ("segment-size-changed", _flip(15), InvalidTag),  # 1024 -> 1025: the AAD differs
    # The salt and the key check feed the key check: told apart as a wrong key.
    ("file-salt", _flip(20), InvalidKey),
    ("file-salt-last", _flip(47), InvalidKey),
    ("key-check", _flip(50), InvalidKey),
    ("nonce-prefix", _flip(66), InvalidTag),
]


@pytest.mark.parametrize("name,change,exc", HEADER_CASES, ids=[c[0] for c in HEADER_CASES])
def test_header_byte_changed(cli, tmp_path, sealed, name, change, exc):
    blob = change(sealed.blob)
    assert blob != sealed.blob and len(blob) == len(sealed.blob)
    reject(cli, tmp_path, blob, exc, None, sealed.cli, **sealed.key)


@pytest.fixture
def scrypt_sealed(tmp_path):
    """A scrypt file of 3 segments (cheap cost) and its passphrase file."""
    data = rand(2 * SEG + 10, 10)
    src = write(tmp_path / "plain", data)
    c = tmp_path / "s.bcx"
    encrypt_file(src, c, passphrase=PASS_STR, kdf_params=SCRYPT_PY, segment_size=SEG)
    return SimpleNamespace(blob=c.read_bytes(), pw=pass_file(tmp_path, PASS_STR))


@pytest.mark.parametrize("pos,what", [(71, "logN 10->11"), (75, "r 4->5"), (79, "p 2->3"), (85, "kdf salt")])
def test_passphrase_header_changed_is_wrong_key(cli, tmp_path, scrypt_sealed, pos, what):
    """Another scrypt cost or salt derives another master key: the key check fails."""
    blob = flipped(scrypt_sealed.blob, pos)
    reject(cli, tmp_path, blob, InvalidKey, None, ("--passphrase-file", scrypt_sealed.pw), passphrase=PASS_STR)


def test_tampered_file_leaves_existing_destination_alone(keys, tmp_path, sealed):
    """overwrite=True replaces dst only when every segment verified."""
    dst = write(tmp_path / "dst", b"precious")
    bad = write(tmp_path / "bad", flipped(sealed.blob, sealed.seg(4).start + 1))
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(InvalidTag, match=seg_re(4)):
        decrypt_file(bad, dst, key_file=keys.raw, overwrite=True)
    assert dst.read_bytes() == b"precious"
    assert sorted(os.listdir(tmp_path)) == before


# ---- wrong keys and foreign files --------------------------------------------------------------


def test_wrong_key_file_and_key(cli, keys, tmp_path, sealed):
    other = tmp_path / "other.key"
    bc(cli, "keygen", other)
    e = reject(cli, tmp_path, sealed.blob, InvalidKey, "wrong key", ("-k", other), key_file=other)
    assert e.status == "BC_ERR_AUTH_FAILED"
    reject(cli, tmp_path, sealed.blob, InvalidKey, None, ("-k", other), key=bytes(32))
    # The hex file holds another key than the raw one: wrong too.
    reject(cli, tmp_path, sealed.blob, InvalidKey, None, ("-k", keys.hex), key_file=keys.hex)


@pytest.mark.parametrize("kdf", list(KDFS))
def test_wrong_passphrase(cli, tmp_path, kdf):
    src = write(tmp_path / "plain", rand(2000, 11))
    c = tmp_path / "c"
    encrypt_file(src, c, passphrase=PASS_STR, kdf=kdf, kdf_params=KDFS[kdf][0], segment_size=SEG)
    wrong = PASS_STR + " "
    pw = write(tmp_path / "wrong.txt", wrong.encode() + b"\n")
    reject(cli, tmp_path, c.read_bytes(), InvalidKey, None, ("--passphrase-file", pw), passphrase=wrong)
    # The right text in another encoding than UTF-8 is another passphrase.
    reject(cli, tmp_path, c.read_bytes(), InvalidKey, None, ("--passphrase-file", pw),
           passphrase=PASS_STR.encode("utf-16-le"))


def test_passphrase_for_key_file_file(cli, tmp_path, sealed):
    # A wrong kind of key is a wrong key: exit 3 for the command, InvalidKey for Python.
    pw = pass_file(tmp_path, PASS_STR)
    reject(cli, tmp_path, sealed.blob, InvalidKey, None, ("--passphrase-file", pw), cli_rc=EXIT_AUTH,
           passphrase=PASS_STR)


def test_key_for_passphrase_file(cli, keys, tmp_path, scrypt_sealed):
    reject(cli, tmp_path, scrypt_sealed.blob, InvalidKey, None, ("-k", keys.raw), cli_rc=EXIT_AUTH,
           key_file=keys.raw)
    reject(cli, tmp_path, scrypt_sealed.blob, InvalidKey, None, ("-k", keys.raw), cli_rc=EXIT_AUTH,
           key=keys.raw_bytes)


@pytest.mark.parametrize("content", [b"", b"hello, world\n", MAGIC, MAGIC[:7] + b"X" * 100,
                                     b"\x89PNG\r\n\x1a\n" + bytes(200)],
                         ids=["empty", "text", "magic-only", "bad-magic", "png"])
def test_not_a_bulkcrypt_file(cli, keys, tmp_path, content):
    reject(cli, tmp_path, content, InvalidFile, None, ("-k", keys.raw), key_file=keys.raw)


def test_random_bytes_are_not_a_bulkcrypt_file(cli, keys, tmp_path):
    reject(cli, tmp_path, rand(5000, 12), InvalidFile, None, ("-k", keys.raw), key_file=keys.raw)


def _no_kdf(*args, **kwargs):
    raise AssertionError("a KDF ran for a header that is out of bounds")


@pytest.mark.parametrize("patch", [
    (71, bytes([40])),                                   # logN 40
    (71, bytes([22]) + struct.pack(">I", 9)),            # 128 * 9 * 2^22 > 4 GiB
    (72, struct.pack(">I", 0xFFFFFFFF)),                 # r
    (76, struct.pack(">I", 0)),                          # p = 0
    (71, bytes([0])),                                    # logN 0
], ids=["logN-40", "memory-over-4GiB", "r-huge", "p-zero", "logN-0"])
def test_hostile_scrypt_header(cli, tmp_path, scrypt_sealed, monkeypatch, patch):
    """Out-of-bounds KDF parameters are refused before any derivation."""
    monkeypatch.setattr(hashlib, "scrypt", _no_kdf)
    pos, value = patch
    blob = _set(pos, value)(scrypt_sealed.blob)
    t = time.monotonic()
    e = reject(cli, tmp_path, blob, InvalidFile, None, ("--passphrase-file", scrypt_sealed.pw),
               passphrase=PASS_STR)
    assert time.monotonic() - t < 5
    assert "scrypt" in str(e)


def test_scrypt_bound_is_the_documents(cli, keys, tmp_path, scrypt_sealed):
    """docs/format.md bounds scrypt by 128*r*N <= 4 GiB: logN 22 with r 8 is exactly 4 GiB
    and a reader must take the header (the command refused it while it counted
    128*r*(N+p+2)); r 9 is over. Given a key file, the first header is a wrong kind of
    key (exit 3, "passphrase"), the second a malformed header, both before any KDF."""
    at_bound = _set(71, bytes([22]) + struct.pack(">I", 8))(scrypt_sealed.blob)
    over = _set(71, bytes([22]) + struct.pack(">I", 9))(scrypt_sealed.blob)
    for name, blob, word in (("at", at_bound, "passphrase"), ("over", over, "malformed")):
        c = write(tmp_path / f"{name}.bcx", blob)
        r = subprocess.run([cli, "decrypt", "-k", str(keys.raw), str(c), str(tmp_path / f"{name}.out")],
                           capture_output=True, text=True)
        assert r.returncode == EXIT_AUTH, r.stderr
        assert word in r.stderr, r.stderr
        assert not (tmp_path / f"{name}.out").exists()
    with pytest.raises(InvalidKey):
        decrypt_file(write(tmp_path / "py.bcx", at_bound), tmp_path / "py.out", key_file=keys.raw)


@pytest.mark.parametrize("patch", [
    (71, struct.pack(">I", 0xFFFFFFFF)),                 # t
    (75, struct.pack(">I", 0xFFFFFFFF)),                 # m: 4 TiB
    (75, struct.pack(">I", 31)),                         # m < 8 p (p = 4)
    (79, struct.pack(">I", 65)),                         # p
], ids=["t-huge", "m-huge", "m-under-8p", "p-65"])
def test_hostile_argon2id_header(cli, tmp_path, monkeypatch, patch):
    import argon2.low_level

    src = write(tmp_path / "plain", rand(100, 13))
    c = tmp_path / "a.bcx"
    encrypt_file(src, c, passphrase=PASS_STR, kdf="argon2id", kdf_params=ARGON_PY)
    monkeypatch.setattr(argon2.low_level, "hash_secret_raw", _no_kdf)
    pos, value = patch
    blob = _set(pos, value)(c.read_bytes())
    pw = pass_file(tmp_path, PASS_STR)
    reject(cli, tmp_path, blob, InvalidFile, "argon2id", ("--passphrase-file", pw), passphrase=PASS_STR)


# ---- overwrite rules and modes --------------------------------------------------------------------


@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_existing_destination(cli, keys, tmp_path, op):
    data = rand(3000, 14)
    src = write(tmp_path / "plain", data)
    if op == "decrypt":
        encrypt_file(src, tmp_path / "c", key_file=keys.raw, segment_size=SEG)
        src = tmp_path / "c"
    call = encrypt_file if op == "encrypt" else decrypt_file
    dst = write(tmp_path / "dst", b"precious")
    os.chmod(dst, 0o644)
    before = sorted(os.listdir(tmp_path))

    with pytest.raises(FileExistsError):
        call(src, dst, key_file=keys.raw)
    assert dst.read_bytes() == b"precious" and mode(dst) == 0o644
    assert sorted(os.listdir(tmp_path)) == before  # no temporary file either
    # The command refuses it too (exit 2 without -f).
    bc(cli, op, "-k", keys.raw, src, dst, rc=EXIT_IO)
    assert dst.read_bytes() == b"precious" and sorted(os.listdir(tmp_path)) == before

    r = call(src, dst, key_file=keys.raw, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == before
    got = dst.read_bytes()
    if op == "decrypt":
        assert got == data
    else:
        check_result(r, "aes-256-gcm", len(data), 4 << 20, got)
        decrypt_file(dst, tmp_path / "back", key_file=keys.raw)
        assert (tmp_path / "back").read_bytes() == data
    # Replaced by the 0600 temporary, not written into: the old mode is gone.
    assert mode(dst) == 0o600


def test_existing_symlink_destination(keys, tmp_path):
    """A symlink at dst counts as existing; overwrite=True replaces the link, like `-f`."""
    src = write(tmp_path / "plain", b"data")
    target = write(tmp_path / "target", b"precious")
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(FileExistsError):
        encrypt_file(src, link, key_file=keys.raw)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError):
        encrypt_file(src, dangling, key_file=keys.raw)
    encrypt_file(src, link, key_file=keys.raw, overwrite=True)
    assert not link.is_symlink() and target.read_bytes() == b"precious"


def test_destination_is_a_directory(keys, tmp_path):
    """A failed rename still removes the temporary file."""
    src = write(tmp_path / "plain", b"data")
    (tmp_path / "dir").mkdir()
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(OSError):
        encrypt_file(src, tmp_path / "dir", key_file=keys.raw, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == before
    assert os.listdir(tmp_path / "dir") == []


@pytest.mark.parametrize("umask", [0, 0o022])
def test_output_mode_0600_like_the_command(cli, keys, tmp_path, umask):
    src = write(tmp_path / "plain", rand(2000, 15))
    old = os.umask(umask)
    try:
        encrypt_file(src, tmp_path / "py.bcx", key_file=keys.raw)
        decrypt_file(tmp_path / "py.bcx", tmp_path / "py.out", key_file=keys.raw)
        bc(cli, "encrypt", "-k", keys.raw, src, tmp_path / "cli.bcx")
        bc(cli, "decrypt", "-k", keys.raw, tmp_path / "cli.bcx", tmp_path / "cli.out")
    finally:
        os.umask(old)
    assert mode(tmp_path / "cli.bcx") == mode(tmp_path / "cli.out") == 0o600  # docs/cli.md
    assert mode(tmp_path / "py.bcx") == mode(tmp_path / "py.out") == 0o600


def test_successful_call_leaves_only_the_destination(keys, tmp_path):
    src = write(tmp_path / "plain", rand(5000, 16))
    out = tmp_path / "out"
    out.mkdir()
    encrypt_file(src, out / "c", key_file=keys.raw, segment_size=64, workers=4)
    decrypt_file(out / "c", out / "d", key_file=keys.raw, workers=4)
    assert sorted(os.listdir(out)) == ["c", "d"]


# ---- bad arguments ----------------------------------------------------------------------------


@pytest.fixture
def plain(tmp_path):
    return write(tmp_path / "plain", b"some plaintext")


def _assert_nothing_written(tmp_path):
    assert sorted(os.listdir(tmp_path)) == ["keys", "plain"]


@pytest.mark.parametrize("how", ["none", "key+key_file", "key+passphrase", "key_file+passphrase", "all"])
@pytest.mark.parametrize("call", ["encrypt", "decrypt"])
def test_not_exactly_one_key_source(keys, tmp_path, plain, call, how):
    given = {"key": keys.raw_bytes, "key_file": keys.raw, "passphrase": "pw"}
    kw = {} if how == "none" else {k: given[k] for k in given if how == "all" or k in how.split("+")}
    fn = encrypt_file if call == "encrypt" else decrypt_file
    with pytest.raises(InvalidArgument):
        fn(plain, tmp_path / "out", **kw)
    _assert_nothing_written(tmp_path)


@pytest.mark.parametrize("n", [0, 16, 31, 33, 64])
def test_key_of_wrong_length(keys, tmp_path, plain, n):
    with pytest.raises(InvalidArgument, match="32"):
        encrypt_file(plain, tmp_path / "out", key=bytes(n))
    with pytest.raises(InvalidArgument):
        decrypt_file(plain, tmp_path / "out", key=bytes(n))
    _assert_nothing_written(tmp_path)


def test_key_file_of_wrong_size(cli, keys, tmp_path, plain):
    bad = keys.raw.parent / "short.key"
    bad.write_bytes(keys.raw_bytes[:31])
    with pytest.raises(InvalidArgument):
        encrypt_file(plain, tmp_path / "out", key_file=bad)
    bc(cli, "encrypt", "-k", bad, plain, tmp_path / "cli", rc=EXIT_USAGE)
    assert not (tmp_path / "out").exists() and not (tmp_path / "cli").exists()


@pytest.mark.parametrize("alg", ["rot13", "aes-128-ctr", "chacha20", "aes-256-cbc", "aes-256-xts", ""])
def test_not_a_container_algorithm(keys, tmp_path, plain, alg):
    with pytest.raises(UnsupportedAlgorithm):
        encrypt_file(plain, tmp_path / "out", key_file=keys.raw, algorithm=alg)
    _assert_nothing_written(tmp_path)


def test_algorithm_name_is_case_insensitive(keys, tmp_path, plain):
    r = encrypt_file(plain, tmp_path / "out", key_file=keys.raw, algorithm="ChaCha20-Poly1305")
    assert r.algorithm == "chacha20-poly1305"
    assert (tmp_path / "out").read_bytes()[9] == 2


@pytest.mark.parametrize("seg", [0, 8, 15, (64 << 20) + 1])
def test_segment_size_out_of_bounds(keys, tmp_path, plain, seg):
    with pytest.raises(InvalidArgument):
        encrypt_file(plain, tmp_path / "out", key_file=keys.raw, segment_size=seg)
    _assert_nothing_written(tmp_path)


@pytest.mark.parametrize("kdf,params", [
    ("pbkdf2", None),
    ("scrypt", {"logN": 23}),
    ("scrypt", {"N": 1024}),
    ("scrypt", {"logN": 10, "r": 0}),
    ("argon2id", {"t": 1, "m": 31, "p": 4}),   # m < 8 p
    ("argon2id", {"t": 0, "m": 64, "p": 1}),
    ("argon2id", {"logN": 10}),
])
def test_bad_kdf_arguments(keys, tmp_path, plain, kdf, params):
    with pytest.raises(InvalidArgument):
        encrypt_file(plain, tmp_path / "out", passphrase="pw", kdf=kdf, kdf_params=params)
    _assert_nothing_written(tmp_path)


# ---- context ------------------------------------------------------------------------------------


def test_explicit_cpu_context(cli, keys, tmp_path):
    ctx = bulkcrypt.Context("cpu")
    data = rand(10 * SEG + 3, 17)
    src = write(tmp_path / "plain", data)
    for alg in ("aes-256-gcm", "xchacha20-poly1305"):
        c = tmp_path / f"{alg}.bcx"
        encrypt_file(src, c, key_file=keys.raw, algorithm=alg, segment_size=SEG, context=ctx, workers=4)
        bc(cli, "decrypt", "-k", keys.raw, c, tmp_path / f"{alg}.cli")
        assert (tmp_path / f"{alg}.cli").read_bytes() == data
        decrypt_file(c, tmp_path / f"{alg}.out", key_file=keys.raw, context=ctx, workers=4)
        assert (tmp_path / f"{alg}.out").read_bytes() == data
        bad = write(tmp_path / f"{alg}.bad", flipped(c.read_bytes(), header_len(c.read_bytes()) + 3 * (SEG + TAG)))
        with pytest.raises(InvalidTag, match=seg_re(3)):
            decrypt_file(bad, tmp_path / f"{alg}.nope", key_file=keys.raw, context=ctx)
        assert not (tmp_path / f"{alg}.nope").exists()

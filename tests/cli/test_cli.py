#!/usr/bin/env python3
"""Tests of the bulkcrypt command, standard library only.

Run through CTest (tests/cli/CMakeLists.txt), or by hand:
    BULKCRYPT=build/cli/bulkcrypt python3 tests/cli/test_cli.py -v [TestClass]
Environment:
    BULKCRYPT        the command under test (required)
    BC_DEVICE        device for the round-trip tests (default cpu)
    BC_VECTOR_DIRS   ':'-separated folders holding wycheproof/testvectors_v1/
                     (default: tests/vectors then ../shared/vectors)
A test that cannot run says why (unittest's skip reason, printed with -v);
a device that is absent makes the whole run exit 77, which CTest reports as
skipped, after printing why.
"""
import hashlib
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import unittest

BC = os.environ.get("BULKCRYPT", "")
DEVICE = os.environ.get("BC_DEVICE", "cpu")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VECTOR_DIRS = [d for d in os.environ.get("BC_VECTOR_DIRS", "").split(":") if d] or [
    os.path.join(REPO, "tests", "vectors"),
    os.path.join(os.path.dirname(REPO), "shared", "vectors"),
]

EXIT_OK, EXIT_USAGE, EXIT_IO, EXIT_AUTH, EXIT_DEVICE = 0, 1, 2, 3, 4
SEG = 4096
TAG = 16
CONTAINER_ALGS = ["aes-256-gcm", "chacha20-poly1305", "aes-128-gcm", "xchacha20-poly1305", "sm4-gcm",
                  "aria-128-gcm", "aria-192-gcm", "aria-256-gcm", "seed-128-gcm"]


def run(args, data=None, cwd=None):
    """Runs bulkcrypt with args; returns (rc, stdout, stderr) as bytes."""
    p = subprocess.run([BC] + [str(a) for a in args], input=data, capture_output=True, cwd=cwd,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


_CATALOGUE = None


def catalogue():
    global _CATALOGUE
    if _CATALOGUE is None:
        rc, out, err = run(["list", "--json"])
        if rc != 0:
            raise RuntimeError("bulkcrypt list failed: " + err.decode())
        _CATALOGUE = {a["name"]: a for a in json.loads(out)}
    return _CATALOGUE


def find_vector(rel):
    for d in VECTOR_DIRS:
        p = os.path.join(d, rel)
        if os.path.exists(p):
            return p
    return None


def header_len(blob):
    """Header length from the header itself (docs/format.md)."""
    nonce = {1: 12, 2: 12, 3: 12, 4: 24, 5: 12, 6: 12, 7: 12, 8: 12, 9: 12}[blob[9]]
    return 64 + (nonce - 5) + blob[11]


def slurp(path):
    with open(path, "rb") as f:
        return f.read()


def rand_bytes(n, seed):
    return random.Random(seed).randbytes(n)


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bc-cli-")
        self.key = self.path("k.key")
        rc, _, err = run(["keygen", self.key])
        self.assertEqual(rc, 0, err)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def leftovers(self):
        return [n for n in os.listdir(self.dir) if n.endswith(".bctmp")]

    def encrypt(self, data, alg="aes-256-gcm", seg=SEG, extra=()):
        src = self.write("plain", data)
        dst = self.path("sealed")
        if os.path.exists(dst):
            os.unlink(dst)
        rc, _, err = run(["encrypt", "-k", self.key, "-a", alg, "--segment-size", seg, "--device", DEVICE,
                          *extra, src, dst])
        self.assertEqual(rc, 0, err)
        return self.read("sealed")

    def assert_rejected(self, blob, what):
        """Decrypting blob fails with the authentication code, leaves nothing at
        the output path, no temporary file, and writes nothing to stdout when
        the damage is in the header or the first segment."""
        src = self.write("bad", blob)
        out = self.path("out")
        rc, _, err = run(["decrypt", "-k", self.key, "--device", DEVICE, src, out])
        self.assertEqual(rc, EXIT_AUTH, f"{what}: rc={rc} {err!r}")
        self.assertFalse(os.path.exists(out), f"{what}: output file left behind")
        self.assertEqual(self.leftovers(), [], f"{what}: temporary file left behind")
        # Through a pipe too: the same verdict.
        rc2, stdout, err2 = run(["decrypt", "-k", self.key, "--device", DEVICE, "-", "-"], data=blob)
        self.assertEqual(rc2, EXIT_AUTH, f"{what} (pipe): rc={rc2} {err2!r}")
        return stdout


class RoundTrip(Base):
    """Encrypt then decrypt, every size around the segment edges, files and pipes."""

    SIZES = [0, 1, SEG - 1, SEG, SEG + 1, 3 * SEG, 3 * SEG + 1, 5 * SEG + 1]

    def roundtrip(self, data, alg, mode, seg=SEG, extra=()):
        src = self.write("plain", data)
        sealed, back = self.path("sealed"), self.path("back")
        for p in (sealed, back):
            if os.path.exists(p):
                os.unlink(p)
        common = ["-k", self.key, "--device", DEVICE, *extra]
        if mode in ("file", "file-pipe"):
            rc, out, err = run(["encrypt", "-a", alg, "--segment-size", seg, *common, src, sealed])
        else:
            rc, out, err = run(["encrypt", "-a", alg, "--segment-size", seg, *common, "-", "-"], data=data)
            if rc == 0:
                with open(sealed, "wb") as f:
                    f.write(out)
        self.assertEqual(rc, 0, f"{alg} {mode} {len(data)}: {err!r}")
        blob = slurp(sealed)
        nseg = max(1, -(-len(data) // seg))
        self.assertEqual(len(blob), header_len(blob) + len(data) + TAG * nseg,
                         f"{alg} {mode} {len(data)}: container size")
        if mode in ("file", "pipe-file"):
            rc, out, err = run(["decrypt", *common, sealed, back])
            self.assertEqual(rc, 0, f"{alg} {mode} {len(data)}: {err!r}")
            got = slurp(back)
        else:
            rc, got, err = run(["decrypt", *common, "-", "-"], data=blob)
            self.assertEqual(rc, 0, f"{alg} {mode} {len(data)}: {err!r}")
        self.assertEqual(got, data, f"{alg} {mode} {len(data)}: plaintext differs")
        self.assertEqual(self.leftovers(), [])

    def test_sizes_default_algorithm_all_io_paths(self):
        for n in self.SIZES:
            data = rand_bytes(n, n)
            for mode in ("file", "pipe", "file-pipe", "pipe-file"):
                self.roundtrip(data, "aes-256-gcm", mode)

    def test_sizes_every_container_algorithm(self):
        cat = catalogue()
        for alg in CONTAINER_ALGS:
            if alg not in cat:
                print(f"\n  skip {alg}: not in this build's catalogue", file=sys.stderr)
                continue
            for n in self.SIZES:
                self.roundtrip(rand_bytes(n, n + 7), alg, "file")
                self.roundtrip(rand_bytes(n, n + 7), alg, "pipe")

    def test_many_segments_many_workers(self):
        data = rand_bytes(3 * (1 << 20) + 12345, 99)
        for extra in (["-j", "1"], ["-j", "4"], ["-j", "8", "--max-memory", "64K"]):
            self.roundtrip(data, "aes-256-gcm", "file", seg=16384, extra=extra)
            self.roundtrip(data, "aes-256-gcm", "pipe", seg=16384, extra=extra)

    def test_default_segment_size(self):
        data = rand_bytes(9 * (1 << 20) + 1, 5)
        self.roundtrip(data, "aes-256-gcm", "file", seg=4 << 20)

    def test_passphrase_scrypt_and_argon2id(self):
        pw = self.write("pw", b"correct horse battery staple\n")
        data = rand_bytes(10000, 1)
        src = self.write("plain", data)
        kdfs = [("scrypt", "logN=12,r=8,p=1"), ("argon2id", "t=1,m=1024,p=1")]
        for kdf, params in kdfs:
            sealed, back = self.path(f"s.{kdf}"), self.path(f"b.{kdf}")
            rc, _, err = run(["encrypt", "--passphrase-file", pw, "--kdf", kdf, "--kdf-params", params, "--weak-kdf",
                              "--segment-size", SEG, "--device", DEVICE, src, sealed])
            if rc == EXIT_USAGE and b"libargon2" in err:
                print(f"\n  skip {kdf}: {err.decode().strip()}", file=sys.stderr)
                continue
            self.assertEqual(rc, 0, err)
            rc, _, err = run(["decrypt", "--passphrase-file", pw, "--device", DEVICE, sealed, back])
            self.assertEqual(rc, 0, err)
            self.assertEqual(slurp(back), data)
            wrong = self.write("pw2", b"correct horse battery stapler\n")
            rc, _, err = run(["decrypt", "--passphrase-file", wrong, "--device", DEVICE, sealed,
                              self.path("nope")])
            self.assertEqual(rc, EXIT_AUTH, err)
            self.assertFalse(os.path.exists(self.path("nope")))
            # A key file for a passphrase file is a wrong key (exit 3), and says what to give.
            rc, _, err = run(["decrypt", "-k", self.key, sealed, self.path("nope")])
            self.assertEqual(rc, EXIT_AUTH, err)
            self.assertIn(b"passphrase", err)
            self.assertFalse(os.path.exists(self.path("nope")))

    def test_json_summary(self):
        data = rand_bytes(5 * SEG + 3, 3)
        src = self.write("plain", data)
        rc, out, err = run(["encrypt", "-k", self.key, "--segment-size", SEG, "--json", "--device", DEVICE,
                            src, self.path("s")])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertEqual(j["operation"], "encrypt")
        self.assertEqual(j["segments"], 6)
        self.assertEqual(j["plaintext_bytes"], len(data))
        self.assertEqual(j["output_bytes"], os.path.getsize(self.path("s")))
        # To stdout the summary moves to stderr and the data stays clean.
        rc, out, err = run(["decrypt", "-k", self.key, "--json", "--device", DEVICE, self.path("s"), "-"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, data)
        self.assertEqual(json.loads(err)["plaintext_bytes"], len(data))

    def test_silent_without_terminal(self):
        src = self.write("plain", rand_bytes(100000, 2))
        rc, out, err = run(["encrypt", "-k", self.key, "--device", DEVICE, src, self.path("s")])
        self.assertEqual((rc, out, err), (0, b"", b""))


class Tamper(Base):
    """Every kind of damage is refused with exit code 3 and no output file."""

    def setUp(self):
        super().setUp()
        self.data = rand_bytes(3 * SEG + 100, 42)  # segments: 3 full + 1 short
        self.blob = self.encrypt(self.data)
        self.h = header_len(self.blob)
        self.nseg = 4
        # sanity: the untouched file decrypts
        rc, out, err = run(["decrypt", "-k", self.key, "-", "-"], data=self.blob)
        self.assertEqual((rc, out), (0, self.data), err)

    def seg_bounds(self, i):
        start = self.h + i * (SEG + TAG)
        end = min(len(self.blob), start + SEG + TAG)
        return start, end

    def flip(self, pos, bit=0):
        b = bytearray(self.blob)
        b[pos] ^= 1 << bit
        return bytes(b)

    def test_header_every_byte(self):
        for pos in range(self.h):
            out = self.assert_rejected(self.flip(pos, pos % 8), f"header byte {pos}")
            self.assertEqual(out, b"", f"header byte {pos}: plaintext released")

    def test_segment_body(self):
        for i in range(self.nseg):
            s, e = self.seg_bounds(i)
            for pos in (s, (s + e - TAG) // 2, e - TAG - 1):
                out = self.assert_rejected(self.flip(pos, 3), f"segment {i} body byte {pos}")
                # stdout gets only the verified segments before the damaged one
                self.assertEqual(out, self.data[: i * SEG])

    def test_tags(self):
        for i in range(self.nseg):
            s, e = self.seg_bounds(i)
            for pos in (e - TAG, e - 1):
                self.assert_rejected(self.flip(pos, 7), f"segment {i} tag byte {pos}")

    def test_truncation_at_every_segment_boundary(self):
        cuts = [0, 8, self.h - 1, self.h]
        for i in range(1, self.nseg):
            cuts.append(self.h + i * (SEG + TAG))       # a whole number of segments
        cuts += [self.h + TAG - 1, self.h + SEG, len(self.blob) - 1, len(self.blob) - TAG]
        for cut in cuts:
            self.assert_rejected(self.blob[:cut], f"truncated to {cut} bytes")

    def test_reorder_drop_duplicate(self):
        segs = [self.blob[slice(*self.seg_bounds(i))] for i in range(self.nseg)]
        head = self.blob[: self.h]
        cases = {
            "swap 0,1": [segs[1], segs[0], segs[2], segs[3]],
            "swap 1,2": [segs[0], segs[2], segs[1], segs[3]],
            "drop 1": [segs[0], segs[2], segs[3]],
            "drop last": segs[:3],
            "duplicate 0": [segs[0], segs[0], segs[1], segs[2], segs[3]],
        }
        for what, order in cases.items():
            self.assert_rejected(head + b"".join(order), what)

    def test_appended_data(self):
        last = self.blob[slice(*self.seg_bounds(self.nseg - 1))]
        for extra in (b"\0", b"x" * TAG, b"y" * (SEG + TAG), last):
            self.assert_rejected(self.blob + extra, f"{len(extra)} bytes appended")

    def test_splice_between_files(self):
        # Same key, same length: a segment from another file never fits.
        other = self.encrypt(self.data)
        self.assertNotEqual(other, self.blob)
        s, e = self.seg_bounds(1)
        self.assert_rejected(self.blob[:s] + other[s:e] + self.blob[e:], "segment from another file")
        self.assert_rejected(other[: self.h] + self.blob[self.h:], "header from another file")

    def test_full_segment_last_then_truncated(self):
        # Exactly 2 segments, the last one full: cutting it off must fail.
        data = rand_bytes(2 * SEG, 8)
        blob = self.encrypt(data)
        h = header_len(blob)
        self.assertEqual(len(blob), h + 2 * (SEG + TAG))
        self.assert_rejected(blob[: h + SEG + TAG], "full last segment cut")

    def test_many_workers_verified_prefix(self):
        # With 8 workers racing, a damaged segment 40 of 64 still yields on
        # stdout exactly the 40 verified segments before it, and exit code 3.
        data = rand_bytes(64 * SEG, 64)
        blob = self.encrypt(data)
        h = header_len(blob)
        bad = bytearray(blob)
        bad[h + 40 * (SEG + TAG) + 100] ^= 0x10
        for _ in range(5):
            rc, out, err = run(["decrypt", "-k", self.key, "-j", "8", "--device", DEVICE, "-", "-"], data=bytes(bad))
            self.assertEqual(rc, EXIT_AUTH, err)
            self.assertEqual(len(out), 40 * SEG)
            self.assertEqual(out, data[: 40 * SEG])
            self.assertIn(b"segment 40 ", err)

    def test_wrong_key(self):
        other = self.path("other.key")
        self.assertEqual(run(["keygen", other])[0], 0)
        src = self.write("bad", self.blob)
        rc, _, err = run(["decrypt", "-k", other, src, self.path("out")])
        self.assertEqual(rc, EXIT_AUTH, err)
        self.assertFalse(os.path.exists(self.path("out")))

    def test_not_a_bulkcrypt_file(self):
        self.assert_rejected(b"hello, world\n" * 100, "plain text")
        self.assert_rejected(b"", "empty input")


class Terminal(Base):
    """The passphrase prompt (echo off, asked twice when encrypting) and the
    progress line, both through a pseudo-terminal."""

    def run_tty(self, args, answers):
        import pty
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(BC, [BC] + [str(a) for a in args])
        out = b""
        import time
        for a in answers:
            time.sleep(0.3)
            os.write(fd, a)
        while True:
            try:
                d = os.read(fd, 4096)
            except OSError:
                break
            if not d:
                break
            out += d
        _, status = os.waitpid(pid, 0)
        os.close(fd)
        return os.waitstatus_to_exitcode(status), out

    def test_prompt(self):
        data = rand_bytes(5000, 1)
        src = self.write("plain", data)
        rc, out = self.run_tty(["encrypt", "--kdf-params", "logN=10", "--weak-kdf", "-q", src, self.path("s")],
                               [b"open sesame\n", b"open sesame\n"])
        self.assertEqual(rc, 0, out)
        self.assertNotIn(b"sesame", out, "the passphrase was echoed")
        self.assertIn(b"again", out)
        rc, out = self.run_tty(["decrypt", "-q", self.path("s"), self.path("back")], [b"open sesame\n"])
        self.assertEqual(rc, 0, out)
        self.assertEqual(slurp(self.path("back")), data)
        rc, out = self.run_tty(["decrypt", "-q", self.path("s"), self.path("back2")], [b"open sesamo\n"])
        self.assertEqual(rc, EXIT_AUTH, out)
        rc, out = self.run_tty(["encrypt", "-q", src, self.path("s2")], [b"one\n", b"two\n"])
        self.assertEqual(rc, EXIT_USAGE, out)
        self.assertFalse(os.path.exists(self.path("s2")))

    def test_interrupted_prompt_gives_echo_back(self):
        """SIGINT or SIGTERM at the passphrase prompt (echo off) must leave the terminal
        echoing, as before the prompt."""
        import fcntl
        import pty
        import signal
        import termios
        import time
        src = self.write("plain", b"data")
        for sig in (signal.SIGINT, signal.SIGTERM):
            master, slave = pty.openpty()

            def own_terminal(slave=slave):
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

            p = subprocess.Popen([BC, "encrypt", "--kdf-params", "logN=10", "--weak-kdf", src, self.path("s")], stdin=slave,
                                 stdout=slave, stderr=slave, preexec_fn=own_terminal)
            seen = b""
            deadline = time.monotonic() + 10
            while b"Passphrase" not in seen and time.monotonic() < deadline:
                seen += os.read(master, 1024)
            self.assertIn(b"Passphrase", seen)
            time.sleep(0.2)  # the prompt has turned echo off by now
            self.assertFalse(termios.tcgetattr(slave)[3] & termios.ECHO, "the prompt left echo on")
            p.send_signal(sig)
            p.wait(timeout=10)
            self.assertEqual(p.returncode, -sig if p.returncode < 0 else 128 + sig)
            self.assertTrue(termios.tcgetattr(slave)[3] & termios.ECHO, f"echo is off after signal {sig}")
            self.assertFalse(os.path.exists(self.path("s")))
            os.close(master)
            os.close(slave)

    def test_progress_line_on_terminal_only(self):
        import pty
        import time
        master, slave = pty.openpty()
        p = subprocess.Popen([BC, "encrypt", "-k", self.key, "--device", DEVICE, "-", self.path("s")],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        chunk = rand_bytes(64 << 10, 4)
        for _ in range(20):  # about 1.2 s of slow input
            p.stdin.write(chunk)
            p.stdin.flush()
            time.sleep(0.06)
        p.stdin.close()
        err = b""
        while True:
            try:
                d = os.read(master, 4096)
            except OSError:
                break
            if not d:
                break
            err += d
        self.assertEqual(p.wait(), 0, err)
        os.close(master)
        self.assertIn(b"GB/s", err)
        self.assertIn(b"encrypt", err)
        self.assertTrue(err.endswith(b"\r\x1b[K"), f"progress line not erased: {err[-40:]!r}")
        rc, out, _ = run(["decrypt", "-k", self.key, self.path("s"), "-"])
        self.assertEqual((rc, out), (0, chunk * 20))


class IndependentReader(Base):
    """docs/format.md is enough for a second implementation: format_reader.py,
    pure Python written from the page, reads the command's ChaCha20-Poly1305
    files and writes files the command reads."""

    def setUp(self):
        super().setUp()
        sys.path.insert(0, HERE)
        import format_reader
        self.fr = format_reader
        cat = catalogue()
        if "chacha20-poly1305" not in cat:
            self.skipTest("chacha20-poly1305 not in this build's catalogue")
        # The Python AEAD itself, checked against Wycheproof first.
        path = find_vector(os.path.join("wycheproof", "testvectors_v1", "chacha20_poly1305_test.json"))
        if path is None:
            self.skipTest("chacha20_poly1305_test.json not found")
        with open(path) as f:
            groups = json.load(f)["testGroups"]
        checked = 0
        for g in groups:
            if g["ivSize"] != 96:
                continue
            for t in g["tests"][:40]:
                key, iv, aad = (bytes.fromhex(t[x]) for x in ("key", "iv", "aad"))
                sealed = self.fr.aead_seal(key, iv, aad, bytes.fromhex(t["msg"]))
                if t["result"] == "valid":
                    self.assertEqual(sealed.hex(), t["ct"] + t["tag"], f"python AEAD, tcId {t['tcId']}")
                    checked += 1
        self.assertGreater(checked, 10)

    def test_reads_command_output(self):
        key = slurp(self.key)
        for alg in ("chacha20-poly1305", "xchacha20-poly1305"):
            if alg not in catalogue():
                continue
            for n in (0, 1, SEG, 3 * SEG + 5):
                data = rand_bytes(n, n + 1)
                blob = self.encrypt(data, alg=alg)
                self.assertEqual(self.fr.read(blob, key=key), data, f"{alg} {n}")
                bad = bytearray(blob)
                bad[-1] ^= 1
                with self.assertRaises(self.fr.FormatError):
                    self.fr.read(bytes(bad), key=key)

    def test_reads_scrypt_file(self):
        pw = self.write("pw", b"tr0ub4dor&3\n")
        data = rand_bytes(2 * SEG + 7, 3)
        src = self.write("plain", data)
        rc, _, err = run(["encrypt", "--passphrase-file", pw, "--kdf-params", "logN=10,r=8,p=1", "--weak-kdf",
                          "-a", "chacha20-poly1305", "--segment-size", SEG, src, self.path("s")])
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.fr.read(slurp(self.path("s")), passphrase=b"tr0ub4dor&3"), data)

    def test_command_reads_python_output(self):
        key = slurp(self.key)
        for alg_id in (2, 4):
            if self.fr.ALGS[alg_id][0] not in catalogue():
                continue
            for n in (0, SEG, 2 * SEG + 9):
                data = rand_bytes(n, n + 2)
                blob = self.fr.write(data, key, alg_id=alg_id, segment_size=SEG)
                rc, out, err = run(["decrypt", "-k", self.key, "--device", DEVICE, "-", "-"], data=blob)
                self.assertEqual((rc, out), (0, data), err)


def openssl(args, data):
    p = subprocess.run(["openssl", "enc", *args], input=data, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError("openssl enc failed: " + p.stderr.decode())
    return p.stdout


class Raw(Base):
    """Raw modes against `openssl enc` and the Wycheproof vector files."""

    K16 = "000102030405060708090a0b0c0d0e0f"
    K32 = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
    IV = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

    def raw(self, direction, alg, data, *args, expect=0):
        rc, out, err = run([direction, "--raw", "-a", alg, "--device", DEVICE, *args], data=data)
        self.assertEqual(rc, expect, f"{direction} {alg} {len(data)} {args}: {err!r}")
        return out

    def both_ways(self, alg, ossl, data, key, iv=None, pad=False, chunk=None):
        args = ["--key-hex", key] + (["--iv-hex", iv] if iv else []) + (["--pad", "pkcs7"] if pad else [])
        args += ["--chunk", chunk] if chunk else []
        oargs = [f"-{ossl}", "-K", key] + (["-iv", iv] if iv else []) + ([] if pad else ["-nopad"])
        want = openssl(oargs, data)
        got = self.raw("encrypt", alg, data, *args)
        self.assertEqual(got.hex(), want.hex(), f"{alg} encrypt, {len(data)} bytes, chunk {chunk}")
        back = self.raw("decrypt", alg, want, *args)
        self.assertEqual(back, data, f"{alg} decrypt, {len(data)} bytes, chunk {chunk}")

    def test_aes_128_ecb(self):
        for n in (0, 16, 32, 1600, 100000):
            self.both_ways("aes-128-ecb", "aes-128-ecb", rand_bytes(n, n), self.K16)
        self.both_ways("aes-128-ecb", "aes-128-ecb", rand_bytes(100000, 1), self.K16, chunk=4096)
        self.both_ways("aes-128-ecb", "aes-128-ecb", rand_bytes(1000, 1), self.K16, pad=True)
        # Not whole blocks without padding: a usage error, no output.
        out = self.raw("encrypt", "aes-128-ecb", b"x" * 17, "--key-hex", self.K16, expect=EXIT_USAGE)
        self.assertEqual(out, b"")

    def test_aes_256_cbc(self):
        for n in (0, 16, 48, 4096, 100000):
            self.both_ways("aes-256-cbc", "aes-256-cbc", rand_bytes(n, n), self.K32, self.IV)
        for n in (0, 1, 15, 16, 17, 1000, 100001):
            self.both_ways("aes-256-cbc", "aes-256-cbc", rand_bytes(n, n), self.K32, self.IV, pad=True)
        for chunk in ("4096", "16"):
            self.both_ways("aes-256-cbc", "aes-256-cbc", rand_bytes(65536 + 32, 4), self.K32, self.IV, chunk=chunk)
            self.both_ways("aes-256-cbc", "aes-256-cbc", rand_bytes(65536 + 5, 4), self.K32, self.IV, pad=True,
                           chunk=chunk)
        # Wrong key: the padding check fails, exit 3.
        ct = openssl(["-aes-256-cbc", "-K", self.K32, "-iv", self.IV], b"secret message, padded")
        other = "ff" * 32
        self.raw("decrypt", "aes-256-cbc", ct, "--key-hex", other, "--iv-hex", self.IV, "--pad", "pkcs7",
                 expect=EXIT_AUTH)

    def test_aes_128_ctr(self):
        for n in (0, 1, 15, 16, 17, 1000, 100001):
            self.both_ways("aes-128-ctr", "aes-128-ctr", rand_bytes(n, n), self.K16, self.IV)
        self.both_ways("aes-128-ctr", "aes-128-ctr", rand_bytes(100001, 9), self.K16, self.IV, chunk="4096")
        # The counter block is one 128-bit big-endian number, as OpenSSL's: the
        # carry crosses the 64-bit halves (and chunk boundaries).
        carry = "00000000000000ff" + "ffffffffffffff00"
        self.both_ways("aes-128-ctr", "aes-128-ctr", rand_bytes(5000, 3), self.K16, carry, chunk="4096")
        # Past 2^128 - 1 OpenSSL wraps to zero; bulkcrypt refuses (counter overflow, usage code).
        self.raw("encrypt", "aes-128-ctr", b"x" * 33, "--key-hex", self.K16, "--iv-hex", "ff" * 16,
                 expect=EXIT_USAGE)

    def test_chacha20(self):
        if "chacha20" not in catalogue():
            self.skipTest("chacha20 not in this build's catalogue")
        for iv in ("00000000" + "000000000000004a00000000", "01000000" + "000000090000004a00000000",
                   "0000ffff" + "0102030405060708090a0b0c"):
            for n in (0, 1, 63, 64, 65, 1000, 100001):
                self.both_ways("chacha20", "chacha20", rand_bytes(n, n), self.K32, iv)
            self.both_ways("chacha20", "chacha20", rand_bytes(100001, 11), self.K32, iv, chunk="4097")
        # The last block before the 32-bit counter wraps works; one byte more is
        # refused (OpenSSL would carry into the nonce).
        last = "ffffffff" + "0102030405060708090a0b0c"
        self.both_ways("chacha20", "chacha20", rand_bytes(64, 5), self.K32, last)
        self.raw("encrypt", "chacha20", b"x" * 65, "--key-hex", self.K32, "--iv-hex", last, expect=EXIT_USAGE)

    def aead_vectors(self, alg_prefix, filename, name_of):
        path = find_vector(os.path.join("wycheproof", "testvectors_v1", filename))
        if path is None:
            self.skipTest(f"{filename} not found in {VECTOR_DIRS}")
        cat = catalogue()
        with open(path) as f:
            suite = json.load(f)
        done = 0
        for g in suite["testGroups"]:
            alg = name_of(g)
            if alg not in cat:
                continue
            info = cat[alg]
            ivb, tagb = g["ivSize"] // 8, g["tagSize"] // 8
            if not (info["iv_size_min"] <= ivb <= info["iv_size_max"]) or tagb != 16:
                continue
            for t in g["tests"]:
                args = ["--key-hex", t["key"], "--iv-hex", t["iv"]] + (["--aad-hex", t["aad"]] if t["aad"] else [])
                msg, ct = bytes.fromhex(t["msg"]), bytes.fromhex(t["ct"] + t["tag"])
                what = f"{filename} tcId {t['tcId']}"
                if t["result"] == "valid":
                    got = self.raw("encrypt", alg, msg, *args)
                    self.assertEqual(got.hex(), ct.hex(), what)
                    self.assertEqual(self.raw("decrypt", alg, ct, *args), msg, what)
                elif t["result"] == "invalid":
                    out = self.raw("decrypt", alg, ct, *args, expect=EXIT_AUTH)
                    self.assertEqual(out, b"", what + ": output on a failed tag")
                done += 1
        if done == 0:
            self.skipTest(f"no {alg_prefix} algorithm of {filename} in the catalogue")
        print(f"\n  {filename}: {done} vectors", file=sys.stderr)

    def test_aes_gcm_vectors(self):
        self.aead_vectors("aes-gcm", "aes_gcm_test.json", lambda g: f"aes-{g['keySize']}-gcm")

    def test_chacha20_poly1305_vectors(self):
        self.aead_vectors("chacha20-poly1305", "chacha20_poly1305_test.json", lambda g: "chacha20-poly1305")

    def test_xchacha20_poly1305_vectors(self):
        self.aead_vectors("xchacha20-poly1305", "xchacha20_poly1305_test.json", lambda g: "xchacha20-poly1305")

    def test_aes_xts_vectors(self):
        path = find_vector(os.path.join("wycheproof", "testvectors_v1", "aes_xts_test.json"))
        if path is None:
            self.skipTest(f"aes_xts_test.json not found in {VECTOR_DIRS}")
        done = 0
        with open(path) as f:
            groups = json.load(f)["testGroups"]
        for g in groups:
            if g["keySize"] not in (256, 512):
                continue  # 2x192 is not IEEE 1619 (nor OpenSSL)
            alg = f"aes-{g['keySize'] // 2}-xts"
            for t in g["tests"]:
                iv = t["iv"] + "00" * (16 - len(t["iv"]) // 2)  # Wycheproof pads the tweak on the right
                args = ["--key-hex", t["key"], "--iv-hex", iv]
                msg, ct = bytes.fromhex(t["msg"]), bytes.fromhex(t["ct"])
                self.assertEqual(self.raw("encrypt", alg, msg, *args).hex(), ct.hex(), f"tcId {t['tcId']}")
                self.assertEqual(self.raw("decrypt", alg, ct, *args), msg, f"tcId {t['tcId']}")
                done += 1
        print(f"\n  aes_xts_test.json: {done} vectors", file=sys.stderr)
        self.assertGreater(done, 0)

    def test_xts_sector_size(self):
        # --sector-size N: data unit k uses tweak+k (128-bit little-endian),
        # the same as N-byte one-unit calls with the incremented tweak; the last
        # unit may be partial (ciphertext stealing). Chunking must not show.
        key = rand_bytes(32, 1).hex()
        tweak = bytes.fromhex("fe" + "ff" * 7 + "00" * 8)  # carries out of the low 64 bits
        data = rand_bytes(8 * 512 + 100, 2)
        whole = self.raw("encrypt", "aes-128-xts", data, "--key-hex", key, "--iv-hex", tweak.hex(),
                         "--sector-size", "512")
        chunked = self.raw("encrypt", "aes-128-xts", data, "--key-hex", key, "--iv-hex", tweak.hex(),
                           "--sector-size", "512", "--chunk", "1024")
        self.assertEqual(chunked, whole)
        expect = b""
        for k in range(0, len(data), 512):
            t = (int.from_bytes(tweak, "little") + k // 512) % (1 << 128)
            expect += self.raw("encrypt", "aes-128-xts", data[k:k + 512], "--key-hex", key, "--iv-hex",
                               t.to_bytes(16, "little").hex())
        self.assertEqual(whole, expect)
        back = self.raw("decrypt", "aes-128-xts", whole, "--key-hex", key, "--iv-hex", tweak.hex(),
                        "--sector-size", "512", "--chunk", "1024")
        self.assertEqual(back, data)

    def test_key_file_and_errors(self):
        kf = self.write("raw.key", bytes.fromhex(self.K16))
        data = rand_bytes(100, 1)
        want = openssl(["-aes-128-ctr", "-K", self.K16, "-iv", self.IV], data)
        self.assertEqual(self.raw("encrypt", "aes-128-ctr", data, "--key-file", kf, "--iv-hex", self.IV), want)
        hexf = self.write("hex.key", (self.K16 + "\n").encode())
        self.assertEqual(self.raw("encrypt", "aes-128-ctr", data, "--key-file", hexf, "--iv-hex", self.IV), want)
        self.raw("encrypt", "aes-128-ctr", data, "--key-hex", self.K16[:-2], "--iv-hex", self.IV, expect=EXIT_USAGE)
        self.raw("encrypt", "aes-128-ctr", data, "--key-hex", self.K16, "--iv-hex", self.IV[:-2], expect=EXIT_USAGE)
        self.raw("encrypt", "aes-128-ctr", data, "--key-hex", "zz" * 16, "--iv-hex", self.IV, expect=EXIT_USAGE)
        self.raw("encrypt", "no-such-cipher", data, "--key-hex", self.K16, expect=EXIT_USAGE)


class Keygen(Base):
    def test_mode_and_no_overwrite(self):
        old = os.umask(0)
        try:
            p = self.path("new.key")
            rc, _, err = run(["keygen", p])
            self.assertEqual(rc, 0, err)
        finally:
            os.umask(old)
        st = os.stat(p)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        self.assertEqual(st.st_size, 32)
        before = slurp(p)
        rc, _, err = run(["keygen", p])
        self.assertEqual(rc, EXIT_IO, err)
        self.assertEqual(slurp(p), before, "keygen overwrote a key")
        self.assertNotEqual(before, slurp(self.key))
        # --hex writes 64 hex digits and a newline; encrypt reads it.
        h = self.path("hex.key")
        self.assertEqual(run(["keygen", "--hex", h])[0], 0)
        self.assertEqual(stat.S_IMODE(os.stat(h).st_mode), 0o600)
        text = slurp(h).decode()
        self.assertEqual(len(text), 65)
        bytes.fromhex(text.strip())
        src = self.write("plain", b"hello")
        self.assertEqual(run(["encrypt", "-k", h, src, self.path("s")])[0], 0)
        rc, out, _ = run(["decrypt", "-k", h, self.path("s"), "-"])
        self.assertEqual((rc, out), (0, b"hello"))

    def test_symlink_not_followed(self):
        target = self.path("target")
        os.symlink(target, self.path("link.key"))
        rc, _, _ = run(["keygen", self.path("link.key")])
        self.assertEqual(rc, EXIT_IO)
        self.assertFalse(os.path.exists(target))


class ExitCodes(Base):
    def test_codes(self):
        src = self.write("plain", b"data")
        self.assertEqual(run([])[0], EXIT_USAGE)
        self.assertEqual(run(["encrypt", "--no-such-flag"])[0], EXIT_USAGE)
        self.assertEqual(run(["encrypt", "-k", self.key, "-a", "aes-128-ecb", src, self.path("o")])[0], EXIT_USAGE)
        self.assertEqual(run(["encrypt", "-k", self.key, "--segment-size", "1", src, self.path("o")])[0], EXIT_USAGE)
        self.assertEqual(run(["encrypt", "-k", self.key, self.path("missing"), self.path("o")])[0], EXIT_IO)
        self.assertEqual(run(["encrypt", "-k", self.path("missing.key"), src, self.path("o")])[0], EXIT_IO)
        self.assertEqual(run(["encrypt", "-k", self.key, src, self.dir])[0], EXIT_IO)
        self.assertEqual(run(["encrypt", "-k", self.key, src, self.path("nodir/o")])[0], EXIT_IO)
        self.assertEqual(run(["encrypt", "-k", self.key, "--device", "bogus", src, self.path("o")])[0], EXIT_USAGE)
        rc, _, err = run(["encrypt", "-k", self.key, "--device", "cuda:63", src, self.path("o")])
        self.assertEqual(rc, EXIT_DEVICE, err)
        self.assertFalse(os.path.exists(self.path("o")))
        # An existing output is kept unless --force.
        existing = self.write("exists", b"keep me")
        self.assertEqual(run(["encrypt", "-k", self.key, src, existing])[0], EXIT_IO)
        self.assertEqual(self.read("exists"), b"keep me")
        self.assertEqual(run(["encrypt", "-k", self.key, "--force", src, existing])[0], 0)
        self.assertNotEqual(self.read("exists"), b"keep me")
        # A failed decrypt with --force keeps the old file untouched.
        self.write("junk", b"\x89BCF junk")
        self.write("exists", b"keep me")
        self.assertEqual(run(["decrypt", "-k", self.key, "--force", self.path("junk"), existing])[0], EXIT_AUTH)
        self.assertEqual(self.read("exists"), b"keep me")
        self.assertEqual(self.leftovers(), [])

    def test_options_the_mode_ignores_are_refused(self):
        src = self.write("plain", b"data" * 100)
        sealed = self.path("sealed")
        self.assertEqual(run(["encrypt", "-k", self.key, src, sealed])[0], 0)
        cases = [
            (["decrypt", "-a", "chacha20-poly1305", "-k", self.key, sealed, self.path("o")], b"-a"),
            (["encrypt", "--kdf", "argon2id", "-k", self.key, src, self.path("o")], b"--kdf"),
            (["encrypt", "--raw", "-a", "aes-128-ctr", "--key-hex", "00" * 16, "--iv-hex", "00" * 16,
              "--segment-size", "1M", src, self.path("o")], b"--segment-size"),
            (["encrypt", "--raw", "-a", "aes-128-ctr", "--key-hex", "00" * 16, "--iv-hex", "00" * 16,
              "--max-memory", "2G", src, self.path("o")], b"--max-memory"),
            (["decrypt", "--raw", "-a", "aes-128-ctr", "--key-hex", "00" * 16, "--iv-hex", "00" * 16,
              "--max-memory", "2G", src, self.path("o")], b"--max-memory"),
        ]
        for args, word in cases:
            rc, _, err = run(args)
            self.assertEqual(rc, EXIT_USAGE, (args, err))
            self.assertIn(word, err)
            self.assertFalse(os.path.exists(self.path("o")), args)
        # the same commands without the ignored option work
        self.assertEqual(run(["decrypt", "-k", self.key, sealed, self.path("o")])[0], 0)

    def test_every_command_help_ends_with_examples(self):
        for cmd in ("encrypt", "decrypt", "verify", "inspect", "keygen", "devices", "list", "tune", "bench"):
            rc, out, err = run([cmd, "--help"])
            self.assertEqual(rc, 0, err)
            tail = out.rstrip().split(b"\nExamples:\n")
            self.assertEqual(len(tail), 2, f"{cmd} --help has no Examples section at its end")
            # each example is a command line that runs bulkcrypt (or a continuation line)
            self.assertTrue(all(b"bulkcrypt " in line or line.startswith(b"      ")
                                for line in tail[1].splitlines()), tail[1])

    def test_noop_is_for_benchmarks_only(self):
        """"noop" (output = input) would write plaintext with exit code 0: encrypt,
        decrypt and list do not know it; bench keeps it as its baseline."""
        src = self.write("plain", b"secret data")
        for direction in ("encrypt", "decrypt"):
            rc, _, err = run([direction, "--raw", "-a", "noop", "-k", self.key, src, self.path("o")])
            self.assertEqual(rc, EXIT_USAGE, err)
            self.assertIn(b"noop", err)
            self.assertFalse(os.path.exists(self.path("o")))
        rc, out, err = run(["encrypt", "-a", "noop", "-k", self.key, src, self.path("o")])
        self.assertEqual(rc, EXIT_USAGE, err)
        rc, out, err = run(["list", "--json"])
        self.assertEqual(rc, 0, err)
        self.assertNotIn(b'"noop"', out)
        rc, out, err = run(["bench", "-a", "noop", "--size", "1M", "--seconds", "0.05", "--device", "cpu"])
        self.assertEqual(rc, 0, err)

    def test_stale_temporaries_are_removed_live_ones_kept(self):
        """A crash leaves .NAME.*.bctmp beside the output (full size, maybe verified
        plaintext). The next run on that path removes such leftovers, saying so; one still
        locked by its writer, a young one, one of another name and a symlink stay."""
        import fcntl
        data = rand_bytes(3000, 8)
        src = self.write("plain", data)
        old = time.time() - 3600
        stale = self.write(".out.0123456789ab.bctmp", b"verified plaintext of a crashed run")
        live = self.write(".out.ba9876543210.bctmp", b"being written")
        young = self.write(".out.aaaaaaaaaaaa.bctmp", b"just created")
        other = self.write(".out.0123456789ab.bctmp.keep", b"not ours")
        for p in (stale, live, other):
            os.utime(p, (old, old))
        link = self.path(".out.bbbbbbbbbbbb.bctmp")
        os.symlink(src, link)
        holder = os.open(live, os.O_RDONLY)
        fcntl.flock(holder, fcntl.LOCK_EX)
        try:
            rc, _, err = run(["encrypt", "-k", self.key, "--device", DEVICE, src, self.path("out")])
        finally:
            os.close(holder)
        self.assertEqual(rc, 0, err)
        self.assertIn(b"left by an interrupted run", err)
        self.assertFalse(os.path.exists(stale))
        for p in (live, young, other, link):
            self.assertTrue(os.path.lexists(p), p)
        self.assertTrue(os.path.exists(src))

    def test_messages_a_user_can_act_on(self):
        src = self.write("plain", b"data")
        # a first word that is no command names it and lists the commands
        rc, _, err = run(["encrpyt", "-k", self.key, src, self.path("o")])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn(b"unknown command 'encrpyt'", err)
        self.assertIn(b"encrypt, decrypt", err)
        # a bad library option is the option's fault, not the device's
        rc, _, err = run(["encrypt", "-k", self.key, "--options", "bogus=1", src, self.path("o")])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn(b"--options 'bogus=1'", err)
        self.assertNotIn(b"cannot open device", err)
        # an absent GPU is said plainly, not as the runtime's driver-version complaint
        rc, _, err = run(["encrypt", "-k", self.key, "--device", "cuda:63", src, self.path("o")])
        self.assertEqual(rc, EXIT_DEVICE, err)
        self.assertNotIn(b"driver version is insufficient", err)
        self.assertTrue(any(w in err for w in (b"no CUDA driver", b"not present", b"sees no GPU", b"not in this build",
                                               b"older than")), err)
        self.assertFalse(os.path.exists(self.path("o")))

    def test_devices_and_list(self):
        rc, out, err = run(["devices", "--json"])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertTrue(j["cpu"]["available"])
        self.assertTrue(j["cpu"]["model"])
        rc, out, err = run(["devices"])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"cpu", out)
        cat = catalogue()
        for name in ("aes-256-gcm", "aes-128-ecb", "aes-256-xts"):
            self.assertIn(name, cat)
            self.assertIn("cpu", cat[name]["backends"])
        self.assertEqual(cat["aes-256-gcm"]["key_size"], 32)
        self.assertEqual(cat["aes-256-gcm"]["tag_size"], 16)
        self.assertTrue(cat["aes-256-gcm"]["container"])
        self.assertFalse(cat["aes-256-gcm"]["legacy"])
        # 64-bit block ciphers: listed as legacy, never in the container, 2^32 blocks a message
        for name in ("des-ede3-cbc", "bf-ctr", "cast5-ecb", "misty1-ctr", "present80-ecb", "hight-cbc"):
            self.assertIn(name, cat)
            self.assertTrue(cat[name]["legacy"], name)
            self.assertFalse(cat[name]["container"], name)
            self.assertEqual(cat[name]["block_size"], 8, name)
            self.assertEqual(cat[name]["max_message_size"], 8 << 32, name)
        self.assertEqual((cat["bf-cbc"]["key_size_min"], cat["bf-cbc"]["key_size_max"]), (4, 56))
        rc, out, err = run(["list"])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"legacy", out)

    def test_bench(self):
        rc, out, err = run(["bench", "-a", "aes-128-ctr", "--device", DEVICE, "--size", "1M", "--seconds", "0.1",
                            "--json"])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertGreater(j["one_shot"]["gb_per_s"], 0)
        self.assertGreater(j["roof_host_memcpy"]["gb_per_s"], 0)
        # the same path with no cipher, and the cipher as a fraction of it
        self.assertGreater(j["noop"]["gb_per_s"], 0)
        self.assertAlmostEqual(j["noop"]["fraction"], j["one_shot"]["gb_per_s"] / j["noop"]["gb_per_s"], places=6)
        # a context of one kind of device has no CPU-alone rule; the hybrid (CPU and GPUs) has one
        if DEVICE == "cpu" or DEVICE.startswith("cuda:"):
            self.assertEqual(j["cpu_threshold_bytes"], 0)
        elif DEVICE == "hybrid":
            self.assertGreater(j["cpu_threshold_bytes"], 0)
        rc, out, err = run(["bench", "-a", "aes-128-ctr", "--device", DEVICE, "--size", "1M", "--seconds", "0.1"])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"NO-OP, same path", out)
        rc, out, err = run(["bench", "--device", DEVICE, "--size", "2M", "--seconds", "0.1", "--segment-size", "256K",
                            "--decrypt"])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"GB/s", out)
        rc, out, err = run(["bench", "--device", DEVICE, "--size", "2M", "--seconds", "0.1", "--segment-size",
                            "256K", "--json"])
        self.assertEqual(rc, 0, err)
        self.assertGreater(json.loads(out)["segmented"]["gb_per_s"], 0)


    def test_bench_device_memory_needs_a_cuda_device(self):
        rc, _, err = run(["bench", "--memory", "device", "--device", "cpu", "--size", "1M"])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn(b"needs a CUDA device", err)
        rc, _, err = run(["bench", "--memory", "gpu"])
        self.assertEqual(rc, EXIT_USAGE, err)


class InspectVerify(Base):
    """inspect reads a header without a key; verify checks every segment and the end of
    the stream and writes nothing."""

    def test_inspect_key_file_and_passphrase(self):
        data = rand_bytes(3 * SEG + 5, 11)
        blob = self.encrypt(data, alg="chacha20-poly1305")
        rc, out, err = run(["inspect", "--json", self.path("sealed")])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertEqual(j["format_version"], blob[8])
        self.assertEqual(j["algorithm"], "chacha20-poly1305")
        self.assertEqual(j["segment_size"], SEG)
        self.assertEqual(j["kdf"], "key-file")
        self.assertEqual(j["recipients"], 0)
        self.assertEqual(j["plaintext_bytes"], len(data))
        self.assertEqual(j["segments"], 4)
        self.assertEqual(j["header_bytes"], header_len(blob))
        pw = self.write("pw", b"inspect me\n")
        rc, _, err = run(["encrypt", "--passphrase-file", pw, "--kdf-params", "logN=11,r=4,p=3", "--weak-kdf",
                          "--segment-size", SEG, self.path("plain"), self.path("p.bc")])
        self.assertEqual(rc, 0, err)
        rc, out, err = run(["inspect", "--json", self.path("p.bc")])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertEqual((j["kdf"], j["kdf_params"]), ("scrypt", {"logN": 11, "r": 4, "p": 3}))
        self.assertEqual(j["kdf_memory_bytes"], 128 * 4 * 2 ** 11)
        self.assertEqual(j["kdf_passes"], 6)
        rc, out, err = run(["inspect", self.path("p.bc")])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"scrypt logN=11 r=4 p=3", out)
        # no key was asked for, and a file that is not ours is refused
        rc, _, err = run(["inspect", self.write("junk", b"not a container at all" * 10)])
        self.assertEqual(rc, EXIT_AUTH, err)
        self.assertIn(b"not a bulkcrypt file", err)

    def test_inspect_truncated_and_piped(self):
        blob = self.encrypt(rand_bytes(2 * SEG, 12))
        bad = self.write("short", blob[:-5])
        rc, out, err = run(["inspect", "--json", bad])
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["plaintext_bytes"], 2 * SEG - 5)  # the layout's reading of it
        rc, out, err = run(["inspect", "--json", "-"], data=blob)
        self.assertEqual(rc, 0, err)
        self.assertIsNone(json.loads(out)["plaintext_bytes"])

    def test_verify_good_and_every_kind_of_damage(self):
        data = rand_bytes(5 * SEG + 100, 13)
        blob = self.encrypt(data)
        before = sorted(os.listdir(self.dir))
        rc, out, err = run(["verify", "-q", "--device", DEVICE, "-k", self.key, self.path("sealed"), "--json"])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertEqual((j["operation"], j["plaintext_bytes"], j["segments"]), ("verify", len(data), 6))
        self.assertEqual(sorted(os.listdir(self.dir)), before, "verify wrote a file")
        h = header_len(blob)
        stride = SEG + TAG
        damaged = {
            "flipped body": blob[:h + 10] + bytes([blob[h + 10] ^ 1]) + blob[h + 11:],
            "flipped header": blob[:20] + bytes([blob[20] ^ 1]) + blob[21:],
            "truncated at a segment boundary": blob[:h + 3 * stride],
            "last segment dropped": blob[:h + 5 * stride],
            "appended": blob + b"x",
            "segments swapped": blob[:h] + blob[h + stride:h + 2 * stride] + blob[h:h + stride] + blob[h + 2 * stride:],
        }
        for what, b in damaged.items():
            f = self.write("bad", b)
            rc, out, err = run(["verify", "-q", "--device", DEVICE, "-k", self.key, f])
            self.assertEqual(rc, EXIT_AUTH, f"{what}: {err}")
            self.assertEqual(out, b"", f"{what}: verify printed plaintext")
        other = self.path("other.key")
        run(["keygen", other])
        rc, _, err = run(["verify", "-k", other, self.path("sealed")])
        self.assertEqual(rc, EXIT_AUTH, err)
        # from a pipe too
        rc, _, err = run(["verify", "-q", "--device", DEVICE, "-k", self.key, "-"], data=blob)
        self.assertEqual(rc, 0, err)


class Guards(Base):
    """Terminals, weak KDF settings, KDF work a reader accepts, JSON failures, an input
    written to while it is read, bench sizes over memory."""

    def run_pty(self, args, stdin_tty, stdout_tty):
        """Runs bulkcrypt with stdin and/or stdout on a pseudo-terminal (the others on
        pipes); returns (rc, what the terminal showed + stderr)."""
        import pty
        master, slave = pty.openpty()
        p = subprocess.Popen([BC] + [str(a) for a in args], stdin=slave if stdin_tty else subprocess.DEVNULL,
                             stdout=slave if stdout_tty else subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(slave)
        out, err = p.communicate(timeout=60)
        os.set_blocking(master, False)
        shown = b""
        try:
            shown = os.read(master, 65536)
        except OSError:
            pass
        os.close(master)
        return p.returncode, shown + (out or b"") + err

    def test_terminals_need_explicit_dash_or_force_tty(self):
        src = self.write("plain", b"secret" * 100)
        rc, out = self.run_pty(["encrypt", "-k", self.key, src], stdin_tty=False, stdout_tty=True)
        self.assertEqual(rc, EXIT_USAGE, out)
        self.assertIn(b"refusing to write ciphertext to the terminal", out)
        rc, out = self.run_pty(["encrypt", "-k", self.key], stdin_tty=True, stdout_tty=False)
        self.assertEqual(rc, EXIT_USAGE, out)
        self.assertIn(b"refusing to read plaintext from the terminal", out)
        # asked for: - given, or --force-tty
        rc, out = self.run_pty(["encrypt", "-k", self.key, src, "-"], stdin_tty=False, stdout_tty=True)
        self.assertEqual(rc, 0, out)
        rc, out = self.run_pty(["encrypt", "-k", self.key, "--force-tty", src], stdin_tty=False, stdout_tty=True)
        self.assertEqual(rc, 0, out)
        # decrypting to a terminal is what a user asks to read
        self.encrypt(b"hello terminal\n")
        rc, out = self.run_pty(["decrypt", "-k", self.key, self.path("sealed")], stdin_tty=False, stdout_tty=True)
        self.assertEqual(rc, 0, out)
        self.assertIn(b"hello terminal", out)

    def test_weak_kdf_needs_the_flag(self):
        src = self.write("plain", b"x" * 1000)
        pw = self.write("pw", b"weak\n")
        for kdf, params in (("scrypt", "logN=14"), ("argon2id", "t=3,m=19455,p=1")):
            rc, _, err = run(["encrypt", "--passphrase-file", pw, "--kdf", kdf, "--kdf-params", params, src,
                              self.path("w")])
            if b"libargon2" in err:
                continue
            self.assertEqual(rc, EXIT_USAGE, err)
            self.assertIn(b"--weak-kdf", err)
            self.assertFalse(os.path.exists(self.path("w")))
        rc, _, err = run(["encrypt", "--passphrase-file", pw, "--kdf-params", "logN=15", src, self.path("w")])
        self.assertEqual(rc, 0, err)  # the floor itself is accepted
        rc, _, err = run(["encrypt", "-k", self.key, "--weak-kdf", src, self.path("w2")])
        self.assertEqual(rc, EXIT_USAGE, err)  # nothing to weaken with a key file

    def test_reader_bounds_the_kdf_work(self):
        src = self.write("plain", b"y" * 1000)
        pw = self.write("pw", b"costly\n")
        # 128 * 8 * 2^15 = 32 MiB, 2 x 8 = 16 passes: inside the defaults; then bounds under it
        rc, _, err = run(["encrypt", "--passphrase-file", pw, "--kdf-params", "logN=15,r=8,p=8", src, self.path("c")])
        self.assertEqual(rc, 0, err)
        rc, _, err = run(["decrypt", "--passphrase-file", pw, self.path("c"), self.path("out")])
        self.assertEqual(rc, 0, err)
        for args, option in ((["--max-kdf-memory", "16M"], b"--max-kdf-memory"), (["--max-kdf-passes", "8"],
                                                                                     b"--max-kdf-passes")):
            for cmd in (["decrypt", "--passphrase-file", pw, self.path("c"), self.path("out2")],
                        ["verify", "--passphrase-file", pw, self.path("c")]):
                t0 = time.monotonic()
                rc, _, err = run(cmd + args)
                self.assertEqual(rc, EXIT_USAGE, err)
                self.assertIn(option, err)
                self.assertFalse(os.path.exists(self.path("out2")))
        # a crafted header at the format's own bounds (4 GiB, scrypt logN=22 r=8) is refused
        # at once by default: rewrite the KDF block of a real header (its check fails later)
        blob = bytearray(slurp(self.path("c")))
        kdf_at = header_len(blob) - blob[11]
        blob[kdf_at] = 22
        blob[kdf_at + 1:kdf_at + 5] = (8).to_bytes(4, "big")
        blob[kdf_at + 5:kdf_at + 9] = (1).to_bytes(4, "big")
        crafted = self.write("crafted", bytes(blob))
        t0 = time.monotonic()
        rc, _, err = run(["decrypt", "--passphrase-file", pw, crafted, self.path("out3")])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn(b"--max-kdf-memory", err)
        self.assertLess(time.monotonic() - t0, 5, "the bound was checked after deriving")
        # in --raw mode there is no KDF to bound
        rc, _, err = run(["decrypt", "--raw", "-a", "aes-128-ctr", "--key-hex", "00" * 16, "--iv-hex", "00" * 16,
                          "--max-kdf-memory", "1G", src, self.path("r")])
        self.assertEqual(rc, EXIT_USAGE, err)

    def test_json_failures_are_json(self):
        rc, out, err = run(["decrypt", "-k", self.key, "--json", self.path("missing"), self.path("o")])
        self.assertEqual(rc, EXIT_IO, err)
        j = json.loads(out)
        self.assertEqual(j["exit_code"], EXIT_IO)
        self.assertIn("missing", j["error"])
        self.encrypt(b"z" * 5000)
        other = self.path("other.key")
        run(["keygen", other])
        rc, out, err = run(["verify", "-k", other, "--json", self.path("sealed")])
        self.assertEqual(rc, EXIT_AUTH)
        self.assertEqual(json.loads(out)["exit_code"], EXIT_AUTH)
        # OUT is stdout: the object goes to stderr, the data channel stays clean
        rc, out, err = run(["decrypt", "-k", other, "--json", self.path("sealed"), "-"])
        self.assertEqual(rc, EXIT_AUTH)
        self.assertEqual(out, b"")
        self.assertEqual(json.loads(err)["exit_code"], EXIT_AUTH)

    def test_input_written_while_read(self):
        # A file that grows while it is encrypted: the run fails and leaves no output.
        path = self.write("growing", rand_bytes(64 << 20, 14))
        writer = subprocess.Popen([sys.executable, "-c",
                                   "import sys,time\n"
                                   "f=open(sys.argv[1],'ab')\n"
                                   "for i in range(400):\n"
                                   "    f.write(b'x'*4096); f.flush(); time.sleep(0.005)\n", path])
        time.sleep(0.05)
        rc, _, err = run(["encrypt", "-q", "-k", self.key, "-j", "1", "--device", "cpu", path, self.path("g.bc")])
        writer.wait()
        if rc == 0:
            self.skipTest("the writer did not overlap the read on this machine")
        self.assertEqual(rc, EXIT_IO, err)
        self.assertIn(b"changed while it was read", err)
        self.assertFalse(os.path.exists(self.path("g.bc")))
        self.assertEqual(self.leftovers(), [])

    def test_bench_on_opencl_says_why_no_noop(self):
        rc, out, err = run(["bench", "--device", "opencl:0", "-a", "chacha20", "--size", "64K", "--seconds", "0.05",
                            "--json"])
        if rc == EXIT_DEVICE:
            self.skipTest("no OpenCL device: " + err.decode().strip())
        self.assertEqual(rc, 0, err)
        self.assertIn("no NO-OP pass", json.loads(out)["noop"]["skipped"])

    def test_bench_size_over_memory_is_refused(self):
        with open("/proc/meminfo") as f:
            avail = next(int(l.split()[1]) * 1024 for l in f if l.startswith("MemAvailable:"))
        rc, out, err = run(["bench", "--device", "cpu", "--size", str(avail), "--seconds", "0.1"])
        self.assertEqual(rc, EXIT_USAGE, err)
        self.assertIn(b"available", err)


class BenchDeviceMemory(Base):
    """`bulkcrypt bench --memory device`: data in GPU memory, beside the device copy roof."""

    def bench(self, *args):
        rc, out, err = run(["bench", "--memory", "device", "--device", DEVICE, "--size", "4M", "--seconds", "0.1",
                            "--json", *args])
        self.assertEqual(rc, 0, err)
        j = json.loads(out)
        self.assertEqual(j["memory"], "device")
        self.assertGreater(j["one_shot"]["gb_per_s"], 0)
        self.assertGreater(j["roof_device_copy"]["gb_per_s"], 0)
        return j

    def test_raw_modes_both_directions(self):
        for alg in ("aes-128-ctr", "aes-128-ecb", "aes-128-xts", "chacha20"):
            self.bench("-a", alg)
        for alg in ("aes-128-cbc", "aes-128-xts"):
            self.bench("-a", alg, "--decrypt")

    def test_aead_seal_and_open(self):
        for alg in ("aes-256-gcm", "chacha20-poly1305"):
            self.bench("-a", alg)
            self.bench("-a", alg, "--decrypt")

    def test_human_output_names_the_roof(self):
        rc, out, err = run(["bench", "--memory", "device", "--device", DEVICE, "--size", "1M", "--seconds", "0.1",
                            "-a", "aes-128-ctr"])
        self.assertEqual(rc, 0, err)
        self.assertIn(b"device copy", out)
        self.assertIn(b"GPU memory", out)


class Tune(Base):
    """`bulkcrypt tune` on an OpenCL device: a short search stores an entry that --show then
    reports as in use, --reset forgets it, and a bad device is a usage error."""

    def setUp(self):
        super().setUp()
        self.env = dict(os.environ, BULKCRYPT_TUNING_CACHE=self.path("tuning.json"))

    def tune(self, *args):
        p = subprocess.run([BC, "tune", "--device", DEVICE, *args], capture_output=True, env=self.env, timeout=600)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_tune_show_reset(self):
        rc, out, err = self.tune("-a", "chacha20", "--budget", "15", "--size", "1M", "--emit")
        self.assertEqual(rc, 0, err)
        self.assertIn("search", out)
        self.assertIn("stored    " + self.path("tuning.json"), out)
        self.assertIn('"generic", "*"', out)  # --emit: a shipped-table entry
        with open(self.path("tuning.json")) as f:
            cache = json.load(f)
        self.assertEqual(cache["format"], 1)
        self.assertEqual(len(cache["devices"]), 1)
        rc, out, err = self.tune("--show")
        self.assertEqual(rc, 0, err)
        self.assertIn("from the tuning cache", out)
        rc, out, err = self.tune("--reset")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.tune("--show")
        self.assertEqual(rc, 0, err)
        self.assertIn("from the shipped table", out)

    def test_bad_device_and_budget(self):
        p = subprocess.run([BC, "tune", "--device", "opencl:x"], capture_output=True, env=self.env, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        p = subprocess.run([BC, "tune", "--device", DEVICE, "--budget", "0"], capture_output=True, env=self.env,
                           timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)


class Memory(Base):
    """A file much larger than the memory bound streams through in bounded memory."""

    SIZE = 256 << 20
    BOUND_MIB = 64  # peak RSS allowed: --max-memory 16M of segments plus the program and library

    def peak_rss(self, args, stdin=None, stdout=None):
        """Peak resident memory of one bulkcrypt run, in MiB. Not getrusage of the
        child: its ru_maxrss counts this Python process too (the forked image
        before exec). GNU time's %M where installed (it forks from a small
        process), else the child's own VmHWM polled from /proc until it exits."""
        cmd = [BC] + [str(a) for a in args]
        gnu_time = shutil.which("time", path="/usr/bin:/bin")
        report = self.path("rss.txt")
        if gnu_time:
            cmd = [gnu_time, "-f", "%M", "-o", report] + cmd
        with open(stdin or os.devnull, "rb") as fi, open(stdout or os.devnull, "wb") as fo:
            p = subprocess.Popen(cmd, stdin=fi, stdout=fo, stderr=subprocess.PIPE)
            hwm_kib = 0
            if not gnu_time:
                import time
                while p.poll() is None:
                    try:
                        with open(f"/proc/{p.pid}/status") as st:
                            for line in st:
                                if line.startswith("VmHWM:"):
                                    hwm_kib = max(hwm_kib, int(line.split()[1]))
                    except OSError:
                        pass
                    time.sleep(0.005)
            err = p.stderr.read()
            p.stderr.close()
            self.assertEqual(p.wait(), 0, err)
        if gnu_time:
            with open(report) as f:
                hwm_kib = int(f.read().split()[-1])
        self.how = "GNU time %M" if gnu_time else "VmHWM polled"
        return hwm_kib / 1024.0

    def test_bounded_memory(self):
        src = self.path("big")
        block = rand_bytes(1 << 20, 77)
        with open(src, "wb") as f:
            for i in range(self.SIZE >> 20):
                f.write(bytes([i & 255]) + block[1:])
        sealed, back = self.path("big.bc"), self.path("big.out")
        opts = ["-k", self.key, "--device", DEVICE, "--max-memory", "16M", "-j", "4"]
        results = {}
        results["encrypt file->file"] = self.peak_rss(["encrypt", *opts, "--segment-size", "1M", src, sealed])
        results["encrypt pipe->pipe"] = self.peak_rss(["encrypt", *opts, "--segment-size", "1M", "-", "-"], stdin=src)
        results["decrypt file->file"] = self.peak_rss(["decrypt", *opts, sealed, back])
        results["decrypt pipe->pipe"] = self.peak_rss(["decrypt", *opts, "-", "-"], stdin=sealed)
        def digest(path):
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for piece in iter(lambda: f.read(1 << 20), b""):
                    h.update(piece)
            return h.hexdigest()
        self.assertEqual(os.path.getsize(back), self.SIZE)
        self.assertEqual(digest(back), digest(src))
        # The pipe-to-pipe round trip, checked too.
        piped = self.path("big.piped")
        with open(src, "rb") as fi, open(piped, "wb") as fo:
            enc = subprocess.Popen([BC, "encrypt", *opts, "-", "-"], stdin=fi, stdout=subprocess.PIPE)
            dec = subprocess.Popen([BC, "decrypt", *opts, "-", "-"], stdin=enc.stdout, stdout=fo)
            enc.stdout.close()
            self.assertEqual((enc.wait(), dec.wait()), (0, 0))
        self.assertEqual(digest(piped), digest(src))
        for what, mib in results.items():
            print(f"\n  peak RSS {what}, {self.SIZE >> 20} MiB file: {mib:.1f} MiB (bound {self.BOUND_MIB} MiB, "
                  f"{self.how})", file=sys.stderr)
            self.assertLess(mib, self.BOUND_MIB, what)


def device_available():
    rc, out, err = run(["devices", "--json"])
    if rc != 0:
        return False, err.decode()
    j = json.loads(out)
    if DEVICE in ("cpu", "auto"):
        return True, ""
    family = DEVICE.split(":")[0]
    names = [d["device"] for d in j.get(family, {}).get("devices", [])]
    if DEVICE in names:
        return True, ""
    return False, j.get(family, {}).get("why_none", "not listed by `bulkcrypt devices`")


if __name__ == "__main__":
    if not BC or not os.access(BC, os.X_OK):
        print("BULKCRYPT must name the bulkcrypt executable", file=sys.stderr)
        sys.exit(2)
    ok, why = device_available()
    if not ok:
        print(f"SKIPPED: device {DEVICE} not available here: {why}")
        sys.exit(77)
    unittest.main(verbosity=2)

"""bulkcrypt.dask on a LocalCluster of two worker processes started here: one large
file, a tree and arrays, each round-tripped and checked against the command line; a
worker killed in the middle of a job; tampered segments and chunks."""

from __future__ import annotations

import os
import random
import subprocess

import pytest

import bulkcrypt

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
da = pytest.importorskip("dask.array", reason="dask.array is not installed")
np = pytest.importorskip("numpy", reason="NumPy is not installed")
bcd = pytest.importorskip("bulkcrypt.dask", reason="bulkcrypt.dask does not import")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None,
                                       worker_dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def keyfile(tmp_path_factory, cli):
    p = tmp_path_factory.mktemp("key") / "k.key"
    subprocess.run([cli, "keygen", str(p)], check=True, capture_output=True)
    return p


def rand(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def write(p, data: bytes):
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def cli_decrypt(cli, keyfile, src, dst):
    subprocess.run([cli, "decrypt", "-k", str(keyfile), str(src), str(dst)], check=True, capture_output=True)
    return dst.read_bytes()


# ---- one file --------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["aes-256-gcm", "chacha20-poly1305", "xchacha20-poly1305"])
def test_file_both_ways_with_the_command(client, cli, keyfile, tmp_path, algorithm):
    data = rand((3 << 20) + 12345, 1)
    src = write(tmp_path / "plain", data)
    # 4 KiB segments, 64 KiB a task: ~50 tasks over two workers
    r = bcd.encrypt_file(src, tmp_path / "c.bc", key_file=keyfile, algorithm=algorithm, segment_size=4096,
                         task_bytes=64 << 10, client=client)
    assert r.segments == -(-len(data) // 4096) and (tmp_path / "c.bc").stat().st_size == r.container_bytes
    assert cli_decrypt(cli, keyfile, tmp_path / "c.bc", tmp_path / "cli.out") == data
    subprocess.run([cli, "encrypt", "-k", str(keyfile), "-a", algorithm, "--segment-size", "8192", str(src),
                    str(tmp_path / "cli.bc")], check=True, capture_output=True)
    bcd.decrypt_file(tmp_path / "cli.bc", tmp_path / "back", key_file=keyfile, task_bytes=32 << 10, client=client)
    assert (tmp_path / "back").read_bytes() == data


def test_file_with_passphrase_and_empty_file(client, cli, tmp_path):
    pw = write(tmp_path / "pw", b"dask passphrase\n")
    for size in (0, 70_001):
        data = rand(size, size)
        src = write(tmp_path / f"p{size}", data)
        bcd.encrypt_file(src, tmp_path / f"c{size}", passphrase="dask passphrase", kdf_params={"logN": 10},
                         segment_size=1024, task_bytes=8192, client=client)
        out = tmp_path / f"o{size}"
        subprocess.run([cli, "decrypt", "--passphrase-file", str(pw), str(tmp_path / f"c{size}"), str(out)],
                       check=True, capture_output=True)
        assert out.read_bytes() == data
        bcd.decrypt_file(tmp_path / f"c{size}", tmp_path / f"d{size}", passphrase=b"dask passphrase",
                         client=client)
        assert (tmp_path / f"d{size}").read_bytes() == data


@pytest.mark.parametrize("where", [0, 37, "last"])
def test_tampered_segment_fails_the_whole_file_and_names_it(client, keyfile, tmp_path, where):
    data = rand(200_000, 2)
    src = write(tmp_path / "plain", data)
    r = bcd.encrypt_file(src, tmp_path / "c.bc", key_file=keyfile, segment_size=2048, task_bytes=16 << 10,
                         client=client)
    seg = r.segments - 1 if where == "last" else where
    blob = bytearray((tmp_path / "c.bc").read_bytes())
    header = len(blob) - len(data) - 16 * r.segments
    blob[header + seg * (2048 + 16) + 5] ^= 0x40
    (tmp_path / "c.bc").write_bytes(bytes(blob))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    with pytest.raises(bulkcrypt.InvalidTag, match=f"segment {seg} of {r.segments}"):
        bcd.decrypt_file(tmp_path / "c.bc", out_dir / "plain", key_file=keyfile, task_bytes=16 << 10,
                         client=client)
    assert os.listdir(out_dir) == [], "something was left at the destination"


def test_a_worker_killed_mid_job_changes_nothing(client, cli, keyfile, tmp_path):
    """The first seal task to start kills its worker process; its range runs again on
    another (or the restarted) worker, writing the same bytes at the same offsets."""
    marker = str(tmp_path / "killed")

    def make_plugin(marker):
        class KillOnce(distributed.WorkerPlugin):
            def transition(self, key, start, finish, **kwargs):
                if finish == "executing" and "bulkcrypt-seal" in str(key) and not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)
        return KillOnce()

    client.register_plugin(make_plugin(marker), name="kill-once")
    try:
        data = rand((2 << 20) + 7, 3)
        src = write(tmp_path / "plain", data)
        bcd.encrypt_file(src, tmp_path / "c.bc", key_file=keyfile, segment_size=4096, task_bytes=128 << 10,
                         client=client, retries=0)
    finally:
        client.unregister_worker_plugin("kill-once")
    assert os.path.exists(marker), "no worker was killed: the test did not test anything"
    assert cli_decrypt(cli, keyfile, tmp_path / "c.bc", tmp_path / "out") == data
    client.wait_for_workers(2, timeout=60)


def test_insecure_transport_is_refused():
    class Remote:
        class scheduler:
            address = "tcp://10.1.2.3:8786"

    with pytest.raises(bulkcrypt.InvalidArgument, match="TLS"):
        bcd._check_transport(Remote(), False)
    bcd._check_transport(Remote(), True)


# ---- a tree ------------------------------------------------------------------------------------


def test_tree_round_trip_resume_and_the_command(client, cli, keyfile, tmp_path):
    src = tmp_path / "src"
    files = {f"d{i % 3}/sub{i % 2}/f{i}.bin": rand(random.Random(i).randrange(0, 300_000), 100 + i)
             for i in range(12)}
    for rel, data in files.items():
        write(src / rel, data)
    dst = tmp_path / "enc"
    r = bcd.encrypt_tree(src, dst, key_file=keyfile, segment_size=65536, client=client)
    assert (r.done, r.skipped) == (12, 0) and r.plaintext_bytes == sum(map(len, files.values()))
    for i, (rel, data) in enumerate(list(files.items())[:4]):  # the command opens them
        assert cli_decrypt(cli, keyfile, dst / (rel + ".bc"), tmp_path / f"x{i}") == data
    # resumed: nothing to do; then one source changes and one container is lost
    assert bcd.encrypt_tree(src, dst, key_file=keyfile, client=client).skipped == 12
    changed, lost = "d0/sub0/f0.bin", "d1/sub1/f1.bin"
    files[changed] = rand(1234, 999)
    write(src / changed, files[changed])
    os.unlink(dst / (lost + ".bc"))
    r = bcd.encrypt_tree(src, dst, key_file=keyfile, client=client)
    assert (r.done, r.skipped) == (2, 10)
    back = tmp_path / "back"
    r = bcd.decrypt_tree(dst, back, key_file=keyfile, client=client)
    assert r.done == 12
    for rel, data in files.items():
        assert (back / rel).read_bytes() == data, rel


def test_tree_with_a_passphrase_stretches_once(client, cli, tmp_path):
    src = tmp_path / "src"
    for i in range(5):
        write(src / f"f{i}", rand(5000 * i, i))
    dst = tmp_path / "enc"
    bcd.encrypt_tree(src, dst, passphrase="tree", kdf_params={"logN": 10}, client=client)
    salts = {bulkcrypt.files._read_header(dst / f"f{i}.bc").kdf.salt for i in range(5)}
    assert len(salts) == 1, "each container stretched the passphrase again"
    pw = write(tmp_path / "pw", b"tree\n")
    out = tmp_path / "o"
    subprocess.run([cli, "decrypt", "--passphrase-file", str(pw), str(dst / "f3.bc"), str(out)], check=True,
                   capture_output=True)
    assert out.read_bytes() == rand(15000, 3)
    bcd.decrypt_tree(dst, tmp_path / "back", passphrase="tree", client=client)
    assert (tmp_path / "back" / "f4").read_bytes() == rand(20000, 4)


# ---- arrays ------------------------------------------------------------------------------------


def test_array_round_trip_keeps_shape_dtype_chunks(client):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1000, 777)).astype(np.float32)
    dx = da.from_array(x, chunks=(300, 200))  # uneven edges
    key = os.urandom(32)
    enc = bcd.encrypt_array(dx, key)
    sealed = enc.data.compute()
    assert sealed.dtype == np.uint8 and sealed.nbytes == x.nbytes + 16 * dx.npartitions
    assert not np.array_equal(sealed[:100], x.reshape(-1).view(np.uint8)[:100])
    back = bcd.decrypt_array(bcd.EncryptedArray(da.from_array(sealed, chunks=enc.data.chunks), enc.meta), key)
    assert back.shape == x.shape and back.dtype == x.dtype and back.chunks == dx.chunks
    assert np.array_equal(back.compute(), x)
    # the same array sealed twice gets another salt, so nonces never repeat under one key
    assert bcd.encrypt_array(dx, key).meta["salt"] != enc.meta["salt"]


def test_array_tamper_and_swap_are_caught(client):
    x = np.arange(64 * 64, dtype=np.int64).reshape(64, 64)
    dx = da.from_array(x, chunks=(16, 32))
    key = os.urandom(32)
    enc = bcd.encrypt_array(dx, key, algorithm="chacha20-poly1305")
    sealed = enc.data.compute()
    n = enc.data.chunks[0][0]
    bad = sealed.copy()
    bad[n + 3] ^= 1  # chunk 1
    with pytest.raises(bulkcrypt.InvalidTag):
        bcd.decrypt_array(bcd.EncryptedArray(da.from_array(bad, chunks=enc.data.chunks), enc.meta), key).compute()
    swapped = np.concatenate([sealed[n:2 * n], sealed[:n], sealed[2 * n:]])
    with pytest.raises(bulkcrypt.InvalidTag):
        bcd.decrypt_array(bcd.EncryptedArray(da.from_array(swapped, chunks=enc.data.chunks), enc.meta),
                          key).compute()
    other = dict(enc.meta, shape=[64, 64], dtype=np.dtype(np.uint64).str)  # a lie about the description
    with pytest.raises(bulkcrypt.InvalidTag):
        bcd.decrypt_array(bcd.EncryptedArray(da.from_array(sealed, chunks=enc.data.chunks), other), key).compute()
    with pytest.raises(bulkcrypt.InvalidTag):
        bcd.decrypt_array(bcd.EncryptedArray(da.from_array(sealed, chunks=enc.data.chunks), enc.meta),
                          os.urandom(32)).compute()


def test_tree_resumes_after_a_failed_file(client, cli, keyfile, tmp_path):
    """One file fails (a directory sits where its container goes); the others finish and
    are recorded; the job run again does only the failed one."""
    src = tmp_path / "src"
    for i in range(6):
        write(src / f"f{i}", rand(10_000 + i, 50 + i))
    dst = tmp_path / "enc"
    (dst / "f3.bc").mkdir(parents=True)
    with pytest.raises(Exception, match="f3"):
        bcd.encrypt_tree(src, dst, key_file=keyfile, client=client)
    lines = (dst / bcd.MANIFEST).read_text().splitlines()
    assert len(lines) == 5 and not any('"f3"' in ln for ln in lines)
    (dst / "f3.bc").rmdir()
    r = bcd.encrypt_tree(src, dst, key_file=keyfile, client=client)
    assert (r.done, r.skipped) == (1, 5)
    assert cli_decrypt(cli, keyfile, dst / "f3.bc", tmp_path / "o3") == rand(10_003, 53)


def test_progress_bar_runs(client, keyfile, tmp_path, capsys):
    src = write(tmp_path / "plain", rand(100_000, 9))
    bcd.encrypt_file(src, tmp_path / "c.bc", key_file=keyfile, segment_size=4096, task_bytes=16 << 10,
                     client=client, progress=True)
    bcd.decrypt_file(tmp_path / "c.bc", tmp_path / "o", key_file=keyfile, client=client, progress=True)
    assert (tmp_path / "o").read_bytes() == rand(100_000, 9)


def test_cupy_chunks_stay_on_the_gpu():
    """A Dask array of CuPy chunks sealed and opened on its GPU (the threaded scheduler:
    the chunks live in this process's GPU memory)."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        ctx_ok = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no driver
        ctx_ok = False
    if not ctx_ok:
        pytest.skip("no CUDA device")
    import dask

    x = cupy.random.standard_normal((2048, 1536), dtype=cupy.float32)
    dx = da.from_array(x, chunks=(512, 512), asarray=False)
    key = os.urandom(32)
    with dask.config.set(scheduler="threads"):
        enc = bcd.encrypt_array(dx, key, device="cuda:0")
        sealed = enc.data.compute()
        assert isinstance(sealed, cupy.ndarray) and enc.meta["module"] == "cupy"
        back = bcd.decrypt_array(bcd.EncryptedArray(da.from_array(sealed, chunks=enc.data.chunks, asarray=False),
                                                    enc.meta), key, device="cuda:0").compute()
    assert isinstance(back, cupy.ndarray) and bool((back == x).all())
    # the same chunk sealed on the CPU is the same bytes
    host = bcd.encrypt_array(da.from_array(cupy.asnumpy(x), chunks=(512, 512)), key)
    first = bcd._seal_block(cupy.asnumpy(x[:512, :512]), bcd._array_key(key, enc.meta), enc.meta["algorithm"], 0,
                            bcd._array_aad(enc.meta), "cpu")
    assert bytes(first) == bytes(cupy.asnumpy(sealed[: first.nbytes]))
    assert host.meta["salt"] != enc.meta["salt"]

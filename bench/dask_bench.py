#!/usr/bin/env python3
"""bulkcrypt.dask on one machine: the Dask path against the command line on the same
file, and the aggregate rate against the worker count, beside the storage bound
measured in the same run.

  dask_bench.py --cli BUILD/cli/bulkcrypt --dir DIR [--size GIB] [--workers 1,2,4,8] [--gpu] [--json PATH]

The storage bound: the same file copied by all cores with pread/pwrite into the same
file system (a container's job reads and writes each byte once, as a copy does).
Rates are GB/s of plaintext (1e9 bytes), the median of --runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time


def copy_rate(src: str, dst: str, threads: int, piece: int = 64 << 20) -> float:
    size = os.path.getsize(src)
    fi = os.open(src, os.O_RDONLY)
    fo = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.ftruncate(fo, size)
    offsets = list(range(0, size, piece))
    lock = threading.Lock()

    def work():
        buf = bytearray(piece)
        while True:
            with lock:
                if not offsets:
                    return
                off = offsets.pop()
            n = os.preadv(fi, [memoryview(buf)[: min(piece, size - off)]], off)
            os.pwrite(fo, memoryview(buf)[:n], off)

    t0 = time.perf_counter()
    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.perf_counter() - t0
    os.close(fi)
    os.close(fo)
    os.unlink(dst)
    return size / dt / 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--dir", required=True, help="a folder on the file system to measure (tmpfs: memory)")
    ap.add_argument("--size", type=float, default=4.0, help="GiB of plaintext")
    ap.add_argument("--workers", default="1,2,4,8")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--gpu", action="store_true", help="also one GPU worker (device cuda:0)")
    ap.add_argument("--json")
    a = ap.parse_args()

    from distributed import Client, LocalCluster

    import bulkcrypt
    import bulkcrypt.dask as bcd

    cores = os.cpu_count() or 1
    size = int(a.size * (1 << 30))
    src = os.path.join(a.dir, "bench.plain")
    key = os.path.join(a.dir, "bench.key")
    with open(src, "wb") as f:
        block = os.urandom(64 << 20)
        for off in range(0, size, len(block)):
            f.write(block[: min(len(block), size - off)])
    if not os.path.exists(key):
        subprocess.run([a.cli, "keygen", key], check=True, capture_output=True)
    out = os.path.join(a.dir, "bench.bc")
    res: dict = {"bulkcrypt": bulkcrypt.__version__, "cores": cores, "size": size, "date": time.strftime("%Y-%m-%d"),
                 "dir": "tmpfs" if a.dir.startswith("/dev/shm") else "disk"}

    def timed(fn) -> float:
        rates = []
        for _ in range(a.runs):
            if os.path.exists(out):
                os.unlink(out)
            t0 = time.perf_counter()
            fn()
            rates.append(size / (time.perf_counter() - t0) / 1e9)
        return statistics.median(rates)

    res["storage_copy_gbps"] = statistics.median(copy_rate(src, out + ".copy", cores) for _ in range(a.runs))
    res["cli_cpu_gbps"] = timed(lambda: subprocess.run([a.cli, "encrypt", "-k", key, "--device", "cpu", src, out],
                                                       check=True, capture_output=True))
    rows = []
    for w in [int(x) for x in a.workers.split(",")]:
        threads = max(1, cores // w)
        with LocalCluster(n_workers=w, threads_per_worker=threads, processes=True, dashboard_address=None) as cl, \
                Client(cl) as c:
            dev = f"cpu threads={threads}"
            c.run(lambda: None)
            rate = timed(lambda: bcd.encrypt_file(src, out, key_file=key, client=c, device=dev, overwrite=True))
            rows.append({"workers": w, "threads_per_worker": threads, "device": dev, "gbps": rate})
            print(f"workers {w} x {threads} threads: {rate:.2f} GB/s", flush=True)
    if a.gpu:
        with LocalCluster(n_workers=1, threads_per_worker=4, processes=True, dashboard_address=None) as cl, \
                Client(cl) as c:
            rate = timed(lambda: bcd.encrypt_file(src, out, key_file=key, client=c, device="cuda:0", overwrite=True))
            rows.append({"workers": 1, "threads_per_worker": 4, "device": "cuda:0", "gbps": rate})
            print(f"GPU worker: {rate:.2f} GB/s", flush=True)
    res["dask"] = rows
    best = max(r["gbps"] for r in rows if r["device"].startswith("cpu"))
    res["dask_best_cpu_fraction_of_cli"] = best / res["cli_cpu_gbps"]
    print(f"\n{cores} cores, {a.size:g} GiB on {res['dir']}; storage copy {res['storage_copy_gbps']:.2f} GB/s, "
          f"command line (cpu) {res['cli_cpu_gbps']:.2f} GB/s")
    print("| workers | threads each | device | GB/s | of the command line |")
    print("| ---: | ---: | --- | ---: | ---: |")
    for r in rows:
        print(f"| {r['workers']} | {r['threads_per_worker']} | {r['device']} | {r['gbps']:.2f} | "
              f"{r['gbps'] / res['cli_cpu_gbps']:.2f} |")
    for p in (src, out):
        if os.path.exists(p):
            os.unlink(p)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

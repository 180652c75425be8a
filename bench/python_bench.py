#!/usr/bin/env python3
"""The Python package against the C API it binds, measured in one run.

  python_bench.py --capi BUILD/bench/capi_bench [--json PATH] [--skip-gpu] [--threads N]

1. Overhead: 64-byte AEAD messages on the CPU, ns per call, Python (encrypt, which
   allocates its result, and encrypt_into) against capi_bench's loop of bc_aead_seal.
2. GPU memory (PyTorch and CuPy, when there with a CUDA device): 1 GiB tensors sealed
   with AES-256-GCM and ChaCha20-Poly1305 on Context("cuda:0"), against capi_bench on
   cudaMalloc'd buffers (the two in turns), beside the host-to-device copy rate (pinned)
   measured in the same run: a rate above it cannot have crossed to the host. Then the
   fixed cost of a call, at 1 MiB.
3. Threads: 1 MiB AES-256-GCM messages on the CPU from 1 and from N Python threads
   (default: every core), aggregate GB/s, with the default context and with
   threads=1 (each call on its calling thread, so only the GIL decides the scaling).

Rates are GB/s of payload (1e9 bytes); each figure is the median of its runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time

import bulkcrypt

AEADS = ("aes-256-gcm", "chacha20-poly1305")


def capi(path: str, *args: str) -> dict:
    out = subprocess.run([path, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def ns_per_call(fn, seconds: float = 0.5, runs: int = 5) -> float:
    fn()
    results = []
    for _ in range(runs):
        calls = 0
        t0 = time.perf_counter()
        while True:
            for _ in range(100):
                fn()
            calls += 100
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        results.append(elapsed * 1e9 / calls)
    return statistics.median(results)


def overhead(capi_path: str) -> list[dict]:
    rows = []
    ctx = bulkcrypt.Context("cpu")
    for alg in AEADS:
        c = capi(capi_path, "--alg", alg, "--size", "64", "--device", "cpu", "--runs", "5", "--seconds", "0.5")
        info = bulkcrypt._native.algorithm_info(alg)
        a = bulkcrypt.AEAD(alg, bytes([0x42]) * info["key_size"], ctx)
        nonce, data = bytes(info["iv_size"]), bytes(64)
        buf = bytearray(64 + 16)
        py_new = ns_per_call(lambda: a.encrypt(nonce, data, None))
        py_into = ns_per_call(lambda: a.encrypt_into(nonce, data, None, buf))
        rows.append({"alg": alg, "size": 64, "capi_ns": c["ns_per_call"], "python_encrypt_ns": py_new,
                     "python_encrypt_into_ns": py_into, "overhead_encrypt_ns": py_new - c["ns_per_call"],
                     "overhead_encrypt_into_ns": py_into - c["ns_per_call"]})
    return rows


def gpu_rate(fn, nbytes: int, sync, runs: int = 10) -> float:
    fn()
    sync()
    rates = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        sync()
        rates.append(nbytes / (time.perf_counter() - t0) / 1e9)
    return statistics.median(rates)


def gpu(capi_path: str, size: int, turns: int = 5) -> dict:
    try:
        import torch
    except ImportError:
        return {"skipped": "PyTorch is not installed"}
    if not torch.cuda.is_available():
        return {"skipped": "no CUDA device"}
    ctx = bulkcrypt.Context("cuda:0")
    result: dict = {"device": torch.cuda.get_device_name(0), "context": ctx.device_name, "size": size, "rows": []}
    src = torch.randint(0, 256, (size,), dtype=torch.uint8, device="cuda")
    dst = torch.empty(size + 16, dtype=torch.uint8, device="cuda")
    sync = torch.cuda.synchronize
    # The roof a host copy could not exceed: pinned host -> device, same run.
    pinned = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    result["h2d_pinned_gbps"] = gpu_rate(lambda: src.copy_(pinned, non_blocking=True), size, sync)
    result["d2d_copy_gbps"] = gpu_rate(lambda: dst[:size].copy_(src), 2 * size, sync) / 2
    del pinned
    try:
        import cupy
    except ImportError:
        cupy = None
    for alg in AEADS:
        info = bulkcrypt._native.algorithm_info(alg)
        a = bulkcrypt.AEAD(alg, bytes([0x42]) * info["key_size"], ctx)
        nonce = bytes(info["iv_size"])
        # In turns (C API, Python, C API, Python, ...): the GPU's clocks drift as it warms
        # under sustained load, and a figure taken once early and one taken later differ
        # by that drift, not by the binding. Each side's median over its turns.
        capi_runs, into_runs = [], []
        for _ in range(turns):
            capi_runs.append(capi(capi_path, "--alg", alg, "--size", str(size), "--device", "cuda:0", "--memory",
                                  "device", "--runs", "5", "--seconds", "0")["gbps"])
            into_runs.append(gpu_rate(lambda: a.encrypt_into(nonce, src, None, dst), size, sync, runs=5))
        c = {"gbps": statistics.median(capi_runs)}
        row = {"alg": alg, "capi_gbps": c["gbps"], "capi_turns": capi_runs, "torch_into_turns": into_runs}
        row["torch_encrypt_into_gbps"] = statistics.median(into_runs)
        row["torch_encrypt_gbps"] = gpu_rate(lambda: a.encrypt(nonce, src, None), size, sync)
        ptr_before = dst.data_ptr()
        a.encrypt_into(nonce, src, None, dst)
        row["torch_output_pointer_kept"] = dst.data_ptr() == ptr_before
        if cupy is not None:
            csrc = cupy.asarray(src)  # the same memory, through __cuda_array_interface__ / DLPack
            cdst = cupy.asarray(dst)
            row["cupy_encrypt_into_gbps"] = gpu_rate(lambda: a.encrypt_into(nonce, csrc, None, cdst), size,
                                                     cupy.cuda.Device().synchronize)
        row["torch_fraction_of_capi"] = row["torch_encrypt_into_gbps"] / c["gbps"]
        # The fixed cost of a call: 1 MiB, where it dominates, per call in microseconds.
        small = 1 << 20
        c1 = capi(capi_path, "--alg", alg, "--size", str(small), "--device", "cuda:0", "--memory", "device",
                  "--runs", "5", "--seconds", "0.3")
        s_src, s_dst = src[:small], dst[: small + 16]
        row["capi_1mib_us"] = c1["ns_per_call"] / 1e3
        row["torch_1mib_us"] = ns_per_call(lambda: a.encrypt_into(nonce, s_src, None, s_dst), 0.3) / 1e3
        # the same call on raw pointers: what the array protocols cost beside the call itself
        row["pointers_1mib_us"] = ns_per_call(lambda: a._call_pointers(
            0, nonce, None, s_src.data_ptr(), small, s_dst.data_ptr(), small + 16, 1, 0, 0, 0, False, 16, 0),
            0.3) / 1e3
        result["rows"].append(row)
    return result


def threads(nthreads: int, seconds: float = 2.0) -> list[dict]:
    rows = []
    for options in (None, "threads=1"):
        ctx = bulkcrypt.Context("cpu", options)
        a = bulkcrypt.AEAD("aes-256-gcm", bytes(32), ctx)
        size = 1 << 20

        def rate(n: int) -> float:
            done = [0] * n
            stop = threading.Event()
            start = threading.Barrier(n + 1)

            def worker(i: int) -> None:
                data, buf, nonce = bytes(size), bytearray(size + 16), bytes(12)
                start.wait()
                while not stop.is_set():
                    a.encrypt_into(nonce, data, None, buf)
                    done[i] += 1

            ts = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
            for t in ts:
                t.start()
            start.wait()
            t0 = time.perf_counter()
            time.sleep(seconds)
            stop.set()
            for t in ts:
                t.join()
            return sum(done) * size / (time.perf_counter() - t0) / 1e9

        one = statistics.median(rate(1) for _ in range(3))
        many = statistics.median(rate(nthreads) for _ in range(3))
        rows.append({"context": f"cpu{',' + options if options else ''}", "message": size, "threads": nthreads,
                     "one_thread_gbps": one, "n_threads_gbps": many, "speedup": many / one})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capi", required=True, help="the capi_bench program of the same build")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--skip-gpu", action="store_true")
    ap.add_argument("--gpu-size", type=int, default=1 << 30)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    res = {"bulkcrypt": bulkcrypt.__version__, "python": platform.python_version(), "cpu": platform.processor(),
           "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}
    res["overhead"] = overhead(args.capi)
    print("| 64-byte AEAD, CPU | C API ns/call | Python encrypt ns | overhead | encrypt_into ns | overhead |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in res["overhead"]:
        print(f"| {r['alg']} | {r['capi_ns']:.0f} | {r['python_encrypt_ns']:.0f} | {r['overhead_encrypt_ns']:.0f} | "
              f"{r['python_encrypt_into_ns']:.0f} | {r['overhead_encrypt_into_ns']:.0f} |")
    if not args.skip_gpu:
        res["gpu"] = gpu(args.capi, args.gpu_size)
        g = res["gpu"]
        if "skipped" in g:
            print(f"\nskipped: GPU part: {g['skipped']}")
        else:
            print(f"\n{g['device']}: {g['size'] >> 20} MiB in GPU memory; host->device pinned copy "
                  f"{g['h2d_pinned_gbps']:.1f} GB/s, device copy {g['d2d_copy_gbps']:.0f} GB/s")
            print("| algorithm | C API GB/s | torch encrypt_into | fraction | torch encrypt (allocating) | CuPy into |")
            print("| --- | ---: | ---: | ---: | ---: | ---: |")
            for r in g["rows"]:
                cp = f"{r['cupy_encrypt_into_gbps']:.1f}" if "cupy_encrypt_into_gbps" in r else "-"
                print(f"| {r['alg']} | {r['capi_gbps']:.1f} | {r['torch_encrypt_into_gbps']:.1f} | "
                      f"{r['torch_fraction_of_capi']:.3f} | {r['torch_encrypt_gbps']:.1f} | {cp} |")
            print("\n| 1 MiB in GPU memory, us per call | C API | torch encrypt_into | raw pointers |")
            print("| --- | ---: | ---: | ---: |")
            for r in g["rows"]:
                print(f"| {r['alg']} | {r['capi_1mib_us']:.1f} | {r['torch_1mib_us']:.1f} | {r['pointers_1mib_us']:.1f} |")
    res["threads"] = threads(args.threads)
    print(f"\n| 1 MiB AES-256-GCM, CPU | 1 thread GB/s | {args.threads} threads GB/s | speedup |")
    print("| --- | ---: | ---: | ---: |")
    for r in res["threads"]:
        print(f"| {r['context']} | {r['one_thread_gbps']:.2f} | {r['n_threads_gbps']:.2f} | {r['speedup']:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

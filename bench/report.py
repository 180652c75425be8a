#!/usr/bin/env python3
"""Turns a folder of benchmark JSON files into REPORT.md and PNG plots.

    bench/report.py RESULTS_DIR [--out FILE] [--no-plots]

Reads every *.json in RESULTS_DIR:
  - sweep.json (bench/sweep, schema "bulkcrypt-sweep/1"): the main source;
  - cpu_bench JSON (keys large_message_gbps, small_message_gbps);
  - `bulkcrypt bench --json` output (keys one_shot, bytes_per_call);
  - run.json (written by bench/run_all.sh: which programs ran, how long, exit codes);
  - any other JSON (gpu_bench, gpu_stream_bench, opencl_bench, ...): every record
    carrying a throughput figure is listed as found, fields it lacks left blank.
Writes RESULTS_DIR/REPORT.md and RESULTS_DIR/plots/*.png. Without matplotlib the
report is written without plots, and says so.

Units: GB/s = 1e9 bytes of payload per second, everywhere.
"""

import argparse
import glob
import json
import math
import os
import sys

# --------------------------------------------------------------------------------------
# The studies' and peers' headline figures, as printed, with their hardware. "ours"
# says which figure of this run sits beside each: (path, algorithm, size or None for
# the best over sizes). Sources: ../shared/DESIGN.md and issues 3, 4, 5, 8.
STUDIES = [
    # study, what, as printed, hardware, GB/s, ours
    ("Salsa20 GPU study (autotuning)", "Salsa20/8, no host transfers", "51.55 GB/s", "GTX 590",
     51.55, ("gpu-dev", "salsa20-8", None)),
    ("Salsa20 GPU study (autotuning)", "Salsa20/12, no host transfers", "43.44 GB/s", "GTX 590",
     43.44, ("gpu-dev", "salsa20-12", None)),
    ("Salsa20 GPU study (autotuning)", "Salsa20/20, no host transfers", "27.65 GB/s", "GTX 590",
     27.65, ("gpu-dev", "salsa20", None)),
    ("Salsa20 GPU study (autotuning)", "Salsa20/20, with host transfers", "about 2.8 GB/s", "GTX 590",
     2.8, ("gpu-host", "salsa20", None)),
    ("OpenCL crypto library (thesis)", "AES-CTR with transfers", "252 MB/s", "GTX 580",
     0.252, ("gpu-host", "aes-128-ctr", None)),
    ("OpenCL crypto library, rerun", "AES-128-CTR end to end, 1 GiB", "2.9 GB/s", "H100 (this machine)",
     2.9, ("gpu-host", "aes-128-ctr", 1 << 30)),
    ("OpenCL crypto library, rerun", "AES-128-CTR end to end, 1 GiB, through OpenCL", "2.9 GB/s",
     "H100 (this machine)", 2.9, ("opencl", "aes-128-ctr", 1 << 30)),
    ("OpenCL crypto library, rerun", "AES-128-CTR kernel alone", "5.3 GB/s", "H100 (this machine)",
     5.3, ("gpu-dev", "aes-128-ctr", 1 << 30)),
    ("OpenCL crypto library, rerun", "Blowfish end to end (kernel 46 GB/s)", "5.3 GB/s", "H100 (this machine)",
     5.3, None),
    ("FPGA OpenCL study", "NO-OP pipeline (transfers only)", "1,491.90 MB/s", "FPGA board over PCIe",
     1.4919, ("gpu-host", "noop", None)),
    ("Best published GPU AES", "AES-128, bitsliced", "1.47 Tbps", "V100",
     1.47e12 / 8 / 1e9, ("gpu-dev", "aes-128-ctr", None)),
    ("Best published GPU AES", "AES-128, table-based", "878.6 Gbps", "RTX 2070 Super",
     878.6e9 / 8 / 1e9, ("gpu-dev-table", "aes-128-ctr", None)),
    ("Record CUDA AES, rerun", "AES-128 keystream, no data read or written", "about 370 GB/s",
     "H100 (this machine)", 370.0, ("gpu-dev-table", "aes-128-ctr", None)),
]

# OpenSSL on the H100 machine's 16 cores, 16 KiB calls (DESIGN.md), beside this run.
DESIGN_OPENSSL = [
    ("aes-128-ctr", "85-94 GB/s"), ("aes-256-gcm", "119-166 GB/s"), ("aes-256-xts", "66 GB/s"),
    ("chacha20", "70 GB/s"), ("chacha20-poly1305", "40 GB/s"),
]

# The issues' performance targets, checked against this run where it has the figures.
# (issue, what, kind, args): kind "abs" = path/alg best >= value; "rel" = best of a over
# best of b (same path) >= fraction.
TARGETS = [
    ("3", "AES-128-CTR on GPU memory >= 400 GB/s (stretch 600)", "abs", ("gpu-dev", "aes-128-ctr", 400.0)),
    ("3", "AES-256-GCM >= 70% of AES-256-CTR (GPU memory)", "rel", ("gpu-dev", "aes-256-gcm", "aes-256-ctr", 0.70)),
    ("3", "AES-128-XTS >= 90% of AES-128-CTR (GPU memory)", "rel", ("gpu-dev", "aes-128-xts", "aes-128-ctr", 0.90)),
    ("3", "AES-128-ECB >= 90% of AES-128-CTR (GPU memory)", "rel", ("gpu-dev", "aes-128-ecb", "aes-128-ctr", 0.90)),
    ("3", "AES-128-CBC decryption >= 90% of AES-128-CTR (GPU memory)", "rel",
     ("gpu-dev", "aes-128-cbc:decrypt", "aes-128-ctr", 0.90)),
    ("4", "ChaCha20 on GPU memory >= 1,000 GB/s", "abs", ("gpu-dev", "chacha20", 1000.0)),
    ("4", "Salsa20/12 on GPU memory >= 1,200 GB/s", "abs", ("gpu-dev", "salsa20-12", 1200.0)),
    ("4", "ChaCha20-Poly1305 on GPU memory >= 600 GB/s", "abs", ("gpu-dev", "chacha20-poly1305", 600.0)),
    ("5", "AES-128-CTR from host memory >= 90% of the NO-OP pipeline", "rel",
     ("gpu-host-pinned", "aes-128-ctr", "noop", 0.90)),
    ("5", "AES-256-GCM from host memory >= 90% of the NO-OP pipeline", "rel",
     ("gpu-host-pinned", "aes-256-gcm", "noop", 0.90)),
    ("5", "ChaCha20-Poly1305 from host memory >= 90% of the NO-OP pipeline", "rel",
     ("gpu-host-pinned", "chacha20-poly1305", "noop", 0.90)),
    ("5", "AES-128-CTR hybrid >= 85% of CPU alone + GPU alone (host memory)", "sum",
     ("hybrid", ("cpuN", "gpu-host"), "aes-128-ctr", 0.85)),
    ("5", "AES-256-GCM hybrid >= 85% of CPU alone + GPU alone (host memory)", "sum",
     ("hybrid", ("cpuN", "gpu-host"), "aes-256-gcm", 0.85)),
    ("5", "ChaCha20-Poly1305 hybrid >= 85% of CPU alone + GPU alone (host memory)", "sum",
     ("hybrid", ("cpuN", "gpu-host"), "chacha20-poly1305", 0.85)),
    ("5", "a 4 KiB job through the engine (hybrid) no slower than OpenSSL on one core by more than 10%", "small",
     ("hybrid", "aes-128-ctr", 4096, 0.90)),
]

PATH_ORDER = ["gpu-dev", "gpu-dev-table", "gpu-all", "gpu-host-pinned", "gpu-host", "hybrid", "opencl", "cpuN",
              "cpuN-portable", "cpu1"]
PATH_LABEL = {
    "gpu-dev": "GPU, GPU memory",
    "gpu-dev-table": "GPU table AES, GPU memory",
    "gpu-host-pinned": "GPU, pinned host memory",
    "gpu-host": "GPU, host memory (end to end)",
    "gpu-all": "every GPU, host memory",
    "hybrid": "CPU + GPU (engine), host memory",
    "opencl": "OpenCL, host memory",
    "cpuN": "CPU, all cores",
    "cpuN-portable": "CPU portable cores, all cores",
    "cpu1": "CPU, one core",
}


# --------------------------------------------------------------------------------------
# Small helpers


def num(x):
    """A finite float, or None."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def med(rec):
    """The median GB/s of a sweep record, tolerant of shapes."""
    g = rec.get("gbps")
    if isinstance(g, dict):
        return num(g.get("median"))
    return num(g)


def spread(rec):
    """(min, max) GB/s of a record, (None, None) when it has no spread."""
    g = rec.get("gbps") if isinstance(rec, dict) else None
    if isinstance(g, dict):
        return num(g.get("min")), num(g.get("max"))
    return None, None


def human_bytes(n):
    try:
        n = int(n)
    except (TypeError, ValueError):
        return "-"
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f and n % f == 0:
            return "%d %s" % (n // f, unit)
    for unit, f in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= f and n % f == 0:
            return "%d %s" % (n // f, unit)
    return "%d B" % n


def fmt_gbps(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 0.1:
        return "%.2f" % v
    return "%.3g" % v


def fmt_s(v):
    if v is None:
        return "-"
    if v >= 1:
        return "%.2f s" % v
    if v >= 1e-3:
        return "%.2f ms" % (v * 1e3)
    return "%.1f µs" % (v * 1e6)


def pct(v):
    return "-" if v is None else "%.0f%%" % (100 * v)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in r) + " |")
    return "\n".join(out) + "\n"


def path_base(name):
    """opencl@1 -> opencl (several OpenCL devices share one column family)."""
    return name.split("@")[0] if name else name


# --------------------------------------------------------------------------------------
# Loading


class Data:
    def __init__(self):
        self.sweeps = []        # (file, dict)
        self.cpu_bench = []     # (file, dict)
        self.cli_bench = []     # (file, dict)
        self.others = []        # (file, dict or list)
        self.manifest = None
        self.unreadable = []    # (file, why)
        self.results = []       # sweep results, each with "_file"

    def load(self, folder):
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            base = os.path.basename(path)
            try:
                with open(path) as f:
                    text = f.read()
                try:
                    d = json.loads(text)
                except json.JSONDecodeError:
                    # JSON lines (several objects, one per line), as some tools print.
                    d = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
                    if not d:
                        raise
            except (OSError, ValueError) as e:
                self.unreadable.append((base, str(e).splitlines()[0] if str(e) else type(e).__name__))
                continue
            self.classify(base, d)
        for _, s in self.sweeps:
            for r in s.get("results", []) or []:
                if isinstance(r, dict):
                    self.results.append(r)

    def classify(self, base, d):
        if isinstance(d, list):
            # JSON lines of a known format are split; any other list stays one file.
            known = all(isinstance(x, dict) and (("one_shot" in x and "bytes_per_call" in x) or
                                                 "large_message_gbps" in x) for x in d)
            if known and d:
                for i, x in enumerate(d):
                    self.classify("%s[%d]" % (base, i), x)
            else:
                self.others.append((base, d))
            return
        if not isinstance(d, dict):
            self.others.append((base, d))
        elif d.get("schema", "").startswith("bulkcrypt-sweep"):
            self.sweeps.append((base, d))
        elif d.get("schema", "").startswith("bulkcrypt-run") or base == "run.json":
            self.manifest = d
        elif "large_message_gbps" in d or "small_message_gbps" in d:
            self.cpu_bench.append((base, d))
        elif "one_shot" in d and "bytes_per_call" in d:
            self.cli_bench.append((base, d))
        else:
            self.others.append((base, d))

    # The sweep's figures ------------------------------------------------------------

    def ok(self, path=None, alg=None):
        for r in self.results:
            if r.get("status") != "ok" or med(r) is None:
                continue
            if path is not None and path_base(r.get("path")) != path and r.get("path") != path:
                continue
            if alg is not None and r.get("algorithm") != alg:
                continue
            yield r

    def best(self, path, alg, size=None):
        """The best median over sizes, or the figure at `size` (else the largest size
        under it that was measured). None when absent."""
        rs = list(self.ok(path, alg))
        if not rs:
            return None
        if size is None:
            return max(rs, key=med)
        at = [r for r in rs if r.get("bytes") == size]
        if at:
            return max(at, key=med)
        under = [r for r in rs if (r.get("bytes") or 0) <= size]
        return max(under, key=lambda r: (r.get("bytes") or 0, med(r))) if under else None

    def algorithms(self, measured_only=True):
        """Algorithms in sweep order; by default only those with a figure."""
        seen = []
        for r in self.results:
            a = r.get("algorithm")
            if a and a not in seen and (not measured_only or (r.get("status") == "ok" and med(r) is not None)):
                seen.append(a)
        return seen

    def paths(self):
        names = []
        for r in self.results:
            p = r.get("path")
            if p and p not in names and r.get("status") == "ok":
                names.append(p)
        return sorted(names, key=lambda p: (PATH_ORDER.index(path_base(p)) if path_base(p) in PATH_ORDER else 99, p))

    def roofs(self):
        out = {}
        for _, s in self.sweeps:
            for r in s.get("roofs", []) or []:
                if isinstance(r, dict) and r.get("name"):
                    out[r["name"]] = r
        return out

    def curves(self):
        out = {}
        for _, s in self.sweeps:
            for c in s.get("roof_curves", []) or []:
                if isinstance(c, dict) and c.get("name") and c.get("points"):
                    out[c["name"]] = [(p.get("bytes"), num(p.get("gbps"))) for p in c["points"]
                                      if isinstance(p, dict) and num(p.get("gbps"))]
        return out

    def openssl(self, alg, procs_all):
        """(figure at 16 KiB or the largest size, record) for one process (procs_all
        False) or one per core."""
        for _, s in self.sweeps:
            for o in s.get("openssl", []) or []:
                if not isinstance(o, dict) or o.get("algorithm") != alg or o.get("status") != "ok":
                    continue
                if (o.get("processes", 1) > 1) != procs_all:
                    continue
                pts = [(p.get("bytes"), num(p.get("gbps"))) for p in o.get("points", []) if isinstance(p, dict)]
                pts = [p for p in pts if p[1] is not None]
                if not pts:
                    continue
                at = [g for b, g in pts if b == 16384]
                return (at[0] if at else pts[-1][1]), o
        return None, None


# --------------------------------------------------------------------------------------
# Plots


def make_plots(data, outdir, notes):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        msg = ("matplotlib is not installed: REPORT.md is written without plots "
               "(install it with `apt-get install python3-matplotlib` or `pip install matplotlib`)")
        print("report.py: " + msg, file=sys.stderr)
        notes.append(msg)
        return []
    os.makedirs(os.path.join(outdir, "plots"), exist_ok=True)
    made = []
    roofs = data.roofs()
    curves = data.curves()
    styles = {
        "gpu-dev": ("tab:red", "o"), "gpu-dev-table": ("tab:pink", "v"), "gpu-host-pinned": ("tab:orange", "s"),
        "gpu-host": ("tab:brown", "D"), "opencl": ("tab:purple", "^"), "cpuN": ("tab:blue", "o"),
        "cpuN-portable": ("tab:cyan", "x"), "cpu1": ("tab:green", "s"), "hybrid": ("tab:olive", "*"),
        "gpu-all": ("tab:gray", "h"),
    }
    roof_style = {
        "cuda-d2d": "tab:red", "pcie-end-to-end": "tab:orange", "host-memcpy-all": "tab:blue",
        "host-memcpy-1t": "tab:green", "pcie-bidir-pinned": "tab:olive",
    }

    def fname(s):
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in s)

    for alg in data.algorithms():
        series = {}
        for r in data.ok(alg=alg):
            series.setdefault(r["path"], []).append(r)
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(9, 5.5))
        used_roofs = set()
        for p in sorted(series, key=lambda p: PATH_ORDER.index(path_base(p)) if path_base(p) in PATH_ORDER else 99):
            rs = sorted(series[p], key=lambda r: r.get("bytes") or 0)
            xs = [r["bytes"] for r in rs]
            ys = [med(r) for r in rs]
            lo = [spread(r)[0] for r in rs]
            hi = [spread(r)[1] for r in rs]
            color, marker = styles.get(path_base(p), (None, "o"))
            ax.plot(xs, ys, marker=marker, ms=3, lw=1.4, color=color, label=PATH_LABEL.get(path_base(p), p) +
                    ("" if p == path_base(p) else " (%s)" % p))
            if all(v is not None for v in lo + hi):
                ax.fill_between(xs, lo, hi, color=color, alpha=0.15, lw=0)
            if rs[0].get("roof"):
                used_roofs.add(rs[0]["roof"])
        for procs_all, mk in ((False, "X"), (True, "P")):
            _, o = data.openssl(alg.split(":")[0], procs_all)
            if o and not alg.endswith(":decrypt"):
                pts = [(p.get("bytes"), num(p.get("gbps"))) for p in o.get("points", [])
                       if isinstance(p, dict) and num(p.get("gbps")) and p.get("bytes")]
                ax.plot([b for b, _ in pts], [g for _, g in pts], ls="none", marker=mk, ms=8, color="black",
                        label="openssl speed, %s" % ("%d processes" % o.get("processes") if procs_all else "1 process"))
        for name in sorted(used_roofs):
            r = roofs.get(name)
            g = med(r) if isinstance(r, dict) else None
            if g:
                ax.axhline(g, ls="--", lw=1, color=roof_style.get(name, "gray"))
                ax.annotate("roof: %s %s GB/s" % (name, fmt_gbps(g)), xy=(0.01, g), xycoords=("axes fraction", "data"),
                            fontsize=7, va="bottom", color=roof_style.get(name, "gray"))
        for cname, roof_names in (("cuda-d2d", ("cuda-d2d",)), ("pcie-roundtrip-pinned", ("pcie-end-to-end",)),
                                  ("host-memcpy-1t", ("host-memcpy-1t", "host-memcpy-all"))):
            if cname in curves and used_roofs.intersection(roof_names):
                pts = curves[cname]
                ax.plot([b for b, _ in pts], [g for _, g in pts], ls=":", lw=1, color=roof_style.get(roof_names[0], "gray"),
                        label="roof curve: %s" % cname)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("payload per call (bytes)")
        ax.set_ylabel("GB/s (1e9 B/s), median; band = min..max")
        ax.set_title("%s: throughput against payload size" % alg)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        name = "plots/throughput_%s.png" % fname(alg)
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        made.append((alg, name))

    # Algorithms: best GPU, CPU and openssl figures side by side.
    algs = data.algorithms()
    bars = [("gpu-dev", "GPU, GPU memory"), ("gpu-host-pinned", "GPU, pinned host"), ("gpu-host", "GPU, host (end to end)"),
            ("opencl", "OpenCL"), ("cpuN", "CPU, all cores"), ("cpu1", "CPU, one core")]
    bars = [(p, l) for p, l in bars if any(data.best(p, a) for a in algs)]
    osl = [(True, "openssl, all cores"), (False, "openssl, one core")]
    if algs and bars:
        import numpy as np
        fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(algs) + 3), 5.5))
        n = len(bars) + len(osl)
        w = 0.8 / n
        x = np.arange(len(algs))
        def labelled(xs, vals, **kw):
            ax.bar(xs, vals, w, **kw)
            for xi, v in zip(xs, vals):
                if v:
                    ax.annotate(fmt_gbps(v), (xi, v), ha="center", va="bottom", fontsize=6, rotation=90,
                                xytext=(0, 2), textcoords="offset points")

        for i, (p, label) in enumerate(bars):
            vals = [med(data.best(p, a)) if data.best(p, a) else 0 for a in algs]
            labelled(x + (i - n / 2 + 0.5) * w, vals, label=label, color=styles.get(p, (None,))[0])
        for j, (procs_all, label) in enumerate(osl):
            vals = [(data.openssl(a.split(":")[0], procs_all)[0] or 0) if not a.endswith(":decrypt") else 0
                    for a in algs]
            labelled(x + (len(bars) + j - n / 2 + 0.5) * w, vals, label=label,
                     color="black" if procs_all else "gray")
        ax.set_xticks(x)
        ax.set_xticklabels(algs, rotation=30, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("best GB/s over sizes (openssl: 16 KiB calls)")
        ax.set_ylim(top=ax.get_ylim()[1] * 3)  # room for the value labels
        ax.set_title("Algorithms: GPU against CPU against openssl speed, same run")
        ax.grid(True, axis="y", which="both", alpha=0.25)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "plots/algorithms.png"), dpi=110)
        plt.close(fig)
        made.append(("algorithms", "plots/algorithms.png"))

    # CPU thread scaling.
    scal = []
    for _, s in data.sweeps:
        scal += ((s.get("scaling") or {}).get("cpu_threads") or [])
    if scal:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for e in scal:
            pts = [(p.get("threads"), med(p)) for p in e.get("points", []) if p.get("status") == "ok" and med(p)]
            if pts:
                ax.plot([t for t, _ in pts], [g for _, g in pts], marker="o", label="%s, %s" % (
                    e.get("algorithm"), human_bytes(e.get("bytes", 0))))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("CPU backend threads")
        ax.set_ylabel("GB/s (1e9 B/s), median")
        ax.set_title("CPU backend: threads against throughput")
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "plots/cpu_scaling.png"), dpi=110)
        plt.close(fig)
        made.append(("cpu scaling", "plots/cpu_scaling.png"))
    return made


# --------------------------------------------------------------------------------------
# The report


def cell(rec, with_size=True, roof=False):
    if not rec:
        return "-"
    s = fmt_gbps(med(rec))
    if with_size and rec.get("bytes") is not None:
        s += " @ " + human_bytes(rec["bytes"])
    if roof and num(rec.get("fraction_of_roof")) is not None:
        s += " (%s of %s)" % (pct(num(rec["fraction_of_roof"])), rec.get("roof", "roof"))
    return s


def write_report(data, folder, out_path, plots, notes):
    L = []
    w = L.append
    w("# bulkcrypt benchmark report\n")
    w("GB/s means 1e9 bytes of payload per second. Each figure is the median of at least the run's "
      "minimum number of timed runs after a warm-up, with the min..max spread in the tables below; "
      "every figure stands beside the roof that bounds it, measured in the same run.\n")
    for n in notes:
        w("> **Note:** %s\n" % n)

    # Run -----------------------------------------------------------------------------------
    w("## The run\n")
    rows = []
    for f, s in data.sweeps:
        m = s.get("meta", {}) or {}
        gpu = m.get("gpu", {}) or {}
        smi = gpu.get("nvidia_smi", {}) or {}
        rows += [
            ("file", f), ("date (UTC)", m.get("date", "-")), ("host", m.get("host", "-")),
            ("git commit", "%s%s" % (m.get("git_commit", "unknown"), " (uncommitted changes)" if m.get("git_dirty") else "")),
            ("bulkcrypt", m.get("bulkcrypt_version", "-")),
            ("CPU", "%s, %s logical cores" % (m.get("cpu_model", "-"), m.get("cpu_cores", "-"))),
            ("GPU", gpu.get("name") or ("none: " + str(gpu.get("reason", "-")))),
        ]
        if gpu.get("name"):
            rows += [("GPU details", "%s multiprocessors, compute %s, %s MHz max SM clock, %.1f GB, CUDA driver API %s, runtime %s" % (
                gpu.get("multiprocessors", "-"), gpu.get("compute_capability", "-"), gpu.get("sm_clock_max_mhz", "-"),
                (num(gpu.get("memory_bytes")) or 0) / 1e9, gpu.get("cuda_driver_api", "-"), gpu.get("cuda_runtime", "-")))]
        if smi.get("driver"):
            rows += [("driver, clocks (nvidia-smi)", "driver %s; SM %s (max %s), memory %s (max %s); PCIe gen %s x%s; power limit %s; %s °C" % (
                smi.get("driver"), smi.get("clocks_sm"), smi.get("clocks_max_sm"), smi.get("clocks_mem"),
                smi.get("clocks_max_mem"), smi.get("pcie_gen"), smi.get("pcie_width"), smi.get("power_limit"),
                smi.get("temperature_c")))]
        elif smi:
            rows += [("nvidia-smi", smi.get("reason", "-"))]
        rows += [("OpenCL devices", "; ".join(m.get("opencl_devices", []) or []) or str(m.get("opencl", "none"))),
                 ("OpenSSL", "%s (library); `openssl` command: %s" % (m.get("openssl_library", "-"), m.get("openssl_cli", "-"))),
                 ("mode", "%s: sizes up to %s, at least %s runs, point cap %s s, budget %s s" % (
                     m.get("mode", "-"), human_bytes(m.get("max_bytes", 0)), m.get("runs_min", "-"),
                     m.get("point_cap_s", "-"), m.get("budget_s", "-"))),
                 ("sweep time", "%s s%s" % ("%.0f" % num(m.get("elapsed_s")) if num(m.get("elapsed_s")) is not None else "-",
                                            " (budget exhausted: later points skipped)" if m.get("budget_exhausted") else "")),
                 ("method", m.get("method", "-"))]
    if not data.sweeps:
        rows.append(("sweep", "no sweep JSON in %s" % folder))
    w(md_table(["", ""], rows))
    if data.manifest:
        progs = data.manifest.get("programs", []) or []
        if progs:
            w("Programs run by `bench/run_all.sh` (%s mode):\n" % data.manifest.get("mode", "-"))
            w(md_table(["program", "exit", "seconds", "output"],
                       [(p.get("name", "-"), p.get("exit", "-"), p.get("seconds", "-"),
                         ", ".join("`%s`" % x for x in p.get("files", []) or []) or "-") for p in progs]))
    if data.unreadable:
        w("Unreadable files: " + "; ".join("`%s` (%s)" % u for u in data.unreadable) + "\n")

    # Roofs ---------------------------------------------------------------------------------
    roofs = data.roofs()
    w("## Roofs, measured in this run\n")
    if roofs:
        rows = []
        for name, r in roofs.items():
            g = r.get("gbps") if isinstance(r.get("gbps"), dict) else {}
            if r.get("ops_per_s") is not None:
                val = "%.2f T int32 ops/s" % ((num(r.get("ops_per_s")) or 0) / 1e12)
                span = "-"
            else:
                val = fmt_gbps(num(g.get("median"))) + " GB/s"
                span = "%s..%s" % (fmt_gbps(num(g.get("min"))), fmt_gbps(num(g.get("max")))) if g.get("min") is not None else "-"
            rows.append((name, val, span, human_bytes(r["bytes"]) if r.get("bytes") else "-", r.get("timer", "-"),
                         r.get("note", "")))
        w(md_table(["roof", "figure", "min..max", "size", "timer", "what"], rows))
    else:
        w("No roof was measured (no sweep JSON).\n")

    # Headline ------------------------------------------------------------------------------
    algs = data.algorithms()
    paths = data.paths()
    if algs and paths:
        w("## Headline: best figure per algorithm and path\n")
        w("Best median GB/s over the sizes swept, the size where it was reached, and its share of the "
          "path's roof (flat roofs are measured on buffers far larger than the caches; a payload that stays "
          "in cache can pass them, and the per-size roof curves in the plots show that). `openssl speed` "
          "figures are 16 KiB calls, one process and one per core, same run (`-elapsed`: wall-clock time).\n")
        rows = []
        for a in algs:
            row = [a]
            for p in paths:
                row.append(cell(data.best(p, a), roof=True))
            base = a.split(":")[0]
            for procs_all in (False, True):
                v, _ = data.openssl(base, procs_all) if not a.endswith(":decrypt") else (None, None)
                row.append(fmt_gbps(v))
            rows.append(row)
        w(md_table(["algorithm"] + paths + ["openssl x1", "openssl xN"], rows))
        for name, file in plots:
            if name == "algorithms":
                w("![algorithms](%s)\n" % file)

    # Studies -------------------------------------------------------------------------------
    w("## The studies and peers beside this run\n")
    w("Figures as printed, with their hardware; GB/s normalised to 1e9 B/s (1 Gbps = 0.125 GB/s). "
      "\"ours\" is this run's figure for the same work where it exists.\n")
    rows = []
    for study, what, printed, hw, gbps, ours in STUDIES:
        rec = data.best(*ours) if ours else None
        if rec:
            o = "%s GB/s (%s, %s, %s)" % (fmt_gbps(med(rec)), rec.get("path"), rec.get("algorithm"),
                                         human_bytes(rec.get("bytes", 0)))
            ratio = "%.2fx" % (med(rec) / gbps)
        elif ours and ours[1] == "noop" and "pcie-end-to-end" in roofs:
            g = num(roofs["pcie-end-to-end"].get("gbps", {}).get("median"))
            o = "%s GB/s (PCIe roof, transfers only; no NO-OP algorithm in bulkcrypt yet)" % fmt_gbps(g)
            ratio = "%.2fx" % (g / gbps) if g else "-"
        else:
            o = "not measured" + (" (%s, %s)" % (ours[0], ours[1]) if ours else " (bulkcrypt has no such algorithm yet)")
            ratio = "-"
        rows.append((study, what, printed, hw, fmt_gbps(gbps), o, ratio))
    w(md_table(["study", "figure", "as printed", "hardware", "GB/s", "ours", "ours / theirs"], rows))
    rows = []
    for alg, printed in DESIGN_OPENSSL:
        v1, _ = data.openssl(alg, True)
        c = data.best("cpuN", alg)
        rows.append((alg, printed, fmt_gbps(v1), cell(c)))
    w("OpenSSL on the H100 machine's 16 cores (DESIGN.md, 16 KiB calls) beside this run:\n")
    w(md_table(["algorithm", "DESIGN.md", "openssl speed -multi, this run", "bulkcrypt CPU backend, all cores"], rows))

    # Targets -------------------------------------------------------------------------------
    w("## The issues' targets\n")
    rows = []
    for issue, what, kind, args in TARGETS:
        if kind == "abs":
            p, a, goal = args
            rec = data.best(p, a)
            if rec:
                rows.append((issue, what, "%s GB/s (%s)" % (fmt_gbps(med(rec)), human_bytes(rec.get("bytes", 0))),
                             "met" if med(rec) >= goal else "not met"))
            else:
                rows.append((issue, what, "not measured", "-"))
        elif kind == "sum":
            p, parts, a, frac = args
            # At the largest size measured on all three paths.
            sizes = set(r.get("bytes") for r in data.ok(p, a))
            for q in parts:
                sizes &= set(r.get("bytes") for r in data.ok(q, a))
            if sizes:
                b = max(sizes)
                h = data.best(p, a, b)
                ps = [data.best(q, a, b) for q in parts]
                total = sum(med(x) for x in ps)
                rows.append((issue, what, "%s / (%s) GB/s at %s = %s" % (
                    fmt_gbps(med(h)), " + ".join(fmt_gbps(med(x)) for x in ps), human_bytes(b), pct(med(h) / total)),
                    "met" if med(h) >= frac * total else "not met"))
            else:
                rows.append((issue, what, "not measured (needs %s and %s)" % (p, ", ".join(parts)), "-"))
        elif kind == "small":
            p, a, size, frac = args
            rec = data.best(p, a, size)
            o1, _ = data.openssl(a, False)
            c1 = data.best("cpu1", a, size)
            if rec and rec.get("bytes") == size and (o1 or c1):
                ref_txt = "bulkcrypt CPU one core %s" % fmt_gbps(med(c1)) if c1 else ""
                # openssl speed has no 4 KiB point in the default run: the CPU backend on one
                # core at the same size (OpenSSL's EVP underneath) is the reference then.
                ref = med(c1) if c1 else o1
                rows.append((issue, what, "%s GB/s at %s against %s GB/s (%s)" % (
                    fmt_gbps(med(rec)), human_bytes(size), fmt_gbps(ref), ref_txt or "openssl speed, 16 KiB"),
                    "met" if med(rec) >= frac * ref else "not met"))
            else:
                rows.append((issue, what, "not measured (%s at %s)" % (p, human_bytes(size)), "-"))
        else:
            p, a, b, frac = args
            ra, rb = data.best(p, a), data.best(p, b)
            if ra and rb and med(rb):
                f = med(ra) / med(rb)
                rows.append((issue, what, "%s / %s GB/s = %s" % (fmt_gbps(med(ra)), fmt_gbps(med(rb)), pct(f)),
                             "met" if f >= frac else "not met"))
            else:
                rows.append((issue, what, "not measured (%s)" % ("no %s on %s" % (a if not ra else b, p)), "-"))
    w(md_table(["issue", "target", "this run", "verdict"], rows))

    # Latency -------------------------------------------------------------------------------
    lat = []
    for _, s in data.sweeps:
        lat += s.get("latency", []) or []
    if lat:
        w("## Latency: start-up, key set-up, the smallest job, first against warm call\n")
        rows = []
        for d in lat:
            if d.get("status") != "ok":
                rows.append((d.get("device", "-"), "skipped: " + str(d.get("reason", "")), "", "", "", "", ""))
                continue
            head = "%s (first %s, then %s)" % (d.get("device"), fmt_s(num(d.get("context_create_first_s"))),
                                               fmt_s(num(d.get("context_create_second_s"))))
            for e in d.get("algorithms", []) or []:
                if e.get("status") == "skipped":
                    rows.append((head, e.get("algorithm"), "skipped: " + str(e.get("reason", "")), "", "", "", ""))
                    continue
                kc = e.get("key_create_s") or {}
                for c in e.get("calls", []) or []:
                    wc = c.get("warm_call_s") or {}
                    rows.append((head, e.get("algorithm"),
                                 "%s first, %s warm" % (fmt_s(num(e.get("key_create_first_s"))), fmt_s(num(kc.get("median")))),
                                 human_bytes(c.get("bytes", 0)), fmt_s(num(c.get("first_call_s"))),
                                 "%s (%s..%s)" % (fmt_s(num(wc.get("median"))), fmt_s(num(wc.get("min"))), fmt_s(num(wc.get("max")))),
                                 c.get("reason", "")))
        w(md_table(["device (context creation)", "algorithm", "key creation", "job", "first call", "warm call (min..max)", "note"], rows))
        # The smallest job on every path of the sweep (16 B or the smallest size measured).
        rows = []
        for p in paths:
            for a in algs:
                rs = sorted(data.ok(p, a), key=lambda r: r.get("bytes") or 0)
                if rs:
                    r = rs[0]
                    rows.append((p, a, human_bytes(r.get("bytes", 0)), fmt_s(num(r.get("seconds_per_call"))), r.get("timer", "-")))
                    break
        if rows:
            w("The smallest job of the sweep per path (time per call, median):\n")
            w(md_table(["path", "algorithm", "size", "time per call", "timer"], rows))

    # Scaling -------------------------------------------------------------------------------
    for _, s in data.sweeps:
        sc = s.get("scaling") or {}
        if not sc:
            continue
        w("## Scaling\n")
        rows = []
        for e in sc.get("cpu_threads", []) or []:
            for p in e.get("points", []) or []:
                lo, hi = spread(p)
                rows.append((e.get("algorithm"), human_bytes(e.get("bytes", 0)), p.get("threads"),
                             fmt_gbps(med(p)) if p.get("status") == "ok" else p.get("reason", "failed"),
                             "%s..%s" % (fmt_gbps(lo), fmt_gbps(hi)) if lo is not None else "-"))
        if rows:
            w(md_table(["algorithm", "size", "CPU threads", "GB/s", "min..max"], rows))
        for key, what in (("gpu_multiprocessors", "GPU: one multiprocessor against all"),
                          ("multi_gpu", "several GPUs")):
            e = sc.get(key)
            if isinstance(e, dict):
                w("- %s: %s%s\n" % (what, e.get("status", "-"), (": " + e["reason"]) if e.get("reason") else ""))
        for name, file in plots:
            if name == "cpu scaling":
                w("![cpu scaling](%s)\n" % file)

    # Per-algorithm detail ------------------------------------------------------------------
    algs = data.algorithms(measured_only=False)
    if algs:
        w("## Throughput against size, per algorithm\n")
        w("Median GB/s (min..max) per payload size and path; `roof %` is the median over the path's roof. "
          "Sizes come from the grids: powers of two, the OpenCL library's 4 kB..4 MB, the embedded-GPU "
          "study's 2^4..2^27 B and the Salsa20 study's 1 B..1 GB in decades.\n")
        plot_of = dict(plots)
        for a in algs:
            w("### %s\n" % a)
            if a in plot_of:
                w("![%s](%s)\n" % (a, plot_of[a]))
            ps = [p for p in paths if any(True for _ in data.ok(p, a))]
            sizes = sorted({r.get("bytes") for r in data.results if r.get("algorithm") == a and r.get("bytes")})
            if not ps:
                why = sorted({str(r.get("reason")) for r in data.results if r.get("algorithm") == a and r.get("reason")})
                w("No figure: %s\n" % ("; ".join(why) if why else "nothing measured"))
                continue
            rows = []
            for b in sizes:
                row = [human_bytes(b)]
                for p in ps:
                    rec = next((r for r in data.ok(p, a) if r.get("bytes") == b), None)
                    if rec:
                        lo, hi = spread(rec)
                        row.append("%s (%s..%s) %s" % (fmt_gbps(med(rec)), fmt_gbps(lo), fmt_gbps(hi),
                                                        pct(num(rec.get("fraction_of_roof")))))
                    else:
                        row.append("-")
                rows.append(row)
            w(md_table(["size"] + ["%s (roof %%)" % p for p in ps], rows))
            if any(r.get("int_roof_gbps") for r in data.ok(alg=a)):
                r = next(r for r in data.ok(alg=a) if r.get("int_roof_gbps"))
                w("Integer-operation ceiling on the GPU: %s ops per byte (rounds only, loads and addresses not "
                  "counted) -> %s GB/s.\n" % (r.get("int_ops_per_byte"), fmt_gbps(num(r.get("int_roof_gbps")))))

    # Verification, skips -------------------------------------------------------------------
    ver = []
    for _, s in data.sweeps:
        ver += s.get("verification", []) or []
    if ver:
        w("## Output checked against the CPU backend\n")
        bad = [v for v in ver if v.get("matches_cpu") is False]
        w("Before timing, every path's output (and tag) at one size was compared with the CPU backend's on one "
          "core: %d match, %d differ, %d could not be checked.\n" % (
              sum(1 for v in ver if v.get("matches_cpu") is True), len(bad),
              sum(1 for v in ver if v.get("matches_cpu") is None)))
        if bad or any(v.get("matches_cpu") is None for v in ver):
            w(md_table(["path", "algorithm", "size", "result"],
                       [(v.get("path"), v.get("algorithm"), human_bytes(v.get("bytes", 0)),
                         "DIFFERS" if v.get("matches_cpu") is False else "not checked: " + str(v.get("reason", "")))
                        for v in ver if v.get("matches_cpu") is not True]))
    skipped = []
    for _, s in data.sweeps:
        for p in s.get("paths", []) or []:
            if p.get("status") != "ok":
                skipped.append(("path " + str(p.get("name")), "-", str(p.get("reason", ""))))
        for o in s.get("openssl", []) or []:
            if o.get("status") != "ok":
                skipped.append(("openssl speed", o.get("algorithm", "-"), str(o.get("reason", ""))))
    groups = {}
    for r in data.results:
        if r.get("status") in ("ok", None):
            continue
        key = (r.get("path", "-"), r.get("algorithm", "-"), str(r.get("reason", "")))
        groups.setdefault(key, []).append(r.get("bytes"))
    for (p, a, why), bs in groups.items():
        bs = [b for b in bs if b]
        rng = ("%s..%s" % (human_bytes(min(bs)), human_bytes(max(bs)))) if bs else "all sizes"
        skipped.append(("%s, %s" % (p, rng), a, why))
    warned = [r for r in data.results if r.get("warning")]
    if warned:
        w("## Doubtful figures\n")
        w(md_table(["path", "algorithm", "size", "GB/s (events)", "GB/s (host clock)", "warning"],
                   [(r.get("path"), r.get("algorithm"), human_bytes(r.get("bytes", 0)), fmt_gbps(med(r)),
                     fmt_gbps(num(r.get("host_clock_gbps"))), r.get("warning")) for r in warned]))
    if skipped:
        w("## Not measured, and why\n")
        w(md_table(["what", "algorithm", "reason"], skipped))

    # Other programs ------------------------------------------------------------------------
    if data.cpu_bench:
        w("## cpu_bench (CPU backend beside openssl speed -multi)\n")
        rows = []
        for f, d in data.cpu_bench:
            lg = [num(x) for x in d.get("large_message_gbps", []) or [] if num(x) is not None]
            sm = [num(x) for x in d.get("small_message_gbps", []) or [] if num(x) is not None]
            mm = lambda v: ("%s (%s..%s)" % (fmt_gbps(sorted(v)[len(v) // 2]), fmt_gbps(min(v)), fmt_gbps(max(v)))) if v else "-"
            rows.append((f, d.get("algorithm", "-"), d.get("threads", "-"),
                         "%s: %s" % (human_bytes(d.get("large_message_bytes", 0)), mm(lg)),
                         "%s: %s" % (human_bytes(d.get("small_message_bytes", 0)), mm(sm)),
                         fmt_gbps(num(d.get("openssl_speed_multi_gbps")))))
        w(md_table(["file", "algorithm", "threads", "one large message", "small messages, one caller per core",
                    "openssl speed -multi"], rows))
    if data.cli_bench:
        w("## `bulkcrypt bench`\n")
        rows = []
        for f, d in data.cli_bench:
            o = d.get("one_shot") or {}
            roof = d.get("roof_host_memcpy") or {}
            rows.append((f, d.get("algorithm", "-"), d.get("direction", "-"), d.get("device", "-"),
                         human_bytes(d.get("bytes_per_call", 0)), fmt_gbps(num(o.get("gb_per_s"))),
                         fmt_gbps(num((d.get("segmented") or {}).get("gb_per_s"))), fmt_gbps(num(roof.get("gb_per_s")))))
        w(md_table(["file", "algorithm", "direction", "device", "per call", "one shot GB/s", "segmented GB/s",
                    "host memcpy roof GB/s"], rows))
    if data.others:
        w("## Other result files\n")
        w("Records with a throughput figure, as each program wrote them (fields it lacks are blank).\n")
        for f, d in data.others:
            recs = list(find_records(d))
            if not recs:
                w("- `%s`: no throughput figure found\n" % f)
                continue
            keys = []
            for r in recs:
                for k, v in r.items():
                    if k not in keys and not isinstance(v, (dict, list)):
                        keys.append(k)
            # What a figure is first (algorithm, path, size), then its rates, then the rest.
            first = ("algorithm", "alg", "variant", "path", "device", "bytes", "size")

            def rank(k):
                if k in first:
                    return (0, first.index(k))
                if k in RATE_KEYS or k.endswith(("_gbps", "_gbs")):
                    return (1, 0)
                return (2, 0)
            keys = sorted(keys, key=rank)[:10]
            w("### %s\n" % f)
            if isinstance(d, dict):
                top = ["%s: %s" % (k, fmt_any(v)) for k, v in d.items() if not isinstance(v, (dict, list))]
                if top:
                    w("; ".join(top) + "\n")
            w(md_table(keys, [[fmt_any(r.get(k)) for k in keys] for r in recs[:200]]))
            if len(recs) > 200:
                w("(%d more records in the file)\n" % (len(recs) - 200))

    with open(out_path, "w") as f:
        f.write("\n".join(L))


RATE_KEYS = ("gbps", "gbs", "gb_per_s", "GBps", "gb_s", "throughput_gbps", "gbytes_per_s")


def find_records(d, depth=0):
    """Dicts anywhere in d that carry a throughput figure."""
    if depth > 6:
        return
    if isinstance(d, dict):
        nested = [r for v in d.values() if isinstance(v, (dict, list)) for r in find_records(v, depth + 1)]
        # A file's top level that only holds a roof beside its records is shown as a line, not a row.
        if (any(k in d for k in RATE_KEYS) or any(k.endswith(("_gbps", "_gbs")) for k in d)) and \
                not (depth == 0 and nested):
            yield {k: (med({"gbps": v}) if k in RATE_KEYS and isinstance(v, dict) else v) for k, v in d.items()}
        yield from nested
    elif isinstance(d, list):
        for v in d:
            yield from find_records(v, depth + 1)


def fmt_any(v):
    if isinstance(v, float):
        return fmt_gbps(v) if abs(v) < 1e6 else "%.4g" % v
    return "-" if v is None else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="folder of JSON result files")
    ap.add_argument("--out", help="report file (default RESULTS/REPORT.md)")
    ap.add_argument("--no-plots", action="store_true", help="Markdown only")
    a = ap.parse_args()
    if not os.path.isdir(a.results):
        print("report.py: %s is not a folder" % a.results, file=sys.stderr)
        return 2
    data = Data()
    data.load(a.results)
    notes = []
    if not (data.sweeps or data.cpu_bench or data.cli_bench or data.others):
        notes.append("no result JSON was found in %s" % a.results)
    plots = [] if a.no_plots else make_plots(data, a.results, notes)
    out = a.out or os.path.join(a.results, "REPORT.md")
    write_report(data, a.results, out, plots, notes)
    figures = sum(1 for _ in data.ok())
    print("report.py: wrote %s (%d sweep figures, %d plots, %d other files)" % (
        out, figures, len(plots), len(data.cpu_bench) + len(data.cli_bench) + len(data.others)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

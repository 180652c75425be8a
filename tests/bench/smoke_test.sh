#!/usr/bin/env bash
# CTest's bench_smoke: runs bench/run_all.sh --smoke against BUILD into OUTDIR, then
# checks what a reader needs: REPORT.md with its sections, a sweep JSON whose results
# hold real figures (a positive median with its spread), a measured roof, and the
# run's metadata (device, commit, date, OpenSSL version).
#   smoke_test.sh BUILD OUTDIR
set -euo pipefail
build=${1:?usage: smoke_test.sh BUILD OUTDIR}
out=${2:?usage: smoke_test.sh BUILD OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rm -rf "$out"
t0=$(date +%s)
rc=0
"$root/bench/run_all.sh" --smoke --build "$build" "$out" || rc=$?
secs=$(($(date +%s) - t0))
echo "bench_smoke: run_all.sh --smoke took ${secs}s (exit $rc)"
((secs <= 120)) || echo "bench_smoke: WARNING: over the two minutes the smoke run is meant to take"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
fail = []
report = os.path.join(out, "REPORT.md")
if not os.path.isfile(report) or os.path.getsize(report) == 0:
    fail.append("no REPORT.md")
else:
    text = open(report).read()
    for section in ("## The run", "## Roofs", "## Headline", "## The studies", "## Latency"):
        if section not in text:
            fail.append("REPORT.md lacks the section '%s'" % section)
try:
    d = json.load(open(os.path.join(out, "sweep.json")))
except Exception as e:
    d = {}
    fail.append("sweep.json unreadable: %s" % e)
ok = [r for r in d.get("results", []) if r.get("status") == "ok"]
real = [r for r in ok if (r.get("gbps") or {}).get("median", 0) > 0 and (r.get("gbps") or {}).get("runs", 0) >= 5
        and r["gbps"]["min"] <= r["gbps"]["median"] <= r["gbps"]["max"]]
if not real:
    fail.append("no result with a positive median over at least 5 runs")
roofs = [r for r in d.get("roofs", []) if ((r.get("gbps") or {}).get("median") or 0) > 0]
if not roofs:
    fail.append("no roof measured")
meta = d.get("meta", {})
for k in ("date", "git_commit", "cpu_model", "openssl_library"):
    if not meta.get(k):
        fail.append("meta.%s missing" % k)
others = [f for f in os.listdir(out) if f.endswith(".json") and f not in ("sweep.json", "run.json")]
print("bench_smoke: %d figures (%d checked real), %d roofs, other result files: %s" % (
    len(ok), len(real), len(roofs), ", ".join(sorted(others)) or "none"))
if fail:
    print("bench_smoke: FAILED: " + "; ".join(fail))
    sys.exit(1)
print("bench_smoke: passed (%s)" % report)
PY
exit $rc

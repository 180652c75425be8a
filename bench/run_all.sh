#!/usr/bin/env bash
# The benchmark suite in one command: runs every benchmark program found in a build,
# then writes REPORT.md and plots from their JSON. Builds nothing.
#
#   bench/run_all.sh [--smoke | --standard | --full] [--build DIR] [--budget SECONDS]
#                    [--tar FILE] [OUTDIR]
#
#   --smoke     tiny sizes, a few algorithms: under two minutes on a 2-core machine
#               without a GPU (CI runs it through CTest)
#   --standard  the default: 16 B .. 1 GiB, the main algorithms, every path; sized
#               for one call of about 8 minutes on the H100 machine (--budget 420)
#   --full      16 B .. 4 GiB, every algorithm and key size, longer runs (hours)
#   --build DIR the build folder (default ./build, else the repository's build/)
#   --budget S  seconds for the whole run; the sweep gets what the others leave
#   --tar FILE  also pack OUTDIR into FILE (.tar.gz): one file to carry back
#   OUTDIR      default bench/results/<UTC date>-<host>/
#
# Each program's output goes to OUTDIR/logs/<name>.log, its JSON to OUTDIR/<name>*.json;
# OUTDIR/run.json records what ran, its exit status and time. Programs that are not
# built are skipped and named. Exit status: 0 when the report was written and the
# sweep produced figures; 1 otherwise.
set -uo pipefail

mode=standard
build=""
budget=""
tarball=""
out=""
while (($#)); do
  case "$1" in
    --smoke) mode=smoke ;;
    --standard) mode=standard ;;
    --full) mode=full ;;
    --build) build=${2:?--build needs a folder}; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    --tar) tarball=${2:?--tar needs a file}; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_all.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "run_all.sh: one OUTDIR only" >&2; exit 2; }; out=$1 ;;
  esac
  shift
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "$build" ]; then
  if [ -d ./build/bench ]; then build=./build; else build=$root/build; fi
fi
given=$build
build=$(cd "$given" 2>/dev/null && pwd) || { echo "run_all.sh: no build folder '$given' (build first: cmake -S . -B build && cmake --build build -j)" >&2; exit 2; }
bin=$build/bench
[ -x "$bin/sweep" ] || { echo "run_all.sh: $bin/sweep is not built (cmake --build $build --target sweep)" >&2; exit 2; }

if [ -z "$budget" ]; then
  case $mode in smoke) budget=100 ;; standard) budget=420 ;; full) budget=10800 ;; esac
fi
if [ -z "$out" ]; then
  host=$(hostname -s 2>/dev/null || hostname)
  out=$root/bench/results/$(date -u +%Y-%m-%d)-$host
  [ -e "$out" ] && out=$out-$(date -u +%H%M%S)
fi
mkdir -p "$out/logs" || exit 1
out=$(cd "$out" && pwd)
manifest=$out/logs/programs.tsv
: >"$manifest"

start=$(date +%s)
cores=$(nproc 2>/dev/null || echo 1)
left() { echo $((budget - ($(date +%s) - start))); }
say() { printf '[run_all %4ds] %s\n' "$(($(date +%s) - start))" "$*"; }

# run NAME TIMEOUT FILES -- COMMAND...: runs with a time limit, logs, records.
run() {
  local name=$1 limit=$2 files=$3
  shift 4
  local t0 rc
  if ((limit < 5)); then
    say "$name: skipped, the budget is spent"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "skipped: budget spent" 0 "" "$*" >>"$manifest"
    return 0
  fi
  say "$name (at most ${limit}s): $*"
  t0=$(date +%s)
  # SIGTERM first (the sweep then stops and writes its JSON), SIGKILL 30 s later.
  timeout -k 30 "$limit" "$@" >"$out/logs/$name.log" 2>&1
  rc=$?
  local secs=$(($(date +%s) - t0))
  ((rc == 124)) && say "$name: stopped at its limit of ${limit}s"
  ((rc != 0 && rc != 124)) && say "$name: exit status $rc (see logs/$name.log)"
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$secs" "$files" "$*" >>"$manifest"
  return 0
}

# Does PROGRAM --help mention OPTION? (A program that ignores --help and starts
# measuring is stopped after 10 s.)
offers() { timeout -k 2 10 "$1" --help 2>&1 | grep -q -- "$2"; }

say "mode $mode, budget ${budget}s, build $build, results $out, $cores cores"

# 1. The sweep: sizes x algorithms x paths, roofs, latency, openssl speed, scaling.
# others: seconds kept for the other programs; grace: how far past its budget the
# sweep may run (the point in progress, writing JSON) before it is stopped.
case $mode in
  smoke) others=40 grace=20 ;;
  standard) others=140 grace=60 ;;
  full) others=1800 grace=300 ;;
esac
sweep_budget=$(($(left) - others))
((sweep_budget < 20)) && sweep_budget=20
run sweep $((sweep_budget + grace)) sweep.json -- \
  "$bin/sweep" --mode "$mode" --budget "$sweep_budget" --json "$out/sweep.json"

# 2. The other benchmark programs of bench/, each with its own limit. Convention
#    (bench/README.md): a program takes --json FILE, and --smoke where it has a
#    small size; one that takes neither is run bare and its stdout kept.
case $mode in smoke) each=20 ;; standard) each=60 ;; full) each=900 ;; esac
for prog in "$bin"/*; do
  name=$(basename "$prog")
  [ -f "$prog" ] && [ -x "$prog" ] || continue
  case $name in sweep|cpu_bench|*.*) continue ;; esac
  limit=$(($(left) - 10)); ((limit > each)) && limit=$each
  args=()
  if offers "$prog" --json; then
    args+=(--json "$out/$name.json")
    [ "$mode" = smoke ] && offers "$prog" --smoke && args+=(--smoke)
    run "$name" "$limit" "$name.json" -- "$prog" "${args[@]}"
  else
    run "$name" "$limit" "$name.log" -- "$prog"
    # Bare JSON on stdout is a result file too.
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/logs/$name.log" 2>/dev/null &&
      cp "$out/logs/$name.log" "$out/$name.json"
  fi
done

# cpu_bench: the CPU backend beside `openssl speed -multi`, its own two shapes.
if [ -x "$bin/cpu_bench" ]; then
  case $mode in
    smoke) algs=(aes-256-gcm); extra=(--size 1048576 --runs 3) ;;
    standard) algs=(aes-256-gcm aes-128-ctr); extra=() ;;
    full) algs=(aes-256-gcm aes-128-ctr aes-128-xts chacha20 chacha20-poly1305); extra=() ;;
  esac
  for a in "${algs[@]}"; do
    limit=$(($(left) - 10)); ((limit > each)) && limit=$each
    run "cpu_bench_$a" "$limit" "cpu_bench_$a.json" -- \
      "$bin/cpu_bench" --alg "$a" --threads "$cores" "${extra[@]}" --json "$out/cpu_bench_$a.json"
  done
fi

# `bulkcrypt bench`, the command users run, on the CPU and on the GPU when there is one.
cli=$build/cli/bulkcrypt
if [ -x "$cli" ]; then
  devices=(cpu)
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && devices+=(cuda:0)
  case $mode in smoke) size=1M; secs=0.2 ;; standard) size=256M; secs=1 ;; full) size=1G; secs=3 ;; esac
  for d in "${devices[@]}"; do
    limit=$(($(left) - 10)); ((limit > each)) && limit=$each
    tag=${d//:/}
    run "bulkcrypt_bench_$tag" "$limit" "bulkcrypt_bench_$tag.json" -- \
      "$cli" bench -a aes-256-gcm --device "$d" --size "$size" --seconds "$secs" --json
    # Its JSON is its stdout: keep it when it parses.
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/logs/bulkcrypt_bench_$tag.log" 2>/dev/null &&
      cp "$out/logs/bulkcrypt_bench_$tag.log" "$out/bulkcrypt_bench_$tag.json"
  done
fi

# 3. run.json (what ran), then the report.
python3 - "$manifest" "$out/run.json" "$mode" "$budget" "$build" "$(($(date +%s) - start))" <<'EOF'
import json, sys
rows = []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 5:
        continue
    try:
        code = int(f[1])
    except ValueError:
        code = f[1]
    rows.append({"name": f[0], "exit": code, "seconds": int(f[2]), "files": [x for x in f[3].split(",") if x],
                 "command": f[4]})
json.dump({"schema": "bulkcrypt-run/1", "mode": sys.argv[3], "budget_s": int(sys.argv[4]), "build": sys.argv[5],
           "seconds_before_report": int(sys.argv[6]), "programs": rows}, open(sys.argv[2], "w"), indent=1)
EOF
say "report"
python3 "$root/bench/report.py" "$out" 2>&1 | tee "$out/logs/report.log"
report_rc=${PIPESTATUS[0]}

# A short summary last (a remote call returns the end of the output).
if [ -s "$out/REPORT.md" ]; then
  echo
  awk '/^## Roofs/{p=1} /^## The studies/{p=0} p' "$out/REPORT.md"
  awk '/^## The issues. targets/{p=1} /^## Latency/{p=0} p' "$out/REPORT.md"
fi
if [ -n "$tarball" ]; then
  tar -czf "$tarball" -C "$(dirname "$out")" "$(basename "$out")" && say "packed $out into $tarball"
fi
say "done in $(($(date +%s) - start))s: $out/REPORT.md"

# Success: a report and at least one measured figure in the sweep.
python3 - "$out/sweep.json" <<'EOF' && ((report_rc == 0))
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("run_all.sh: no sweep figures: %s" % e, file=sys.stderr)
    sys.exit(1)
ok = [r for r in d.get("results", []) if r.get("status") == "ok"]
sys.exit(0 if ok else 1)
EOF

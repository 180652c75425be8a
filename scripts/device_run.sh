#!/usr/bin/env bash
# One call on the lent GPU machine (see /work/.library/device): runs what
# scripts/pack_device.sh packed into .device-build/, from the repository root.
#   scripts/device_run.sh PHASE... (UNIT_TIMEOUT, CONF_TIMEOUT, BLOCK_BENCH_TIMEOUT: seconds a step) (tests unit conformance sanitize quick bench gpu blocks blocks-old opencl opencl-ab tune tune-cuda opencl-first ncu-blocks compare kernels cpu file roundtrip engine small multi
#   profile variants suite python)
# Everything goes to one log ($OUT/log.txt) and one archive of JSON/Markdown
# results ($OUT/results.tar.gz): the tool returns at most 8 files.
set -uo pipefail
root=$PWD
B=$root/.device-build
O=${OUT:-/tmp/bc-out}
# Results gather outside $O and are packed into $O/results.tar.gz after every step, so a
# run stopped at its time limit still returns everything finished before it.
# DEVICE_RESULTS: a folder kept across several invocations in one command (each adds
# its results; the archive holds them all).
W=${DEVICE_RESULTS:-$(mktemp -d)}
R=$W/results
mkdir -p "$O" "$R"
[ -f "$B/.device-build.tar.xz" ] && tar -C "$B" -xJf "$B/.device-build.tar.xz"
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$B/bin:$PATH
[ -d "$B/lib/ossl-modules" ] && export OPENSSL_MODULES=$B/lib/ossl-modules
# The binaries find the vector files under the folder they were built from.
src=$(cat "$B/srcdir" 2>/dev/null || echo /work/main)
[ -e "$src" ] || { mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"; }
# NVIDIA's OpenCL is present but not registered on these machines.
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
exec > >(tee -a "$O/log.txt") 2>&1

step() {  # step NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  echo "=== $name ($(date +%T))"
  timeout "$t" "$@" > "$R/$name.log" 2>&1
  local rc=$?
  tail -n "${TAIL:-25}" "$R/$name.log"
  echo "=== $name: rc=$rc"
  tar -C "$W" -czf "$O/results.tar.gz" results
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total,pcie.link.gen.current,pcie.link.width.current \
  --format=csv | tee "$R/gpu.csv"
nproc; date -u

for phase in "$@"; do
  case $phase in
  tests)
    step unit "${UNIT_TIMEOUT:-200}" bc_unit_tests --gtest_brief=1 --gtest_filter="${UNIT_FILTER:-*}"
    TAIL=70 step conformance 240 bc_conformance --backends="${CONF_BACKENDS:-cuda,opencl}" ${CONF_ARGS:---quick}
    ;;
  conformance)  # the conformance suite alone (CONF_BACKENDS, CONF_ARGS as for tests)
    TAIL=70 step conformance "${CONF_TIMEOUT:-240}" bc_conformance --backends="${CONF_BACKENDS:-cuda,opencl}" ${CONF_ARGS:---quick}
    ;;
  provider)  # the OpenSSL provider: its tests with bulkcrypt's path on cuda:0, then
    # `openssl speed -evp` with and without it (scripts/provider_speed.sh; PROVIDER_SPEED_ARGS quick)
    BC_PROVIDER_DIR=$B/lib/provider BC_PROVIDER_TEST_DEVICE=cuda:0 \
      step provider-tests "${PROVIDER_TEST_TIMEOUT:-200}" bc_provider_tests --gtest_brief=1
    TAIL=10 step provider-speed "${PROVIDER_SPEED_TIMEOUT:-380}" bash "$root/scripts/provider_speed.sh" "$B/lib/provider" \
      "$R/provider_speed.tsv" ${PROVIDER_SPEED_ARGS:-}
    ;;
  python)  # the Python package (packed with PYSTAGE=): its GPU tests with PyTorch and CuPy,
    # then bench/python_bench.py against capi_bench (pack capi_bench too)
    export PYTHONPATH=$B/python${PYTHONPATH:+:$PYTHONPATH}
    TAIL=40 step python-gpu-tests "${PY_TEST_TIMEOUT:-300}" python3 -X faulthandler -m pytest -q -rs -p no:cacheprovider \
      "$root/tests/python/test_gpu.py"
    TAIL=30 step python-bench "${PY_BENCH_TIMEOUT:-400}" python3 "$root/bench/python_bench.py" \
      --capi "$B/bin/capi_bench" --json "$R/python_bench.json"
    ;;
  unit)  # the unit tests alone (pack without bc_conformance when the 64 MiB carry is tight)
    step unit "${UNIT_TIMEOUT:-200}" bc_unit_tests --gtest_brief=1 --gtest_filter="${UNIT_FILTER:-*}"
    ;;
  sanitize)
    f=${SAN_FILTER:-'CudaAes*:StreamCuda*'}
    step memcheck 280 compute-sanitizer --tool memcheck --error-exitcode 9 bc_unit_tests --gtest_filter="$f"
    step racecheck 280 compute-sanitizer --tool racecheck --error-exitcode 9 bc_unit_tests --gtest_filter="$f"
    ;;
  quick)
    step gpu_bench 60 gpu_bench --quick --json "$R/gpu_aes.json"
    [ -x "$B/bin/gpu_stream_bench" ] && step gpu_stream_bench 60 gpu_stream_bench "$R/gpu_stream.json" 256 5
    ;;
  bench)
    step gpu_bench 200 gpu_bench --json "$R/gpu_aes.json"
    [ -x "$B/bin/gpu_stream_bench" ] && step gpu_stream_bench 200 gpu_stream_bench "$R/gpu_stream.json" 1024 9
    [ -x "$B/bin/opencl_bench" ] && step opencl_bench 200 opencl_bench --json "$R/opencl.json"
    [ -x "$B/bin/engine_bench" ] && step engine_bench 200 engine_bench --json "$R/engine.json"
    step cpu_bench_gcm 120 cpu_bench --alg aes-256-gcm --json "$R/cpu_aes-256-gcm.json"
    step cpu_bench_ctr 120 cpu_bench --alg aes-128-ctr --json "$R/cpu_aes-128-ctr.json"
    ;;
  cpu)  # the CPU backend beside openssl speed -multi, same run
    step cpu_bench_gcm 60 cpu_bench --alg aes-256-gcm --json "$R/cpu_aes-256-gcm.json"
    step cpu_bench_ctr 60 cpu_bench --alg aes-128-ctr --json "$R/cpu_aes-128-ctr.json"
    ;;
  file)  # issue 6: a 16 GiB file through the container against the engine's rate
    dd if=/dev/urandom of=/tmp/bc16m bs=16M count=1 status=none
    for i in $(seq 1024); do cat /tmp/bc16m; done > /tmp/bc16g
    for d in ${FILE_DEVICES:-cuda:0 hybrid}; do
      step "file_bench_${d/:/}" 150 bulkcrypt bench -a aes-256-gcm --device "$d" --size 1G --file /tmp/bc16g --json
    done
    rm -f /tmp/bc16g /tmp/bc16m
    ;;
  roundtrip)  # the CLI on GPUs: encrypt on each device, decrypt on the CPU (and back), compare
    rt() {
      set -e
      head -c $((1024 * 1024 * 1024 + 4097)) /dev/urandom > /tmp/rt.in
      rm -f /tmp/rt.key && bulkcrypt keygen /tmp/rt.key
      for d in ${RT_DEVICES:-cuda:0 hybrid}; do
        for a in aes-256-gcm chacha20-poly1305; do
          rm -f /tmp/rt.bcx /tmp/rt.out /tmp/rt.back
          bulkcrypt encrypt -k /tmp/rt.key -a $a --device "$d" /tmp/rt.in /tmp/rt.bcx
          bulkcrypt decrypt -k /tmp/rt.key --device cpu /tmp/rt.bcx /tmp/rt.out
          cmp /tmp/rt.in /tmp/rt.out
          rm -f /tmp/rt.bcx
          bulkcrypt encrypt -k /tmp/rt.key -a $a --device cpu /tmp/rt.in /tmp/rt.bcx
          bulkcrypt decrypt -k /tmp/rt.key --device "$d" /tmp/rt.bcx /tmp/rt.back
          cmp /tmp/rt.in /tmp/rt.back
          echo "round trip $a on $d: identical ($(stat -c %s /tmp/rt.in) bytes)"
        done
      done
      rm -f /tmp/rt.*
    }
    export -f rt
    step roundtrip 240 bash -c rt
    ;;
  multi)  # several GPUs: the engine's tests, each alone under a watchdog (a run past
           # MULTI_TEST_TIMEOUT seconds leaves its threads' stacks, cuda-gdb attached, in
           # <step>.stacks.txt); multi_gpu_bench on the first 1, 2, 4, ... GPUs; the container
           # on a MULTI_FILE_GIB GiB file in memory on cuda:0, cuda:all, hybrid, beside cp
    watched() {  # watched NAME TIMEOUT CMD...
      local name=$1 t=$2 i pid rc; shift 2
      echo "=== $name ($(date +%T))"
      "$@" > "$R/$name.log" 2>&1 &
      pid=$!
      for ((i = 0; i < t; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      if kill -0 "$pid" 2>/dev/null; then
        timeout 60 cuda-gdb -batch -p "$pid" -ex "thread apply all bt" > "$R/$name.stacks.txt" 2>&1
        kill -9 "$pid"; wait "$pid"; rc=124
        grep -E "^#|^Thread" "$R/$name.stacks.txt" | head -n 150
      else
        wait "$pid"; rc=$?
      fi
      tail -n "${TAIL:-25}" "$R/$name.log"
      echo "=== $name: rc=$rc"
      tar -C "$W" -czf "$O/results.tar.gz" results
    }
    nvidia-smi topo -m > "$R/topo.txt" 2>&1; cat "$R/topo.txt"
    lscpu > "$R/lscpu.txt" 2>&1; free -g > "$R/free.txt" 2>&1
    ngpu=$(nvidia-smi -L | wc -l)
    for s in ${MULTI_SHAPES:-gpus_2 hybrid_2 gpus_all hybrid_all gpus_1 hybrid_1}; do
      watched "engine_$s" "${MULTI_TEST_TIMEOUT:-120}" bc_unit_tests --gtest_filter="*EngineGpus*/$s"
    done
    watched engine_cuda "${MULTI_TEST_TIMEOUT:-120}" bc_unit_tests --gtest_filter='EngineCuda.*'
    for k in 1 2 4 8; do
      ((k <= ngpu)) || break
      TAIL=60 step "multi_gpu_bench_$k" 240 env CUDA_VISIBLE_DEVICES="$(seq -s, 0 $((k - 1)))" \
        multi_gpu_bench --seconds "${MULTI_SECONDS:-0.7}" --json "$R/multi_gpu_bench_$k.json"
    done
    mf() {
      set -e
      f=/dev/shm/bc.in; g=/dev/shm/bc.out
      head -c $((16 << 20)) /dev/urandom > /dev/shm/bc16m
      for i in $(seq $((${MULTI_FILE_GIB:-8} * 64))); do cat /dev/shm/bc16m; done > $f
      rm -f /dev/shm/bc.key && bulkcrypt keygen /dev/shm/bc.key
      n=$(stat -c %s $f)
      t() { local s=$(date +%s.%N); "$@"; awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'; }
      gbs() { awk -v n="$n" -v s="$1" 'BEGIN { printf "%.2f", n / s / 1e9 }'; }
      for turn in 1 2; do
        rm -f $g; s=$(t cp $f $g); echo "cp: $(gbs $s) GB/s"
        rm -f $g; s=$(t bulkcrypt encrypt -q -j 8 -k /dev/shm/bc.key -a aes-256-gcm --device cuda:all $f $g)
        echo "encrypt aes-256-gcm cuda:all -j 8: $(gbs $s) GB/s"
        for d in cpu cuda:0 cuda:all hybrid; do
          rm -f $g; s=$(t bulkcrypt encrypt -q -k /dev/shm/bc.key -a aes-256-gcm --device $d $f $g)
          echo "encrypt aes-256-gcm $d: $(gbs $s) GB/s"
          rm -f /dev/shm/bc.back; s=$(t bulkcrypt decrypt -q -k /dev/shm/bc.key --device $d $g /dev/shm/bc.back)
          echo "decrypt aes-256-gcm $d: $(gbs $s) GB/s"
          cmp $f /dev/shm/bc.back && echo "round trip on $d: identical"
        done
      done
      # The container read from the file and sealed, written to /dev/null (bulkcrypt bench --file).
      for d in cpu cuda:0 cuda:all; do
        bulkcrypt bench -a aes-256-gcm --device $d --size 1G --file $f --json > "$R/multi_file_bench_${d/:/}.json"
        echo "bench --file $d: $(sed -n 's/.*"file":{[^}]*"gb_per_s":\([0-9.]*\).*/\1/p' "$R/multi_file_bench_${d/:/}.json") GB/s"
      done
      rm -f /dev/shm/bc.*
    }
    export R; export -f mf
    TAIL=40 step multi_file 300 bash -c mf
    ;;
  engine)  # issue 5: the engine alone (ENGINE_ARGS: default --quick, 64 MiB jobs)
    TAIL=80 step engine_bench 300 engine_bench ${ENGINE_ARGS:---quick} --json "$R/engine.json"
    ;;
  profile)  # issue 3: where the bitsliced AES-128-CTR kernel's cycles go (Nsight Compute, clocks left alone;
             # PROFILE_SIZE MiB, the second k_ctr launch: AES-128-CTR after its warm-up)
    TAIL=${PROFILE_TAIL:-120} step ncu_ctr 240 ncu --clock-control none -k regex:k_ctr --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
      --section SchedulerStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      gpu_bench --size "${PROFILE_SIZE:-64}" --runs 2
    ;;
  small)  # issue 5: 4 KiB jobs layer by layer, three runs (each pins its timing thread to a core)
    for i in 1 2 3; do
      TAIL=30 step "engine_small_$i" 100 engine_bench --small-only --repeat 7 --json "$R/engine_small_$i.json"
    done
    ;;
  gpu)  # gpu_bench alone, 1 GiB in GPU memory (the default variant and the table one);
        # GPU_BENCH_ARGS (e.g. --no-openssl), GPU_TAG names the step and its JSON (several runs a call)
    step "gpu_bench${GPU_TAG:-}" 200 gpu_bench ${GPU_BENCH_ARGS:-} --json "$R/gpu_aes${GPU_TAG:-}.json"
    ;;
  kernels)  # every launch of the kernels NCU_KERNELS (regex) under gpu_bench --only NCU_ALG, 1 GiB:
            # duration, warp instructions, SM clock (one replay pass)
    TAIL=${PROFILE_TAIL:-80} step "ncu_kernels${GPU_TAG:-}" 240 ncu --clock-control none -k "regex:${NCU_KERNELS:-k_}" \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.per_cycle_active \
      gpu_bench --only "${NCU_ALG:-aes-128-xts}" --runs 1 --no-openssl
    ;;
  blocks)  # the generic block-cipher path: every Cipher::Block algorithm and AES's generic kernels
            # (BLOCK_BENCH_ARGS; GPU_TAG names the step and its JSON, several runs a call)
    TAIL=80 step "block_bench${GPU_TAG:-}" "${BLOCK_BENCH_TIMEOUT:-400}" block_bench ${BLOCK_BENCH_ARGS:-} \
      --json "$R/block${GPU_TAG:-}.json"
    ;;
  ncu-blocks)  # Nsight Compute on block_bench --only NCU_ALG (256 MiB, one run): kernels NCU_KERNELS (regex)
    TAIL=${PROFILE_TAIL:-120} step "ncu_blocks${GPU_TAG:-}" 300 ncu --clock-control none -k "regex:${NCU_KERNELS:-k_}" \
      --launch-count "${NCU_COUNT:-12}" --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section SchedulerStats --section WarpStateStats --section InstructionStats \
      block_bench --only "${NCU_ALG:-clefia-128}" --size 256 --runs 1 --no-openssl
    ;;
  blocks-old)  # the previous build's block_bench (pack_device.sh OLD=...), BLOCK_BENCH_OLD_ARGS
    if [ -x "$B/old/bin/block_bench" ]; then
      TAIL=80 step block_bench_old "${BLOCK_BENCH_TIMEOUT:-400}" "$B/old/bin/block_bench" ${BLOCK_BENCH_OLD_ARGS:-} \
        --json "$R/block_old.json"
    else
      echo "blocks-old: no previous build packed"
    fi
    ;;
  tune)  # bulkcrypt tune on an OpenCL device (TUNE_DEVICE, default opencl:0): one search over the
         # geometric mean of TUNE_ALGS (TUNE_BUDGET seconds, TUNE_SIZE bytes a call), then --show
    export BULKCRYPT_TUNING_CACHE=$R/tuning.json
    bulkcrypt devices > "$R/devices.txt" 2>&1
    algs=()
    for a in ${TUNE_ALGS:-aes-128-ctr chacha20}; do algs+=(-a "$a"); done
    TAIL=40 step tune-opencl "$(( ${TUNE_BUDGET:-120} + 120 ))" bulkcrypt tune --device "${TUNE_DEVICE:-opencl:0}" \
      "${algs[@]}" --budget "${TUNE_BUDGET:-120}" --size "${TUNE_SIZE:-256M}" --emit
    step tune-show 120 bulkcrypt tune --device "${TUNE_DEVICE:-opencl:0}" --show
    ;;
  tune-cuda)  # bulkcrypt tune on cuda:0 (the default algorithms and the pipeline, or TUNE_ALGS;
              # TUNE_BUDGET seconds in all), --show, then BENCH_ALGS shipped against tuned in
              # turns (bulkcrypt bench, 1 GiB in device memory; aes-128-ctr from host memory)
    export BULKCRYPT_TUNING_CACHE=$R/tuning-cuda.json
    algs=()
    for a in ${TUNE_ALGS:-}; do algs+=(-a "$a"); done
    TAIL=80 step tune-cuda "$(( ${TUNE_BUDGET:-170} + 120 ))" bulkcrypt tune --device cuda:0 \
      --budget "${TUNE_BUDGET:-170}" --size "${TUNE_SIZE:-256M}" --emit "${algs[@]}"
    TAIL=40 step tune-cuda-show 60 bulkcrypt tune --device cuda:0 --show
    for turn in $(seq "${BENCH_TURNS:-2}"); do
      for alg in ${BENCH_ALGS:-aes-128-ctr aes-256-gcm chacha20 chacha20-poly1305}; do
        TAIL=3 step "bench-$alg-shipped-$turn" 120 bulkcrypt bench --device cuda:0 -a "$alg" --memory device \
          --size 1G --runs 5 --json --options tuning=shipped
        TAIL=3 step "bench-$alg-tuned-$turn" 120 bulkcrypt bench --device cuda:0 -a "$alg" --memory device \
          --size 1G --runs 5 --json
      done
      TAIL=3 step "bench-host-aes-128-ctr-shipped-$turn" 120 bulkcrypt bench --device cuda:0 -a aes-128-ctr \
        --size 1G --runs 5 --json --options tuning=shipped
      TAIL=3 step "bench-host-aes-128-ctr-tuned-$turn" 120 bulkcrypt bench --device cuda:0 -a aes-128-ctr \
        --size 1G --runs 5 --json
    done
    ;;
  opencl-first)  # first calls on a fresh NVIDIA OpenCL device (empty program caches, ours and
                 # the driver's), then the same with the caches: wall time and the build
                 # report per program part (opencl_bench), AES-256-GCM through bulkcrypt bench
    export BULKCRYPT_CACHE_DIR=$W/ocl-cache-fresh
    rm -rf "$BULKCRYPT_CACHE_DIR" "$HOME/.nv/ComputeCache"
    for turn in fresh cached; do
      for alg in aes-128-ctr chacha20; do
        TAIL=30 step "opencl-first-$alg-$turn" 300 bash -c "s=\$EPOCHREALTIME; opencl_bench --device 0 --algs $alg \
          --size 1M --reps 1 --json $R/opencl-first-$alg-$turn.json; e=\$EPOCHREALTIME; awk \"BEGIN{print \\\"wall_s\\\", \$e - \$s}\""
      done
      TAIL=5 step "opencl-first-aes-256-gcm-$turn" 300 bash -c "s=\$EPOCHREALTIME; bulkcrypt bench --device opencl:0 \
        -a aes-256-gcm --size 16M --runs 1 --json; e=\$EPOCHREALTIME; awk \"BEGIN{print \\\"wall_s\\\", \$e - \$s}\""
    done
    ;;
  opencl-ab)  # after `tune`: opencl_bench with the shipped table and with the tuned cache, in
              # turns (OPENCL_ALGS, BENCH_TURNS), 1 GiB a call on the GPU's OpenCL platform
    for turn in $(seq "${BENCH_TURNS:-2}"); do
      BULKCRYPT_TUNING_CACHE=$W/none.json TAIL=12 step "opencl-shipped-$turn" 200 opencl_bench \
        --algs "${OPENCL_ALGS:-aes-128-ctr,chacha20}" --json "$R/opencl-shipped-$turn.json"
      BULKCRYPT_TUNING_CACHE=$R/tuning.json TAIL=12 step "opencl-tuned-$turn" 200 opencl_bench \
        --algs "${OPENCL_ALGS:-aes-128-ctr,chacha20}" --json "$R/opencl-tuned-$turn.json"
    done
    ;;
  opencl)  # opencl_bench over OPENCL_ALGS on the GPU's OpenCL platform
    TAIL=60 step opencl_bench "${OPENCL_TIMEOUT:-300}" opencl_bench --algs "${OPENCL_ALGS:-aes-128-ctr,chacha20}" \
      --json "$R/opencl.json"
    ;;
  compare)  # the previous build's GPU benchmarks and this build's, in turns on the same GPU
            # (pack_device.sh's OLD=build-folder packs the previous build under old/bin)
    if [ -x "$B/old/bin/gpu_bench" ]; then
      for turn in $(seq "${COMPARE_TURNS:-2}"); do
        step "gpu_bench_old_$turn" 200 "$B/old/bin/gpu_bench" --no-openssl --json "$R/gpu_aes_old_$turn.json"
        step "gpu_bench_new_$turn" 200 gpu_bench --no-openssl --json "$R/gpu_aes_new_$turn.json"
      done
      step gpu_stream_bench_old 120 "$B/old/bin/gpu_stream_bench" "$R/gpu_stream_old.json" 1024 7
      step gpu_stream_bench_new 120 gpu_stream_bench "$R/gpu_stream_new.json" 1024 7
    else
      echo "compare: no previous build packed"
    fi
    ;;
  variants)  # every AES kernel variant in one table (bench/gpu_bench.cu --variants)
    step gpu_bench_variants 150 gpu_bench --variants --json "$R/gpu_aes_variants.json"
    ;;
  racecheck-gcm)
    step racecheck_gcm 120 compute-sanitizer --tool racecheck --error-exitcode 9 bc_unit_tests \
      --gtest_filter='CudaAes.GcmChunk*:StreamCuda.ChaChaPoly*'
    ;;
  suite)  # bench/run_all.sh over the packed programs, laid out as a build folder
    mkdir -p "$B/tree/bench" "$B/tree/cli"
    for p in "$B"/bin/*; do
      case $(basename "$p") in
        bulkcrypt) ln -sf "$p" "$B/tree/cli/bulkcrypt" ;;
        bc_*|openssl) ;;
        *) ln -sf "$p" "$B/tree/bench/" ;;
      esac
    done
    TAIL=60 step run_all "${SUITE_BUDGET:-330}" bench/run_all.sh --standard --build "$B/tree" \
      --budget $(( ${SUITE_BUDGET:-330} - 20 )) "$R/suite"
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
tar -C "$W" -czf "$O/results.tar.gz" results
[ -n "${DEVICE_RESULTS:-}" ] || rm -rf "$W"

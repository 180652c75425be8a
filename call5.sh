set -u
B=$PWD/.device-build; tar -C $B -xJf $B/.device-build.tar.xz; export LD_LIBRARY_PATH=$B/lib PATH=$B/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc
for i in 1 2 3; do
  timeout 100 engine_bench --small-only --repeat 7 --json $OUT/engine_small_$i.json > $OUT/engine_small_$i.md 2>&1; echo "run $i rc=$?"
  grep -E 'pinned|auto"|EVP' $OUT/engine_small_$i.md
done

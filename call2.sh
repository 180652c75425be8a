set -u
export UNIT_FILTER='Cuda*:*Gcm*:*Ghash*' TAIL=30 CONF_BACKENDS=cuda
scripts/device_run.sh tests gpu
B=$PWD/.device-build; export LD_LIBRARY_PATH=$B/lib PATH=$B/bin:$PATH
mkdir -p $OUT/ncu
for k in k_xts_pair k_ecb_pair; do
  timeout 120 ncu --clock-control none -k regex:"^$k\$" --launch-skip 1 --launch-count 1 \
   --section SpeedOfLight --section WarpStateStats --section InstructionStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
   --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum' \
   gpu_bench --size 1024 --runs 1 > $OUT/ncu/$k.txt 2>&1
  echo "== $k rc=$?"; grep -E 'k_(xts|ecb)_pair|Duration|Executed Ipc A|inst_executed|Registers|Achieved Occ|Dynamic Shared|L1/TEX Hit|Mem Busy|stalled_(long|short|mio|lg|wait|math|not_sel|barrier|branch|no_inst|dispatch|selected)' $OUT/ncu/$k.txt | head -40
done

set -u
export UNIT_FILTER='CudaAes.Xts*:CudaAes.Cbc*:CudaAes.Ecb*' TAIL=40 SAN_FILTER='CudaAes.Xts*'
scripts/device_run.sh unit gpu sanitize

// Tensor-core rates for GF(2) matrix products, the question behind a GHASH that leaves the
// shared-memory lookups: multiplying a block by a fixed power of H is a 128 x 128 binary
// matrix times its 128 bits, 16,384 one-bit products summed mod 2. Measures, per SM and
// for the whole GPU, the warp-level MMA rates of
//   b1: mma.sync m16n8k256 .and.popc (one-bit operands, popcount sums; parity = bit 0)
//   s8: mma.sync m16n8k32 (0/1 bytes as int8; parity = bit 0 of the int32 sum)
// and the GHASH rate each would allow if the tensor cores did nothing else (bytes/s =
// products/s / 16,384 x 16). Standalone: nvcc -O3 -arch=sm_90 bench/probes/tensor_gf2.cu
#include <cuda_runtime.h>

#include <cstdio>

namespace {

constexpr int kChains = 8;  // independent accumulators a warp keeps in flight

template <bool kB1>
__global__ void k_mma(int iters, int* sink) {
#if __CUDA_ARCH__ >= 800  // the one-bit MMA with AND: compute capability 8.0 and later
    unsigned a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = 0x9e3779b9u * (threadIdx.x + 17 * i + 1);
    for (int i = 0; i < 2; ++i) b[i] = 0x85ebca6bu * (threadIdx.x + 31 * i + 3);
    int c[kChains][4] = {};
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < kChains; ++k) {
            if constexpr (kB1) {
                asm volatile(
                    "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                    "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                    : "+r"(c[k][0]), "+r"(c[k][1]), "+r"(c[k][2]), "+r"(c[k][3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            } else {
                asm volatile(
                    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                    "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                    : "+r"(c[k][0]), "+r"(c[k][1]), "+r"(c[k][2]), "+r"(c[k][3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            }
        }
    }
    int s = 0;
    for (int k = 0; k < kChains; ++k) s ^= c[k][0] ^ c[k][1] ^ c[k][2] ^ c[k][3];
    if (s == 0x7fffffff) *sink = s;  // keeps the products live
#else
    if (iters < 0) *sink = 0;
#endif
}

template <bool kB1>
double products_per_second(int sms, int* sink) {
    const int iters = 4096, warps = 8, blocks = sms * 4;
    k_mma<kB1><<<blocks, 32 * warps>>>(16, sink);  // warm-up
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0);
    k_mma<kB1><<<blocks, 32 * warps>>>(iters, sink);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    const double k = kB1 ? 256 : 32;
    const double per_mma = 16.0 * 8.0 * k;  // one-bit (or one-byte) products an MMA sums
    return per_mma * kChains * iters * warps * blocks / (ms * 1e-3);
}

}  // namespace

int main() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::printf("skipped: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int khz = 0;  // SM clock the driver reports (boost)
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    int* sink = nullptr;
    cudaMalloc(&sink, sizeof(int));
    std::printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
    for (int b1 = 1; b1 >= 0; --b1) {
        const double r = b1 ? products_per_second<true>(p.multiProcessorCount, sink)
                            : products_per_second<false>(p.multiProcessorCount, sink);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) {
            std::printf("%s: %s\n", b1 ? "b1" : "s8", cudaGetErrorString(e));
            continue;
        }
        std::printf("%s mma.sync: %.3g products/s (%.0f a clock an SM at %.2f GHz); GHASH bound %.0f GB/s\n",
                    b1 ? "b1 and.popc m16n8k256" : "s8 m16n8k32", r, r / p.multiProcessorCount / (khz * 1e3),
                    khz * 1e-6, r / 16384.0 * 16.0 / 1e9);
    }
    cudaFree(sink);
    return 0;
}

// Fixed costs of the primitives on the small-job path, ns per operation (median of 7):
// locked read-modify-writes (the engine's job counters, the CPU backend's context pool),
// a thread-local string clear (the C API's last error), and OpenSSL EVP's per-job calls.
// Standalone, for hosts without a profiler:
//   built as build/bench/small_job_primitives, or alone:
//   g++ -O2 -std=c++17 bench/probes/small_job_primitives.cpp -lcrypto -o probe && ./probe
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
#include <pthread.h>
#include <openssl/evp.h>

static thread_local std::string g_err;
template <class F> double ns_per(F&& f, int n = 2000000) {
    std::vector<double> v;
    for (int r = 0; r < 7; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) f(i);
        auto t1 = std::chrono::steady_clock::now();
        v.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
    }
    std::sort(v.begin(), v.end());
    return v[3];
}
int main() {
    std::atomic<int> a{0};
    std::atomic<void*> slot{nullptr};
    volatile int sink = 0;
    static int target; void* p = &target;
    printf("empty loop            %6.2f ns\n", ns_per([&](int i) { sink = i; }));
    printf("fetch_add relaxed     %6.2f ns\n", ns_per([&](int) { a.fetch_add(1, std::memory_order_relaxed); }));
    printf("fetch_add+fetch_sub   %6.2f ns\n", ns_per([&](int) { a.fetch_add(1); a.fetch_sub(1); }));
    printf("exchange x2           %6.2f ns\n", ns_per([&](int) { void* q = slot.exchange(nullptr); slot.exchange(q ? q : p); }));
    printf("tls string clear      %6.2f ns\n", ns_per([&](int) { g_err.clear(); }));
    printf("pthread_self          %6.2f ns\n", ns_per([&](int) { sink = (int)(uintptr_t)pthread_self(); }));
    unsigned char key[16] = {1}, iv[16] = {2}, buf[4096] = {0}, out[4096 + 16];
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(c, EVP_aes_128_ctr(), nullptr, key, nullptr);
    int ol = 0;
    printf("EVP init(iv) only     %6.2f ns\n", ns_per([&](int) { EVP_EncryptInit_ex(c, nullptr, nullptr, nullptr, iv); }, 200000));
    printf("EVP ctr 4KiB job      %6.2f ns\n", ns_per([&](int) { EVP_EncryptInit_ex(c, nullptr, nullptr, nullptr, iv); EVP_EncryptUpdate(c, out, &ol, buf, 4096); EVP_EncryptFinal_ex(c, out + ol, &ol); }, 200000));
    printf("EVP ctr 64B job       %6.2f ns\n", ns_per([&](int) { EVP_EncryptInit_ex(c, nullptr, nullptr, nullptr, iv); EVP_EncryptUpdate(c, out, &ol, buf, 64); EVP_EncryptFinal_ex(c, out + ol, &ol); }, 200000));
    EVP_CIPHER_CTX_free(c);
    return 0;
}

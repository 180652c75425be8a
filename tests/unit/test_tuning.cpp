// The tuning tables (src/tuning): the selector, the shipped entries' provenance, the context
// options that override them, and that no environment variable chooses kernels any more.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <dirent.h>

#include "bulkcrypt/bulkcrypt.h"
#include "catalog/catalog.h"
#include "tuning/tuned.h"
#include "tuning/tuning.h"

namespace {

using bc::tuning::DeviceKind;
using bc::tuning::DeviceTraits;

// The source tree, found from this file's path (as the vector tests find tests/vectors).
std::string source_root() {
    std::string f = __FILE__;
    return f.substr(0, f.rfind("/tests/unit/"));
}

bool is_dir(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

DeviceTraits h100() {
    DeviceTraits d;
    d.kind = DeviceKind::Cuda;
    d.name = "NVIDIA H100 80GB HBM3";
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sms = 132;
    return d;
}

const bc::Algorithm& alg(const char* name) {
    const bc::Algorithm* a = bc::find_algorithm(name);
    EXPECT_NE(nullptr, a) << name;
    return *a;
}

TEST(Tuning, SelectorPicksTheH100EntryForAnH100) {
    const bc::tuning::Tuning& t = bc::tuning::select_tuning(h100(), alg("aes-128-ctr"));
    ASSERT_NE(nullptr, t.device.name_contains);
    EXPECT_STREQ("H100", t.device.name_contains);
    EXPECT_STREQ("aes", t.family);
    EXPECT_EQ(bc::tuning::aes_variant_from_name("pair-dec"), t.kernel.variant);
    EXPECT_EQ(1, t.pair.variant);        // pair-cc: one wave
    EXPECT_EQ(16, t.pair.blocks_per_sm);
    EXPECT_EQ(bc::tuning::ghash_variant_from_name("tensor"), t.ghash.variant);
    // ChaCha20 on the H100: the tuned stream entry (512 threads, 2 blocks an SM, unroll 1);
    // Salsa20 the stream kernels' own shape (256 threads, 8 blocks an SM, unroll 2)
    const bc::tuning::Tuning& c = bc::tuning::select_tuning(h100(), alg("chacha20"));
    ASSERT_NE(nullptr, c.device.name_contains);
    EXPECT_STREQ("chacha", c.family);
    EXPECT_STREQ("stream", c.mode);
    EXPECT_EQ(512, c.kernel.threads_per_block);
    EXPECT_EQ(1, c.kernel.items_per_thread);
    EXPECT_EQ(1024, bc::tuning::select_tuning(h100(), alg("chacha20-poly1305")).kernel.threads_per_block);
    EXPECT_EQ(256, bc::tuning::select_tuning(h100(), alg("salsa20")).kernel.threads_per_block);
    EXPECT_EQ(2, bc::tuning::select_tuning(h100(), alg("salsa20")).kernel.items_per_thread);
    EXPECT_STREQ("salsa", bc::tuning::select_tuning(h100(), alg("xsalsa20")).family);
    // A block cipher on the H100: the H100's generic entry.
    const bc::tuning::Tuning& g = bc::tuning::select_tuning(h100(), alg("sm4-ctr"));
    ASSERT_NE(nullptr, g.device.name_contains);
    EXPECT_STREQ("generic", g.family);
    EXPECT_EQ(bc::tuning::kCudaHostPipelineChunk, g.pipeline.chunk_bytes);
    EXPECT_EQ(bc::tuning::kCudaHostPipelineDepth, g.pipeline.depth);
    // XTS over small units: interleaved items (variant 0) by default, so ARIA and SM4 take
    // the H100's generic entry and its pipeline; CLEFIA and Camellia have entries of their
    // own for the blocks through shared memory (variant 2), with the same pipeline.
    for (const char* name : {"aria-128-xts", "sm4-xts", "seed-128-xts"}) {
        const bc::tuning::Tuning& x = bc::tuning::select_tuning(h100(), alg(name));
        EXPECT_STREQ("generic", x.family) << name;
        EXPECT_STREQ("*", x.mode) << name;
        EXPECT_EQ(0, x.kernel.variant) << name;
        EXPECT_EQ(bc::tuning::kCudaHostPipelineChunk, x.pipeline.chunk_bytes) << name;
    }
    for (const char* name : {"clefia-128-xts", "clefia-256-xts", "camellia-128-xts", "camellia-256-xts"}) {
        const bc::tuning::Tuning& x = bc::tuning::select_tuning(h100(), alg(name));
        EXPECT_STREQ("xts", x.mode) << name;
        EXPECT_EQ(2, x.kernel.variant) << name;
        EXPECT_EQ(bc::tuning::kCudaHostPipelineChunk, x.pipeline.chunk_bytes) << name;
    }
    // their other modes stay on the generic entry
    EXPECT_STREQ("generic", bc::tuning::select_tuning(h100(), alg("clefia-128-ctr")).family);
}

TEST(Tuning, SelectorFallsBackForUnknownDevices) {
    DeviceTraits d = h100();
    d.name = "Some Future GPU";
    d.cc_major = 12;
    d.cc_minor = 1;
    const bc::tuning::Tuning& t = bc::tuning::select_tuning(d, alg("aes-256-gcm"));
    EXPECT_EQ(nullptr, t.device.name_contains);
    EXPECT_EQ(DeviceKind::Cuda, t.device.kind);
    EXPECT_STREQ("aes", t.family);
    EXPECT_NE(nullptr, std::strstr(t.provenance, "fallback"));
    // An H100 name with another compute capability is not the measured device either.
    DeviceTraits odd = h100();
    odd.cc_major = 8;
    EXPECT_EQ(nullptr, bc::tuning::select_tuning(odd, alg("aes-128-ctr")).device.name_contains);
    // Every kind of device gets an entry of its own kind.
    DeviceTraits cl;
    cl.kind = DeviceKind::OpenCl;
    cl.name = "unknown accelerator";
    cl.gpu = true;
    EXPECT_EQ(DeviceKind::OpenCl, bc::tuning::select_tuning(cl).device.kind);
    EXPECT_EQ(256, bc::tuning::select_tuning(cl).kernel.threads_per_block);
    cl.gpu = false;
    EXPECT_EQ(64, bc::tuning::select_tuning(cl).kernel.threads_per_block);
    const bc::tuning::Tuning& host = bc::tuning::select_tuning(DeviceTraits{});
    EXPECT_EQ(DeviceKind::Cpu, host.device.kind);
    EXPECT_GT(host.engine.chunk_bytes, 0u);
    EXPECT_GT(host.engine.cpu_threshold, 0u);
}

// Every shipped entry names at least one bench/results/ folder, and every folder it names exists.
TEST(Tuning, EveryDefaultEntryHasProvenanceInBenchResults) {
    const std::string root = source_root();
    if (!is_dir(root + "/bench/results")) GTEST_SKIP() << "skipped: no bench/results under " << root;
    size_t n = 0;
    const bc::tuning::Tuning* table = bc::tuning::default_table(&n);
    ASSERT_GT(n, 0u);
    const std::regex folder("bench/results/([0-9A-Za-z._-]+)");
    for (size_t i = 0; i < n; ++i) {
        ASSERT_NE(nullptr, table[i].provenance) << "entry " << i;
        const std::string p = table[i].provenance;
        size_t named = 0;
        for (auto it = std::sregex_iterator(p.begin(), p.end(), folder); it != std::sregex_iterator(); ++it) {
            std::string name = (*it)[1].str();
            while (!name.empty() && name.back() == '.') name.pop_back();  // sentence end
            ++named;
            EXPECT_TRUE(is_dir(root + "/bench/results/" + name)) << "entry " << i << " names " << name;
        }
        EXPECT_GT(named, 0u) << "entry " << i << " (" << table[i].family << ") names no results folder: " << p;
    }
    // The table's last entry is the fallback of last resort: it matches any host.
    EXPECT_EQ(DeviceKind::Cpu, table[n - 1].device.kind);
    EXPECT_EQ(nullptr, table[n - 1].device.name_contains);
}

TEST(Tuning, OverridesReplaceFieldsOfTheEntry) {
    const bc::tuning::Tuning& t = bc::tuning::select_tuning(h100(), alg("aes-128-ctr"));
    bc::tuning::Overrides o;
    bool known = false;
    std::string why;
    ASSERT_TRUE(bc::tuning::parse_option("cuda.aes_variant", "cle", &o, &known, &why));
    EXPECT_TRUE(known);
    ASSERT_TRUE(bc::tuning::parse_option("cuda.ghash", "tensor", &o, &known, &why));
    EXPECT_EQ(2, o.ghash_variant);
    ASSERT_TRUE(bc::tuning::parse_option("cuda.ghash", "uint4", &o, &known, &why));
    ASSERT_TRUE(bc::tuning::parse_option("cuda.pair_cc_waves", "4", &o, &known, &why));
    ASSERT_TRUE(bc::tuning::parse_option("depth", "8", &o, &known, &why));
    ASSERT_TRUE(bc::tuning::parse_option("cuda.xts_layout", "tiles", &o, &known, &why));
    EXPECT_EQ(1, o.xts_layout);
    ASSERT_TRUE(bc::tuning::parse_option("cuda.xts_layout", "interleaved-smem", &o, &known, &why));
    EXPECT_EQ(2, o.xts_layout);
    ASSERT_TRUE(bc::tuning::parse_option("cuda.xts_layout", "interleaved", &o, &known, &why));
    EXPECT_EQ(0, o.xts_layout);
    ASSERT_TRUE(bc::tuning::parse_option("cuda.blocks_per_sm", "5", &o, &known, &why));
    EXPECT_EQ(5, o.blocks_per_sm);
    o.chunk = size_t(1) << 20;
    const bc::tuning::Tuning r = bc::tuning::apply_overrides(t, o);
    EXPECT_EQ(4, r.kernel.variant);
    EXPECT_EQ(0, r.ghash.variant);
    EXPECT_EQ(4, r.pair.variant);
    EXPECT_EQ(8, r.pipeline.depth);
    EXPECT_EQ(size_t(1) << 20, r.pipeline.chunk_bytes);
    EXPECT_STREQ(t.provenance, r.provenance);
    // No overrides: the entry as it is.
    const bc::tuning::Tuning same = bc::tuning::apply_overrides(t, bc::tuning::Overrides{});
    EXPECT_EQ(t.kernel.variant, same.kernel.variant);
    EXPECT_EQ(t.pipeline.depth, same.pipeline.depth);
    // Bad values are refused with the accepted ones named.
    EXPECT_FALSE(bc::tuning::parse_option("cuda.aes_variant", "fast", &o, &known, &why));
    EXPECT_NE(std::string::npos, why.find("pair-dec")) << why;
    EXPECT_FALSE(bc::tuning::parse_option("cuda.ghash", "2", &o, &known, &why));
    EXPECT_FALSE(bc::tuning::parse_option("cuda.pair_cc_waves", "9", &o, &known, &why));
    EXPECT_FALSE(bc::tuning::parse_option("cuda.xts_layout", "tile", &o, &known, &why));
    EXPECT_NE(std::string::npos, why.find("interleaved")) << why;
    EXPECT_FALSE(bc::tuning::parse_option("cuda.blocks_per_sm", "0", &o, &known, &why));
    EXPECT_FALSE(bc::tuning::parse_option("cuda.blocks_per_sm", "65", &o, &known, &why));
    EXPECT_NE(std::string::npos, why.find("1..64")) << why;
    EXPECT_FALSE(bc::tuning::parse_option("depth", "0", &o, &known, &why));
    EXPECT_FALSE(bc::tuning::parse_option("depth", "4x", &o, &known, &why));
    ASSERT_TRUE(bc::tuning::parse_option("threads", "4", &o, &known, &why));
    EXPECT_FALSE(known);
}

// The CUDA launch knobs the tuner measures as options land in the entry fields a tuned entry
// stores them in: an override and an entry of the same numbers launch alike.
TEST(Tuning, CudaLaunchOptionsLandInTheEntryFieldsTheTunerStores) {
    const bc::tuning::Tuning& chacha = bc::tuning::select_tuning(h100(), alg("salsa20"));
    EXPECT_STREQ("salsa", chacha.family);
    EXPECT_EQ(256, chacha.kernel.threads_per_block);
    EXPECT_EQ(8, chacha.kernel.blocks_per_sm);
    EXPECT_EQ(2, chacha.kernel.items_per_thread);
    bc::tuning::Overrides o;
    bool known = false;
    std::string why;
    ASSERT_TRUE(bc::tuning::parse_option("cuda.threads", "512", &o, &known, &why)) << why;
    EXPECT_TRUE(known);
    ASSERT_TRUE(bc::tuning::parse_option("cuda.unroll", "4", &o, &known, &why)) << why;
    ASSERT_TRUE(bc::tuning::parse_option("cuda.blocks_per_sm", "16", &o, &known, &why)) << why;
    ASSERT_TRUE(bc::tuning::parse_option("cuda.pair_blocks_per_sm", "24", &o, &known, &why)) << why;
    const bc::tuning::Tuning r = bc::tuning::apply_overrides(chacha, o);
    EXPECT_EQ(512, r.kernel.threads_per_block);
    EXPECT_EQ(16, r.kernel.blocks_per_sm);
    EXPECT_EQ(4, r.kernel.items_per_thread);
    EXPECT_EQ(24, r.pair.blocks_per_sm);
    const bc::tuning::Tuning a = bc::tuning::apply_overrides(bc::tuning::select_tuning(h100(), alg("aes-128-ctr")), o);
    EXPECT_EQ(16, a.kernel.blocks_per_sm);
    EXPECT_EQ(24, a.pair.blocks_per_sm);
    for (const auto& bad : std::vector<std::pair<const char*, const char*>>{
             {"cuda.threads", "48"}, {"cuda.threads", "16"}, {"cuda.threads", "2048"}, {"cuda.unroll", "3"},
             {"cuda.unroll", "0"}, {"cuda.unroll", "8"}, {"cuda.pair_blocks_per_sm", "0"}, {"cuda.pair_blocks_per_sm", "65"}}) {
        bc::tuning::Overrides x;
        EXPECT_FALSE(bc::tuning::parse_option(bad.first, bad.second, &x, &known, &why)) << bad.first << "=" << bad.second;
        EXPECT_TRUE(known);
        EXPECT_NE(std::string::npos, why.find(bad.first)) << why;
    }
}

TEST(Tuning, ContextOptionsAreParsedAndBadValuesRefused) {
    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "depth=6,cuda.aes_variant=pair-cc,cuda.ghash=planes,cuda.pair_cc_waves=2,chunk=65536,"
                                        "cuda.xts_layout=tiles,cuda.blocks_per_sm=3,opencl.work_group=64,tuning=shipped,"
                                        "cuda.threads=128,cuda.unroll=4,cuda.pair_blocks_per_sm=12", &ctx))
        << bc_last_error();
    bc_context_destroy(ctx);
    // a table form exists for SEED only
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "seed=table,seed=bitsliced", &ctx)) << bc_last_error();
    bc_context_destroy(ctx);
    for (const char* bad : {"cuda.aes_variant=fastest", "cuda.ghash=3", "depth=0", "depth=33", "cuda.pair_cc_waves=0",
                            "cuda.xts_layout=2", "cuda.blocks_per_sm=x", "chunk=100", "opencl.work_group=0",
                            "opencl.work_group=2048", "tuning=fast", "cuda.threads=100", "cuda.unroll=3", "cuda.aes_bs=pair", "clefia=table", "seed=tables", "seed_table=table"}) {
        ctx = nullptr;
        EXPECT_EQ(BC_ERR_BAD_OPTION, bc_context_create("cpu", bad, &ctx)) << bad;
        EXPECT_EQ(nullptr, ctx) << bad;
        EXPECT_NE(nullptr, std::strstr(bc_last_error(), bad)) << bad << ": " << bc_last_error();
    }
}

// Kernels are chosen by tuning entries and context options, never by the environment.
TEST(Tuning, NoEnvironmentVariableChoosesCudaKernels) {
    const std::string root = source_root();
    const std::string dir = root + "/src/backends/cuda";
    DIR* d = opendir(dir.c_str());
    if (!d) GTEST_SKIP() << "skipped: no " << dir;
    size_t files = 0;
    for (dirent* e = readdir(d); e; e = readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        std::ifstream in(dir + "/" + name);
        if (!in) continue;
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        ++files;
        EXPECT_EQ(std::string::npos, text.find("getenv(\"BULKCRYPT_CUDA_")) << name;
        EXPECT_EQ(std::string::npos, text.find("getenv")) << name << " reads the environment";
    }
    closedir(d);
    EXPECT_GT(files, 5u);
}

}  // namespace

namespace {

bc::tuning::TunedEntry tuned_entry(const char* family, const char* mode, int threads) {
    bc::tuning::TunedEntry e;
    e.family = family;
    e.mode = mode;
    e.kernel = {threads, 8, 0, 0};
    e.rate_gbs = 2;
    e.default_gbs = 1;
    e.date = "2026-11-27";
    return e;
}

bc::tuning::DeviceIdentity identity_of(const DeviceTraits& d) {
    bc::tuning::DeviceIdentity id;
    id.kind = bc::tuning::device_kind_name(d.kind);
    id.name = d.name;
    return id;
}

}  // namespace

// Entries tuned on this machine come first, for their exact device and family; a context
// with tuning=shipped (DeviceTraits::tuned false) and other devices see the shipped table.
TEST(Tuning, TunedEntriesComeFirstForTheirDeviceOnly) {
    DeviceTraits gpu;
    gpu.kind = DeviceKind::OpenCl;
    gpu.name = "Some OpenCL GPU";
    gpu.gpu = true;
    const int shipped = bc::tuning::select_tuning(gpu).kernel.threads_per_block;
    bc::tuning::set_tuned(identity_of(gpu), gpu,
                          {tuned_entry("generic", "*", shipped * 2), tuned_entry("chacha", "stream", 96)});
    EXPECT_EQ(shipped * 2, bc::tuning::select_tuning(gpu).kernel.threads_per_block);
    EXPECT_NE(nullptr, std::strstr(bc::tuning::select_tuning(gpu).provenance, "tuned on this machine 2026-11-27"));
    EXPECT_EQ(96, bc::tuning::select_tuning(gpu, "chacha", "stream").kernel.threads_per_block);
    // no tuned (salsa, *) entry: the tuned device-wide entry does not stand in for a family
    EXPECT_NE(96, bc::tuning::select_tuning(gpu, "salsa", "stream").kernel.threads_per_block);

    DeviceTraits shipped_only = gpu;
    shipped_only.tuned = false;
    EXPECT_EQ(shipped, bc::tuning::select_tuning(shipped_only).kernel.threads_per_block);
    DeviceTraits other = gpu;
    other.name = "Another OpenCL GPU";
    EXPECT_EQ(shipped, bc::tuning::select_tuning(other).kernel.threads_per_block);

    // the same entries again change nothing; new ones replace them; none takes them away
    const bc::tuning::Tuning* before = &bc::tuning::select_tuning(gpu);
    bc::tuning::set_tuned(identity_of(gpu), gpu,
                          {tuned_entry("generic", "*", shipped * 2), tuned_entry("chacha", "stream", 96)});
    EXPECT_EQ(before, &bc::tuning::select_tuning(gpu));
    bc::tuning::set_tuned(identity_of(gpu), gpu, {tuned_entry("generic", "*", 32)});
    EXPECT_EQ(32, bc::tuning::select_tuning(gpu).kernel.threads_per_block);
    EXPECT_EQ(shipped * 2, before->kernel.threads_per_block) << "an entry handed out stays valid";
    bc::tuning::set_tuned(identity_of(gpu), gpu, {});
    EXPECT_EQ(shipped, bc::tuning::select_tuning(gpu).kernel.threads_per_block);
    bc::tuning::clear_tuned();
}

TEST(Tuning, WorkGroupOptionOverridesTheEntry) {
    bc::tuning::Overrides o;
    bool known = false;
    std::string why;
    ASSERT_TRUE(bc::tuning::parse_option("opencl.work_group", "48", &o, &known, &why));
    ASSERT_TRUE(known);
    ASSERT_TRUE(bc::tuning::parse_option("tuning", "shipped", &o, &known, &why));
    EXPECT_TRUE(o.shipped_only);
    DeviceTraits gpu;
    gpu.kind = DeviceKind::OpenCl;
    gpu.name = "Some OpenCL GPU";
    EXPECT_EQ(48, bc::tuning::apply_overrides(bc::tuning::select_tuning(gpu), o).kernel.threads_per_block);
}

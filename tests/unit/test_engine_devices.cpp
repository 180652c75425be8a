// Which devices the engine takes and in which order (src/engine/engine_devices.h): the
// OpenCL eligibility rule and the GPU order over made-up machines, the rates the tuning
// tables hand it, what "auto" and "hybrid" make of this machine, and a device worker that
// cannot take a key leaving it to the others.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/device_desc.h"
#include "engine/engine_devices.h"
#include "test_engine_util.h"
#include "tuning/tuned.h"

namespace {

using bc::DeviceDesc;
using bc::DeviceType;
using bc::OpenClChoice;
using bc::PciAddress;
using bc::tuning::DeviceKind;
using namespace bc_test;

DeviceDesc cuda_gpu(int ordinal, PciAddress pci = {}) {
    return DeviceDesc{DeviceKind::Cuda, ordinal, DeviceType::Gpu, "NVIDIA H100 80GB HBM3", "NVIDIA", "CUDA",
                      bc::kPciVendorNvidia, pci, {}};
}

DeviceDesc opencl(int index, DeviceType type, const char* name, const char* vendor, const char* platform,
                  unsigned vendor_id = 0, PciAddress pci = {}) {
    return DeviceDesc{DeviceKind::OpenCl, index, type, name, vendor, platform, vendor_id, pci, {}};
}

DeviceDesc pocl_cpu() {
    return opencl(0, DeviceType::Cpu, "pthread-haswell-AMD EPYC", "AuthenticAMD", "Portable Computing Language", 0x1022);
}
DeviceDesc nvidia_opencl(PciAddress pci = {}) {
    return opencl(1, DeviceType::Gpu, "NVIDIA H100 80GB HBM3", "NVIDIA Corporation", "NVIDIA CUDA", bc::kPciVendorNvidia, pci);
}
DeviceDesc amd_gpu(PciAddress pci = {}, const char* platform = "AMD Accelerated Parallel Processing") {
    return opencl(2, DeviceType::Gpu, "gfx1100", "Advanced Micro Devices, Inc.", platform, 0x1002, pci);
}

const PciAddress kBus65{0, 0x65, 0, 0};

// ---- eligibility -------------------------------------------------------------------

TEST(EngineOpenClChoice, CpuTypeDevicesNever) {
    EXPECT_EQ(OpenClChoice::NotGpu, bc::engine_opencl_choice(pocl_cpu(), {}));
    EXPECT_EQ(OpenClChoice::NotGpu, bc::engine_opencl_choice(pocl_cpu(), {cuda_gpu(0, kBus65)}));
    // Intel's CPU runtime, and a device that says CPU and GPU at once
    EXPECT_EQ(OpenClChoice::NotGpu,
              bc::engine_opencl_choice(opencl(0, DeviceType::Cpu, "Intel(R) Xeon(R)", "Intel(R) Corporation",
                                              "Intel(R) OpenCL", 0x8086),
                                       {}));
    EXPECT_EQ(OpenClChoice::NotGpu,
              bc::engine_opencl_choice(opencl(0, DeviceType::Accelerator, "FPGA", "Intel(R) Corporation",
                                              "Intel(R) FPGA SDK for OpenCL(TM)", 0x8086),
                                       {}));
}

TEST(EngineOpenClChoice, NvidiaSkippedBesideCudaWithoutAddresses) {
    const DeviceDesc cuda = cuda_gpu(0, kBus65);
    EXPECT_EQ(OpenClChoice::NvidiaBesideCuda, bc::engine_opencl_choice(nvidia_opencl(), {cuda}));
    // the CUDA side's address unknown, the OpenCL side's known
    EXPECT_EQ(OpenClChoice::NvidiaBesideCuda, bc::engine_opencl_choice(nvidia_opencl(kBus65), {cuda_gpu(0)}));
    // NVIDIA told by the vendor id alone, and by the vendor name under another platform (PoCL's CUDA driver)
    EXPECT_EQ(OpenClChoice::NvidiaBesideCuda,
              bc::engine_opencl_choice(opencl(1, DeviceType::Gpu, "GPU", "", "", bc::kPciVendorNvidia), {cuda}));
    EXPECT_EQ(OpenClChoice::NvidiaBesideCuda,
              bc::engine_opencl_choice(
                  opencl(1, DeviceType::Gpu, "NVIDIA H100", "NVIDIA Corporation", "Portable Computing Language"), {cuda}));
    // no CUDA device in the engine: NVIDIA's OpenCL GPU is a worker like any other
    EXPECT_EQ(OpenClChoice::Take, bc::engine_opencl_choice(nvidia_opencl(), {}));
}

TEST(EngineOpenClChoice, SamePciAddressSkipped) {
    EXPECT_EQ(OpenClChoice::SameHardware, bc::engine_opencl_choice(nvidia_opencl(kBus65), {cuda_gpu(0, kBus65)}));
    // NVIDIA's query without the domain: bus, device and function decide
    EXPECT_EQ(OpenClChoice::SameHardware,
              bc::engine_opencl_choice(nvidia_opencl(PciAddress{-1, 0x65, 0, 0}), {cuda_gpu(0, kBus65)}));
    // another NVIDIA GPU than CUDA's (every address known): taken
    EXPECT_EQ(OpenClChoice::Take,
              bc::engine_opencl_choice(nvidia_opencl(PciAddress{0, 0x17, 0, 0}), {cuda_gpu(0, kBus65)}));
    EXPECT_EQ(OpenClChoice::Take,
              bc::engine_opencl_choice(nvidia_opencl(PciAddress{1, 0x65, 0, 0}), {cuda_gpu(0, kBus65)}));
    // one AMD GPU listed by two platforms: the second is the first one again
    const DeviceDesc rocm = amd_gpu(PciAddress{0, 3, 0, 0});
    EXPECT_EQ(OpenClChoice::SameHardware, bc::engine_opencl_choice(amd_gpu(PciAddress{0, 3, 0, 0}, "rusticl"), {rocm}));
}

TEST(EngineOpenClChoice, OtherVendorsGpusTaken) {
    EXPECT_EQ(OpenClChoice::Take, bc::engine_opencl_choice(amd_gpu(), {}));
    EXPECT_EQ(OpenClChoice::Take, bc::engine_opencl_choice(amd_gpu(), {cuda_gpu(0), cuda_gpu(1, kBus65)}));
    EXPECT_EQ(OpenClChoice::Take,
              bc::engine_opencl_choice(opencl(3, DeviceType::Gpu, "Intel(R) Arc(TM) A770 Graphics",
                                              "Intel(R) Corporation", "Intel(R) OpenCL Graphics", 0x8086),
                                       {cuda_gpu(0)}));
}

TEST(EngineOpenClChoice, PciComparison) {
    EXPECT_TRUE(bc::same_pci(kBus65, kBus65));
    EXPECT_FALSE(bc::same_pci(kBus65, PciAddress{}));
    EXPECT_FALSE(bc::same_pci(PciAddress{}, PciAddress{}));
    EXPECT_FALSE(bc::same_pci(kBus65, PciAddress{0, 0x65, 0, 1}));
    EXPECT_TRUE(bc::same_pci(kBus65, PciAddress{-1, 0x65, 0, 0}));
}

// ---- order -------------------------------------------------------------------------

std::vector<size_t> order(const std::vector<DeviceDesc>& gpus, const std::vector<double>& rates) {
    return bc::engine_gpu_order(gpus, rates);
}

TEST(EngineGpuOrder, MeasuredRatesHighestFirst) {
    const std::vector<DeviceDesc> g = {cuda_gpu(0), cuda_gpu(1), amd_gpu()};
    EXPECT_EQ((std::vector<size_t>{2, 1, 0}), order(g, {10, 20, 30}));
    EXPECT_EQ((std::vector<size_t>{1, 2, 0}), order(g, {10, 40, 30}));
}

TEST(EngineGpuOrder, NothingMeasuredCudaAheadOfOpenCl) {
    const std::vector<DeviceDesc> g = {amd_gpu(), cuda_gpu(0), amd_gpu(), cuda_gpu(1)};
    EXPECT_EQ((std::vector<size_t>{1, 3, 0, 2}), order(g, {0, 0, 0, 0}));
    EXPECT_EQ((std::vector<size_t>{1, 3, 0, 2}), order(g, {}));  // no rates at all
}

TEST(EngineGpuOrder, PartlyMeasuredOrdersWithinFullyMeasuredClasses) {
    // An unmeasured CUDA GPU: every class keeps its place; the CUDA class its enumeration
    // order (one of its devices unmeasured), the OpenCL class (all measured) its rates.
    const std::vector<DeviceDesc> g = {cuda_gpu(0), cuda_gpu(1), amd_gpu(), amd_gpu()};
    EXPECT_EQ((std::vector<size_t>{0, 1, 3, 2}), order(g, {5, 0, 40, 50}));
    EXPECT_EQ((std::vector<size_t>{1, 0, 2, 3}), order(g, {5, 9, 0, 50}));
    // a fast OpenCL GPU measured, the CUDA one not: class order
    EXPECT_EQ((std::vector<size_t>{1, 0}), order({amd_gpu(), cuda_gpu(0)}, {100, 0}));
}

TEST(EngineGpuOrder, TiesKeepEnumerationOrder) {
    const std::vector<DeviceDesc> g = {amd_gpu(), cuda_gpu(0), cuda_gpu(1)};
    EXPECT_EQ((std::vector<size_t>{0, 1, 2}), order(g, {7, 7, 7}));
    EXPECT_EQ((std::vector<size_t>{1, 0, 2}), order(g, {7, 9, 7}));
    EXPECT_TRUE(order({}, {}).empty());
}

// ---- rates from the tuning tables --------------------------------------------------

TEST(EngineGpuOrder, TunedRateIsTheBestMeasuredEntry) {
    bc::tuning::DeviceTraits dev{DeviceKind::OpenCl, "made-up GPU for tuned_rate", 0, 0, 0, true, true};
    bc::tuning::DeviceIdentity id;
    id.kind = "opencl";
    id.name = dev.name;
    std::vector<bc::tuning::TunedEntry> entries(3);
    entries[0].family = "generic", entries[0].mode = "*", entries[0].rate_gbs = 12.5;
    entries[1].family = "aes", entries[1].mode = "ctr", entries[1].rate_gbs = 30;
    entries[2].family = "aes", entries[2].mode = "xts", entries[2].rate_gbs = 20;
    EXPECT_EQ(0.0, bc::tuning::tuned_rate(dev));
    bc::tuning::set_tuned(id, dev, entries);
    EXPECT_EQ(30.0, bc::tuning::tuned_rate(dev));
    EXPECT_EQ(30.0, bc::tuning::tuned_rate(dev, "aes"));
    EXPECT_EQ(20.0, bc::tuning::tuned_rate(dev, "aes", "xts"));
    EXPECT_EQ(0.0, bc::tuning::tuned_rate(dev, "aes", "gcm"));
    EXPECT_EQ(12.5, bc::tuning::tuned_rate(dev, "generic", "ecb"));  // "*" covers every mode
    bc::tuning::DeviceTraits other = dev;
    other.name = "another GPU";
    EXPECT_EQ(0.0, bc::tuning::tuned_rate(other));
    bc::tuning::set_tuned(id, dev, {});  // out of effect again
    EXPECT_EQ(0.0, bc::tuning::tuned_rate(dev));
}

// ---- this machine ------------------------------------------------------------------

// auto is the engine exactly when some GPU is eligible (a CUDA GPU, or an OpenCL GPU that
// no CUDA device is): an OpenCL CPU device (PoCL) never makes it anything but "cpu".
TEST(EngineDevicesHere, AutoIsTheCpuUnlessAGpuIsEligible) {
    std::vector<DeviceDesc> taken, cl;
    for (int i = 0; i < bc::cuda_device_count(); ++i) {
        DeviceDesc d;
        if (bc::cuda_device_desc(i, &d)) taken.push_back(d);
    }
    (void)bc::opencl_device_descs(&cl);
    bool gpu = !taken.empty();
    for (const DeviceDesc& d : cl)
        if (bc::engine_opencl_choice(d, taken) == OpenClChoice::Take) gpu = true;

    bc_context* ctx = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("auto", nullptr, &ctx)) << bc_last_error();
    const std::string backend = bc_context_backend(ctx), name = bc_context_device_name(ctx);
    bc_context_destroy(ctx);
    EXPECT_EQ(gpu ? "hybrid" : "cpu", backend) << name;
    for (const DeviceDesc& d : cl)
        if (d.type != DeviceType::Gpu)
            EXPECT_EQ(std::string::npos, name.find("opencl [" + d.name + " (")) << name;

    ctx = nullptr;
    const bc_status st = bc_context_create("hybrid", nullptr, &ctx);
    if (gpu) {
        EXPECT_EQ(BC_OK, st) << bc_last_error();
    } else {
        EXPECT_EQ(BC_ERR_NO_DEVICE, st);
        EXPECT_NE(std::string::npos, std::string(bc_last_error()).find("OpenCL")) << bc_last_error();
    }
    bc_context_destroy(ctx);
}

// ---- a device worker that cannot take a key ----------------------------------------

// The CPU backend posing as a device whose prepare_key fails with `fail`.
class KeylessDevice final : public ForwardingBackend {
public:
    KeylessDevice(std::unique_ptr<bc::Backend> b, bc_status fail) : ForwardingBackend(std::move(b)), fail_(fail) {}
    const char* name() const override { return "keyless"; }
    bool is_cpu() const override { return false; }
    bc::Status prepare_key(const bc::KeyMaterial&, std::unique_ptr<bc::BackendKey>*) override {
        return bc::Status(fail_, "made-up failure");
    }

private:
    bc_status fail_;
};

std::unique_ptr<bc::Backend> engine_with_keyless(bc_status fail, bool with_cpu) {
    bc::ContextOptions co;
    co.threads = 2;
    std::vector<std::unique_ptr<bc::Backend>> w;
    std::unique_ptr<bc::Backend> cpu;
    EXPECT_TRUE(bc::make_cpu_backend(co, &cpu).is_ok());
    if (with_cpu) {
        w.push_back(std::move(cpu));
        EXPECT_TRUE(bc::make_cpu_backend(co, &cpu).is_ok());
    }
    w.push_back(std::make_unique<KeylessDevice>(std::move(cpu), fail));
    bc::EngineOptions eo;
    eo.chunk = 4096;
    eo.cpu_threshold = 0;
    eo.split_policy = bc::EngineOptions::SplitPolicy::Split;
    std::unique_ptr<bc::Backend> e;
    EXPECT_TRUE(bc::make_engine_backend(std::move(w), eo, &e).is_ok());
    return e;
}

TEST(EngineKeys, ADeviceThatCannotTakeAKeyLeavesItToTheOthers) {
    WrappedCtx test(engine_with_keyless(BC_ERR_DEVICE, true), "engine");
    bc_context* ref = nullptr;
    ASSERT_EQ(BC_OK, bc_context_create("cpu", "threads=2", &ref));
    DiffOptions o;
    o.only = "aes-128-ctr";
    EXPECT_EQ(1u, diff_all(ref, test.ctx, o));
    bc_context_destroy(ref);
    bc::EngineStats s;
    ASSERT_TRUE(bc::engine_stats(test.backend(), &s));
    EXPECT_EQ(0u, s.bytes[1]);  // the keyless worker ran nothing
    EXPECT_GT(s.bytes[0], 0u);
}

TEST(EngineKeys, AKeyNoWorkerTakesFails) {
    const bc::Algorithm* a = bc::find_algorithm("aes-128-ctr");
    ASSERT_NE(nullptr, a);
    bc::KeyMaterial km;
    km.alg = a;
    const Bytes raw = rnd(16);
    km.raw = bc::SecureBytes(raw.data(), raw.size());
    std::unique_ptr<bc::BackendKey> k;
    // a failure any worker would repeat is the call's, whoever else takes the key
    EXPECT_EQ(BC_ERR_KEY_SIZE, engine_with_keyless(BC_ERR_KEY_SIZE, true)->prepare_key(km, &k).code);
    // the only worker with the algorithm cannot take the key
    EXPECT_EQ(BC_ERR_DEVICE, engine_with_keyless(BC_ERR_DEVICE, false)->prepare_key(km, &k).code);
}

}  // namespace

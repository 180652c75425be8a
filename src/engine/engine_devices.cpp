// The engines over this machine's devices: "hybrid" (the CPU, every CUDA GPU and every
// OpenCL GPU that CUDA does not already drive) and "cuda:all" (every CUDA GPU), built from
// the ordinary backends; the rules of engine_devices.h.
#include "engine/engine_devices.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <thread>

#include "engine/engine_backend.h"
#include "tuning/tuned.h"

namespace bc {
namespace {

bool contains_nvidia(const std::string& s) {
    std::string lower(s);
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    return lower.find("nvidia") != std::string::npos;
}

bool is_nvidia(const DeviceDesc& d) {
    return d.vendor_id == kPciVendorNvidia || contains_nvidia(d.vendor) || contains_nvidia(d.platform);
}

// Class order where rates do not decide: CUDA GPUs, then OpenCL GPUs.
int class_rank(const DeviceDesc& d) { return d.kind == tuning::DeviceKind::Cuda ? 0 : 1; }

}  // namespace

bool same_pci(const PciAddress& a, const PciAddress& b) {
    if (!a.known() || !b.known()) return false;
    if (a.domain >= 0 && b.domain >= 0 && a.domain != b.domain) return false;
    return a.bus == b.bus && a.device == b.device && a.function == b.function;
}

OpenClChoice engine_opencl_choice(const DeviceDesc& d, const std::vector<DeviceDesc>& taken) {
    if (d.type != DeviceType::Gpu) return OpenClChoice::NotGpu;
    for (const DeviceDesc& t : taken)
        if (same_pci(d.pci, t.pci)) return OpenClChoice::SameHardware;
    if (is_nvidia(d))
        for (const DeviceDesc& t : taken)
            if (t.kind == tuning::DeviceKind::Cuda && (!d.pci.known() || !t.pci.known()))
                return OpenClChoice::NvidiaBesideCuda;
    return OpenClChoice::Take;
}

const char* engine_opencl_choice_text(OpenClChoice c) {
    switch (c) {
    case OpenClChoice::Take: return "taken";
    case OpenClChoice::NotGpu: return "not a GPU (the CPU backend runs the cores)";
    case OpenClChoice::SameHardware: return "the same GPU as a worker already taken (PCI address)";
    case OpenClChoice::NvidiaBesideCuda: return "NVIDIA's, beside CUDA devices it cannot be told apart from";
    }
    return "?";
}

std::vector<size_t> engine_gpu_order(const std::vector<DeviceDesc>& gpus, const std::vector<double>& rates_gbs) {
    const size_t n = gpus.size();
    auto rate = [&](size_t i) { return i < rates_gbs.size() && rates_gbs[i] > 0 ? rates_gbs[i] : 0.0; };
    bool all = true;
    bool class_all[2] = {true, true};
    for (size_t i = 0; i < n; ++i)
        if (rate(i) <= 0) all = false, class_all[class_rank(gpus[i])] = false;
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (!all) {
            const int ca = class_rank(gpus[a]), cb = class_rank(gpus[b]);
            if (ca != cb) return ca < cb;
            if (!class_all[ca]) return false;  // enumeration order
        }
        return rate(a) > rate(b);
    });
    return order;
}

int engine_gpu_count() { return cuda_device_count(); }

Status make_device_engine(bool with_cpu, const ContextOptions& opt, std::unique_ptr<Backend>* out,
                          const EngineOptions* base) {
    // The GPUs in enumeration order (CUDA ordinals, then opencl:N), each with its description.
    std::vector<std::unique_ptr<Backend>> gpus;
    std::vector<DeviceDesc> descs;
    Status no_cuda;
    for (int i = 0; i < 1024; ++i) {
        std::unique_ptr<Backend> b;
        Status st = make_cuda_backend(i, opt, &b);
        if (!st) {
            // Past the last GPU (or none at all): stop. A GPU that is there but fails is an error.
            if (st.code == BC_ERR_NO_DEVICE) {
                if (i == 0) no_cuda = st;
                break;
            }
            return st;
        }
        DeviceDesc d;
        if (!cuda_device_desc(i, &d)) {  // nothing known beyond its kind: no address, no rate
            d.kind = tuning::DeviceKind::Cuda;
            d.index = i;
        }
        gpus.push_back(std::move(b));
        descs.push_back(std::move(d));
    }
    // "hybrid" also takes the OpenCL GPUs that no CUDA worker drives. One that fails to open
    // is left out: the engine runs without it, as on a machine without it.
    std::string opencl_note;
    if (with_cpu) {
        std::vector<DeviceDesc> cl;
        const Status listed = opencl_device_descs(&cl);
        opencl_note = !listed ? listed.detail : cl.empty() ? "no device" : "";
        for (const DeviceDesc& d : cl) {
            const OpenClChoice c = engine_opencl_choice(d, descs);
            std::string why = engine_opencl_choice_text(c);
            if (c == OpenClChoice::Take) {
                std::unique_ptr<Backend> b;
                const Status st = make_opencl_backend(d.index, opt, &b);
                if (st) {
                    gpus.push_back(std::move(b));
                    descs.push_back(d);
                    continue;
                }
                why = st.detail;
            }
            opencl_note += (opencl_note.empty() ? "opencl:" : "; opencl:") + std::to_string(d.index) + " " + d.name +
                           ": " + why;
        }
    }
    if (gpus.empty()) {
        if (!with_cpu) return no_cuda;
        std::string why = "no GPU for the engine: " + (no_cuda.detail.empty() ? std::string("no CUDA GPU") : no_cuda.detail);
        why += "; OpenCL: " + opencl_note;
        return Status(BC_ERR_NO_DEVICE, why);
    }

    // Worker order. The engine hands work that stays whole to workers in this order: a job
    // that does not fit the busy CPU goes to the least loaded GPU, the first of them on a tie
    // (commonly all idle); a key that no CPU worker holds runs its small jobs on the first
    // worker that holds it; device pointers are offered in this order when no owner is
    // known. Pieces of split jobs follow the rates the engine learns, whatever the order. So
    // the fastest GPU comes first, by the rate measured on this machine (tuning=shipped sets
    // those measurements aside, as it sets aside the tuned entries that carry them).
    std::vector<double> rates(descs.size(), 0.0);
    if (!opt.tuning.shipped_only)
        for (size_t i = 0; i < descs.size(); ++i)
            if (!descs[i].traits.name.empty()) rates[i] = tuning::tuned_rate(descs[i].traits);
    std::vector<std::unique_ptr<Backend>> workers;
    std::vector<int> devices;  // CUDA ordinal per worker (device pointers), -1 for host-only workers
    const std::vector<size_t> order = engine_gpu_order(descs, rates);
    for (size_t i : order) {
        workers.push_back(std::move(gpus[i]));
        devices.push_back(descs[i].kind == tuning::DeviceKind::Cuda ? descs[i].index : -1);
    }

    EngineOptions eo = base ? *base : EngineOptions();
    if (!base) {  // the host's tuning entry (src/tuning); chunk= sizes the workers' pieces, not these
        const tuning::Tuning& t = tuning::select_tuning(tuning::DeviceTraits{});
        eo.chunk = t.engine.chunk_bytes;
        eo.cpu_threshold = t.engine.cpu_threshold;
        // The threshold and chunk `bulkcrypt tune -a engine` measured between this CPU and the
        // first GPU (kept in that GPU's tuned "generic" entry) come before the host's estimates.
        if (with_cpu && !opt.tuning.shipped_only && !order.empty() && !descs[order[0]].traits.name.empty()) {
            const tuning::Tuning* g = tuning::find_tuned(descs[order[0]].traits, "generic", "*");
            if (g && g->engine.cpu_threshold) eo.cpu_threshold = g->engine.cpu_threshold;
            if (g && g->engine.chunk_bytes) eo.chunk = g->engine.chunk_bytes;
        }
    }
    eo.name = with_cpu ? "hybrid" : "cuda:all";
    if (with_cpu) {
        ContextOptions co = opt;
        // Every core: a job the engine runs on the CPU alone (EngineOptions::split_policy) must
        // not lose the cores the GPU pipelines' staging threads use when both run. Until
        // 2026-11-22 the CPU worker got hw - 4 x GPUs threads (bench/notes/engine-host-memory.md).
        if (co.threads == 0) co.threads = std::max(1u, std::thread::hardware_concurrency());
        eo.cpu_busy_at = co.threads;  // whole jobs go to a GPU only once every core has one
        std::unique_ptr<Backend> cpu;
        BC_TRY(make_cpu_backend(co, &cpu));
        workers.insert(workers.begin(), std::move(cpu));  // the CPU first: small jobs stay on it
        devices.insert(devices.begin(), -1);
    }
    eo.worker_devices = devices;
    return make_engine_backend(std::move(workers), eo, out);
}

}  // namespace bc

// The engines over this machine's devices: "hybrid" (the CPU and every CUDA GPU)
// and "cuda:all" (every CUDA GPU), built from the ordinary backends.
#include <algorithm>
#include <thread>

#include "engine/engine_backend.h"

namespace bc {

int engine_gpu_count() { return cuda_device_count(); }

Status make_device_engine(bool with_cpu, const ContextOptions& opt, std::unique_ptr<Backend>* out,
                          const EngineOptions* base) {
    std::vector<std::unique_ptr<Backend>> workers;
    std::vector<int> devices;
    for (int i = 0; i < 1024; ++i) {
        std::unique_ptr<Backend> b;
        Status st = make_cuda_backend(i, opt, &b);
        if (!st) {
            // Past the last GPU (or none at all): stop. A GPU that is there but fails is an error.
            if (st.code == BC_ERR_NO_DEVICE) {
                if (i == 0) return st;
                break;
            }
            return st;
        }
        workers.push_back(std::move(b));
        devices.push_back(i);
    }
    EngineOptions eo = base ? *base : EngineOptions();
    if (!base) {  // the host's tuning entry (src/tuning); chunk= sizes the workers' pieces, not these
        const tuning::Tuning& t = tuning::select_tuning(tuning::DeviceTraits{});
        eo.chunk = t.engine.chunk_bytes;
        eo.cpu_threshold = t.engine.cpu_threshold;
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
        workers.insert(workers.begin(), std::move(cpu));
        devices.insert(devices.begin(), -1);
    }
    eo.worker_devices = devices;
    return make_engine_backend(std::move(workers), eo, out);
}

}  // namespace bc

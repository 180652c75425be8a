#include "backends/opencl/cl_util.h"
#include "util/openssl_ctx.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace bc {
namespace ocl {

std::string cl_error_name(cl_int err) {
    switch (err) {
#define BC_CL_NAME(e) case e: return #e;
        BC_CL_NAME(CL_SUCCESS)
        BC_CL_NAME(CL_DEVICE_NOT_FOUND)
        BC_CL_NAME(CL_DEVICE_NOT_AVAILABLE)
        BC_CL_NAME(CL_COMPILER_NOT_AVAILABLE)
        BC_CL_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        BC_CL_NAME(CL_OUT_OF_RESOURCES)
        BC_CL_NAME(CL_OUT_OF_HOST_MEMORY)
        BC_CL_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        BC_CL_NAME(CL_MEM_COPY_OVERLAP)
        BC_CL_NAME(CL_BUILD_PROGRAM_FAILURE)
        BC_CL_NAME(CL_MAP_FAILURE)
        BC_CL_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        BC_CL_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        BC_CL_NAME(CL_COMPILE_PROGRAM_FAILURE)
        BC_CL_NAME(CL_LINK_PROGRAM_FAILURE)
        BC_CL_NAME(CL_INVALID_VALUE)
        BC_CL_NAME(CL_INVALID_DEVICE_TYPE)
        BC_CL_NAME(CL_INVALID_PLATFORM)
        BC_CL_NAME(CL_INVALID_DEVICE)
        BC_CL_NAME(CL_INVALID_CONTEXT)
        BC_CL_NAME(CL_INVALID_QUEUE_PROPERTIES)
        BC_CL_NAME(CL_INVALID_COMMAND_QUEUE)
        BC_CL_NAME(CL_INVALID_HOST_PTR)
        BC_CL_NAME(CL_INVALID_MEM_OBJECT)
        BC_CL_NAME(CL_INVALID_BINARY)
        BC_CL_NAME(CL_INVALID_BUILD_OPTIONS)
        BC_CL_NAME(CL_INVALID_PROGRAM)
        BC_CL_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        BC_CL_NAME(CL_INVALID_KERNEL_NAME)
        BC_CL_NAME(CL_INVALID_KERNEL)
        BC_CL_NAME(CL_INVALID_ARG_INDEX)
        BC_CL_NAME(CL_INVALID_ARG_VALUE)
        BC_CL_NAME(CL_INVALID_ARG_SIZE)
        BC_CL_NAME(CL_INVALID_KERNEL_ARGS)
        BC_CL_NAME(CL_INVALID_WORK_DIMENSION)
        BC_CL_NAME(CL_INVALID_WORK_GROUP_SIZE)
        BC_CL_NAME(CL_INVALID_WORK_ITEM_SIZE)
        BC_CL_NAME(CL_INVALID_GLOBAL_OFFSET)
        BC_CL_NAME(CL_INVALID_EVENT_WAIT_LIST)
        BC_CL_NAME(CL_INVALID_EVENT)
        BC_CL_NAME(CL_INVALID_OPERATION)
        BC_CL_NAME(CL_INVALID_BUFFER_SIZE)
        BC_CL_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
#undef BC_CL_NAME
        case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
        case -9999: return "NVIDIA illegal memory access (-9999)";
        default: return "CL error " + std::to_string(err);
    }
}

Status cl_status(cl_int err, const char* what) {
    std::string detail = std::string("OpenCL: ") + what + " failed: " + cl_error_name(err);
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY)
        return Status(BC_ERR_OUT_OF_MEMORY, detail);
    return Status(BC_ERR_DEVICE, detail);
}

namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
    size_t n = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetPlatformInfo(p, what, n, &s[0], nullptr) != CL_SUCCESS) return {};
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
    size_t n = 0;
    if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetDeviceInfo(d, what, n, &s[0], nullptr) != CL_SUCCESS) return {};
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
    T v{};
    if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
    return v;
}

std::string sha256_hex(const std::string& data) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    static EVP_MD* const sha256 = EVP_MD_fetch(openssl_ctx(), "SHA256", nullptr);  // bulkcrypt's context
    if (!sha256 || EVP_Digest(data.data(), data.size(), md, &n, sha256, nullptr) != 1) return {};
    static const char* hex = "0123456789abcdef";
    std::string r;
    for (unsigned i = 0; i < n; ++i) {
        r += hex[md[i] >> 4];
        r += hex[md[i] & 15];
    }
    return r;
}

// mkdir -p; true when the directory exists afterwards.
bool make_dirs(const std::string& path) {
    for (size_t i = 1; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            std::string part = path.substr(0, i);
            if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
        }
    }
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string cache_dir() {
    const char* off = std::getenv("BULKCRYPT_OPENCL_CACHE");
    if (off && std::string(off) == "0") return {};
    if (const char* d = std::getenv("BULKCRYPT_CACHE_DIR"); d && *d) return std::string(d) + "/opencl";
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/bulkcrypt/opencl";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/bulkcrypt/opencl";
    return {};
}

std::string build_log(cl_program prog, cl_device_id dev) {
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return {};
    std::string s(n, '\0');
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, &s[0], nullptr) != CL_SUCCESS) return {};
    while (!s.empty() && s.back() == '\0') s.pop_back();
    constexpr size_t kMaxLog = 16000;  // the head holds the first error
    if (s.size() > kMaxLog) s = s.substr(0, kMaxLog) + "\n[build log truncated]";
    return s;
}

bool read_file(const std::string& path, std::vector<unsigned char>* out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    f.seekg(0, std::ios::end);
    std::streamoff n = f.tellg();
    if (n <= 0) return false;
    f.seekg(0);
    out->resize(static_cast<size_t>(n));
    return static_cast<bool>(f.read(reinterpret_cast<char*>(out->data()), n));
}

// Written beside the target and renamed, so a reader never sees half a file.
void write_file_atomic(const std::string& path, const unsigned char* p, size_t n) {
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) return;
        f.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
        if (!f) { f.close(); std::remove(tmp.c_str()); return; }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

std::string DeviceInfo::describe() const {
    std::ostringstream s;
    s << name << " (" << platform_name << ", " << version << ", driver " << driver << ")";
    return s.str();
}

Status list_devices(std::vector<DeviceInfo>* out) {
    out->clear();
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
        return Status(BC_ERR_NO_DEVICE, "OpenCL: no platform is installed (the ICD loader found no "
                                        "vendor in /etc/OpenCL/vendors)");
    if (err != CL_SUCCESS) {
        Status s = cl_status(err, "clGetPlatformIDs");
        return Status(BC_ERR_NO_DEVICE, s.detail);
    }
    std::vector<cl_platform_id> platforms(np);
    BC_CL_TRY(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id p : platforms) {
        cl_uint nd = 0;
        err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
        if (err == CL_DEVICE_NOT_FOUND || nd == 0) continue;
        if (err != CL_SUCCESS) continue;  // a broken platform must not hide the others
        std::vector<cl_device_id> devs(nd);
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr) != CL_SUCCESS) continue;
        for (cl_device_id d : devs) {
            DeviceInfo i;
            i.platform = p;
            i.device = d;
            i.platform_name = platform_string(p, CL_PLATFORM_NAME);
            i.platform_version = platform_string(p, CL_PLATFORM_VERSION);
            i.name = device_string(d, CL_DEVICE_NAME);
            i.vendor = device_string(d, CL_DEVICE_VENDOR);
            i.version = device_string(d, CL_DEVICE_VERSION);
            i.driver = device_string(d, CL_DRIVER_VERSION);
            i.c_version = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
            i.type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
            i.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
            i.clock_mhz = device_value<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
            i.max_work_group = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
            i.global_mem = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
            i.max_alloc = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
            i.local_mem = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
            i.little_endian = device_value<cl_bool>(d, CL_DEVICE_ENDIAN_LITTLE) != CL_FALSE;
            out->push_back(std::move(i));
        }
    }
    return Status::ok();
}

Status build_program(cl_context ctx, const DeviceInfo& dev, const std::string& source,
                     const std::string& options, ProgramHandle* out, BuildResult* info) {
    auto t0 = std::chrono::steady_clock::now();
    BuildResult r;
    cl_device_id d = dev.device;
    cl_int err = CL_SUCCESS;

    std::string dir = cache_dir();
    std::string path;
    if (!dir.empty()) {
        std::string key;
        key += "bulkcrypt-opencl-cache-1\n";
        for (const std::string* s : {&dev.platform_name, &dev.platform_version, &dev.name,
                                     &dev.vendor, &dev.version, &dev.driver, &options, &source}) {
            key += std::to_string(s->size());
            key += ':';
            key += *s;
            key += '\n';
        }
        std::string hex = sha256_hex(key);
        if (!hex.empty() && make_dirs(dir)) path = dir + "/" + hex + ".bin";
    }

    // A cached binary first; any failure falls back to the source.
    std::vector<unsigned char> bin;
    if (!path.empty() && read_file(path, &bin)) {
        const unsigned char* ptr = bin.data();
        size_t size = bin.size();
        cl_int bin_status = CL_SUCCESS;
        ProgramHandle p(clCreateProgramWithBinary(ctx, 1, &d, &size, &ptr, &bin_status, &err));
        if (err == CL_SUCCESS && bin_status == CL_SUCCESS &&
            clBuildProgram(p.get(), 1, &d, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
            r.from_cache = true;
            r.cache_path = path;
            r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            *out = std::move(p);
            if (info) *info = r;
            return Status::ok();
        }
    }

    const char* text = source.c_str();
    size_t len = source.size();
    ProgramHandle p(clCreateProgramWithSource(ctx, 1, &text, &len, &err));
    if (err != CL_SUCCESS) return cl_status(err, "clCreateProgramWithSource");
    err = clBuildProgram(p.get(), 1, &d, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::string log = build_log(p.get(), d);
        return Status(BC_ERR_DEVICE, "OpenCL: building the kernels for " + dev.name + " failed (" +
                                         cl_error_name(err) + ", options \"" + options +
                                         "\"); build log:\n" + log);
    }
    if (!path.empty()) {
        size_t size = 0;
        if (clGetProgramInfo(p.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) == CL_SUCCESS &&
            size > 0) {
            std::vector<unsigned char> b(size);
            unsigned char* ptr = b.data();
            if (clGetProgramInfo(p.get(), CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) == CL_SUCCESS) {
                write_file_atomic(path, b.data(), b.size());
                r.cache_path = path;
            }
        }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    *out = std::move(p);
    if (info) *info = r;
    return Status::ok();
}

double event_seconds(cl_event e) {
    cl_ulong a = 0, b = 0;
    if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr) != CL_SUCCESS ||
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr) != CL_SUCCESS)
        return 0;
    return b > a ? static_cast<double>(b - a) * 1e-9 : 0;
}

}  // namespace ocl
}  // namespace bc

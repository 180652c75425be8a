// What device selection (src/engine/engine_devices.cpp) learns of a machine's GPUs from each
// runtime's own list, before or beside opening them: the device's type and vendor, its PCI
// address (one piece of hardware that two runtimes both list, CUDA and NVIDIA's OpenCL, has
// one address) and its key in the tuning tables. Filled by the backends, read by the engine,
// which never calls a device runtime itself.
#pragma once

#include <string>
#include <vector>

#include "tuning/tuning.h"
#include "util/status.h"

namespace bc {

// A PCI function's address, domain:bus:device.function. -1: not reported.
struct PciAddress {
    int domain = -1;  // NVIDIA's OpenCL extension reports no domain on older drivers
    int bus = -1;
    int device = -1;
    int function = -1;
    bool known() const { return bus >= 0 && device >= 0 && function >= 0; }
};

enum class DeviceType { Gpu, Cpu, Accelerator, Other };

struct DeviceDesc {
    tuning::DeviceKind kind = tuning::DeviceKind::Cuda;  // Cuda or OpenCl
    int index = -1;                  // N of cuda:N or opencl:N
    DeviceType type = DeviceType::Gpu;  // OpenCL: CL_DEVICE_TYPE (a CPU bit wins over GPU); CUDA: Gpu
    std::string name;                // as the driver reports it
    std::string vendor;              // OpenCL: CL_DEVICE_VENDOR; CUDA: "NVIDIA"
    std::string platform;            // OpenCL: the platform's name; CUDA: "CUDA"
    unsigned vendor_id = 0;          // PCI vendor id where reported (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel); 0: unknown
    PciAddress pci;
    tuning::DeviceTraits traits;     // the device as the tuning tables key it (its backend's traits)
};

constexpr unsigned kPciVendorNvidia = 0x10de;

// CUDA device `ordinal` (cudaGetDeviceProperties, cudaDeviceGetPCIBusId); BC_ERR_NO_DEVICE
// when there is no such device or no CUDA in this build.
Status cuda_device_desc(int ordinal, DeviceDesc* out);

// Every OpenCL device, in opencl:N order (the same list as make_opencl_backend's index);
// BC_ERR_NO_DEVICE when no platform is installed or this build has no OpenCL.
Status opencl_device_descs(std::vector<DeviceDesc>* out);

}  // namespace bc

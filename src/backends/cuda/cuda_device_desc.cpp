// A CUDA device as device selection sees it (backends/device_desc.h): name, compute
// capability and PCI address, so that the engine can tell it apart from the same GPU listed
// by NVIDIA's OpenCL platform and find its entries in the tuning tables.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <utility>

#include "backends/device_desc.h"

namespace bc {

Status cuda_device_desc(int ordinal, DeviceDesc* out) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || ordinal < 0 || ordinal >= n) {
        (void)cudaGetLastError();
        return Status(BC_ERR_NO_DEVICE, "CUDA: no device cuda:" + std::to_string(ordinal));
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        return Status(BC_ERR_DEVICE, "CUDA: cudaGetDeviceProperties failed for cuda:" + std::to_string(ordinal));
    }
    DeviceDesc d;
    d.kind = tuning::DeviceKind::Cuda;
    d.index = ordinal;
    d.type = DeviceType::Gpu;
    d.name = p.name;
    d.vendor = "NVIDIA";
    d.platform = "CUDA";
    d.vendor_id = kPciVendorNvidia;
    // "0000:65:00.0" (domain:bus:device.function, hex); the properties' fields otherwise
    char bus[32] = {0};
    unsigned dom = 0, b = 0, dev = 0, fn = 0;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess &&
        std::sscanf(bus, "%x:%x:%x.%x", &dom, &b, &dev, &fn) == 4) {
        d.pci = PciAddress{int(dom), int(b), int(dev), int(fn)};
    } else {
        (void)cudaGetLastError();
        d.pci = PciAddress{p.pciDomainID, p.pciBusID, p.pciDeviceID, 0};
    }
    // as CudaBackend::init keys its tuning entries
    d.traits = tuning::DeviceTraits{tuning::DeviceKind::Cuda, p.name, p.major, p.minor, p.multiProcessorCount, true, true};
    *out = std::move(d);
    return Status::ok();
}

}  // namespace bc

// The OpenCL devices as device selection sees them (backends/device_desc.h): type, vendor
// and PCI address of each opencl:N, so that the engine can take GPUs, leave CPU devices to
// the CPU backend and recognise a GPU that CUDA already drives.
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <string>
#include <utility>

#include "backends/device_desc.h"
#include "backends/opencl/cl_util.h"

// NVIDIA's cl_nv_device_attribute_query: the bus, and the slot as device << 3 | function;
// the domain only on newer drivers (a failed query leaves it unknown).
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#endif
#ifndef CL_DEVICE_PCI_SLOT_ID_NV
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif
#ifndef CL_DEVICE_PCI_DOMAIN_ID_NV
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif

namespace bc {
namespace {

bool has_extension(const std::string& list, const char* ext) {
    const std::string e(ext);
    for (size_t pos = list.find(e); pos != std::string::npos; pos = list.find(e, pos + 1)) {
        const size_t end = pos + e.size();
        if ((pos == 0 || list[pos - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
    }
    return false;
}

std::string extensions(cl_device_id d) {
    size_t n = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, n, &s[0], nullptr) != CL_SUCCESS) return {};
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
}

bool uint_info(cl_device_id d, cl_device_info what, cl_uint* v) {
    return clGetDeviceInfo(d, what, sizeof *v, v, nullptr) == CL_SUCCESS;
}

// The device's PCI address where its platform says it (cl_khr_pci_bus_info, or NVIDIA's query).
PciAddress pci_address(cl_device_id d) {
    const std::string ext = extensions(d);
    PciAddress a;
    if (has_extension(ext, "cl_khr_pci_bus_info")) {
        cl_device_pci_bus_info_khr info{};
        if (clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof info, &info, nullptr) == CL_SUCCESS)
            return PciAddress{int(info.pci_domain), int(info.pci_bus), int(info.pci_device), int(info.pci_function)};
    }
    if (has_extension(ext, "cl_nv_device_attribute_query")) {
        cl_uint bus = 0, slot = 0, domain = 0;
        if (uint_info(d, CL_DEVICE_PCI_BUS_ID_NV, &bus) && uint_info(d, CL_DEVICE_PCI_SLOT_ID_NV, &slot)) {
            a.bus = int(bus & 0xff);
            a.device = int((slot >> 3) & 0xff);
            a.function = int(slot & 7);
            if (uint_info(d, CL_DEVICE_PCI_DOMAIN_ID_NV, &domain)) a.domain = int(domain);
        }
    }
    return a;
}

DeviceType device_type(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_CPU) return DeviceType::Cpu;
    if (t & CL_DEVICE_TYPE_GPU) return DeviceType::Gpu;
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return DeviceType::Accelerator;
    return DeviceType::Other;
}

}  // namespace

Status opencl_device_descs(std::vector<DeviceDesc>* out) {
    out->clear();
    std::vector<ocl::DeviceInfo> devs;
    BC_TRY(ocl::list_devices(&devs));
    for (size_t i = 0; i < devs.size(); ++i) {
        const ocl::DeviceInfo& info = devs[i];
        DeviceDesc d;
        d.kind = tuning::DeviceKind::OpenCl;
        d.index = int(i);
        d.type = device_type(info.type);
        d.name = info.name;
        d.vendor = info.vendor;
        d.platform = info.platform_name;
        cl_uint vid = 0;
        if (uint_info(info.device, CL_DEVICE_VENDOR_ID, &vid)) d.vendor_id = vid;
        d.pci = pci_address(info.device);
        // as the OpenCL backend keys its tuning entries (ocl::Backend::init)
        d.traits = tuning::DeviceTraits{tuning::DeviceKind::OpenCl, info.name, 0, 0, 0, info.is_gpu(), true};
        out->push_back(std::move(d));
    }
    return Status::ok();
}

}  // namespace bc

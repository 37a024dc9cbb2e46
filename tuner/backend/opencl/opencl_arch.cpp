#include "tuner/backend/opencl/opencl_arch.hpp"

#include <array>
#include <sstream>
#include <utility>
#include <vector>

namespace attn {
namespace {

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// NVIDIA GPUs by a distinctive part of their name, for OpenCL, which reports no compute capability.
constexpr std::array<std::pair<const char*, const char*>, 12> kNvidiaArchByName{{
    {"B200", "sm_100"},
    {"GB200", "sm_100"},
    {"H200", "sm_90"},
    {"H100", "sm_90"},
    {"GH200", "sm_90"},
    {"L40", "sm_89"},
    {"L4", "sm_89"},
    {"RTX 40", "sm_89"},
    {"A100", "sm_80"},
    {"A10", "sm_86"},
    {"RTX 30", "sm_86"},
    {"V100", "sm_70"},
}};

// "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512" -> "skylake-avx512":
// after HSTR comes [driver-]arch-vendor-os-env-cpu.
std::string pocl_cpu(const std::string& version) {
  const auto at = version.find("HSTR: ");
  if (at == std::string::npos) return "";
  std::vector<std::string> parts;
  std::stringstream in(version.substr(at + 6));
  for (std::string part; std::getline(in, part, '-');) parts.push_back(part);
  std::size_t first = 0;
  if (!parts.empty() && (parts[0] == "pthread" || parts[0] == "cpu" || parts[0] == "basic")) first = 1;
  first += 4;  // the target triple
  std::string cpu;
  for (std::size_t i = first; i < parts.size(); ++i) cpu += (cpu.empty() ? "" : "-") + parts[i];
  return cpu;
}

}  // namespace

std::string opencl_architecture_key(const DeviceInfo& device) {
  if (contains(device.vendor, "NVIDIA"))
    for (const auto& [part, arch] : kNvidiaArchByName)
      if (contains(device.name, part)) return arch;
  if (const std::string cpu = pocl_cpu(device.arch); !cpu.empty()) return cpu;
  return device.arch;
}

}  // namespace attn

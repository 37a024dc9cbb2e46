#include "tuner/export/device_keys.hpp"

#include <cctype>

#include "tuner/backend/registry.hpp"

namespace attn {

DeviceKeys device_keys(const DeviceInfo& device) { return {device.name, architecture_key(device), device.vendor}; }

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace attn

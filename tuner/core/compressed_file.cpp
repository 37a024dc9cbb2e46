#include "tuner/core/compressed_file.hpp"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "tuner/core/error.hpp"

namespace attn {

std::string read_maybe_gzipped_file(const std::filesystem::path& path) {
  // gzread reads a file that is not gzip data as it is.
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw Error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::string out;
  std::array<char, 1 << 16> buffer{};
  int n = 0;
  while ((n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) out.append(buffer.data(), n);
  int code = Z_OK;
  const std::string why = n < 0 ? gzerror(in, &code) : "";
  gzclose(in);
  if (n < 0) throw Error(fmt::format("cannot read {}: damaged gzip data ({})", path.string(), why));
  return out;
}

}  // namespace attn

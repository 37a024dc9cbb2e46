#include "tuner/core/sha256.hpp"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw Error("EVP_Digest(sha256) failed");
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string sha256_file(const std::filesystem::path& path) { return sha256_hex(read_text_file(path)); }

}  // namespace attn

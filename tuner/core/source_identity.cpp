#include "tuner/core/source_identity.hpp"

#include <utility>

#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {

SourceIdentity source_identity(const std::filesystem::path& source, const std::vector<std::filesystem::path>& include_dirs) {
  const std::string text = read_text_file(source);
  SourceIdentity identity;
  identity.files.push_back({source, sha256_hex(text)});
  for (SourceFile& f : included_files(text, source, include_dirs).files) identity.files.push_back(std::move(f));
  std::string digests;
  for (const SourceFile& f : identity.files) digests += f.sha256 + "\n";
  identity.sha256 = sha256_hex(digests);
  return identity;
}

}  // namespace attn

// A spec file's JSON with its "extends" resolved (docs/spec-format.md, "Reusing
// another spec"): the extended file's values, overridden by the spec's own, each
// value still naming the file it is written in.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tuner/spec/json_field.hpp"

namespace attn {

struct SpecFile {
  std::filesystem::path path;
  std::string sha256;  // of the file's bytes
};

struct SpecDocument {
  std::unique_ptr<JsonField::json> json;  // merged; stable address for JsonField
  std::shared_ptr<const FieldOrigins> origins;
  std::vector<SpecFile> files;  // the spec's file, then each file it extends, nearest first

  JsonField root() const { return JsonField(files.front().path.string(), *json, origins); }
  // The identity of everything the spec is made of: the file's sha256 when it extends
  // nothing, else the sha256 of every file's sha256 in order.
  std::string sha256() const;
};

// Throws SpecError naming the file and the field of a bad "extends", or a file that is not JSON.
SpecDocument read_spec_document(const std::filesystem::path& path);

}  // namespace attn

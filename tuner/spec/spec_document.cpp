#include "tuner/spec/spec_document.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/json_text.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;
using json = JsonField::json;

// Removes the origin of PATH and of everything under it.
void erase_under(FieldOrigins& origins, const std::string& path) {
  for (auto it = origins.lower_bound(path); it != origins.end() && it->first.starts_with(path);) {
    const std::string_view rest = std::string_view(it->first).substr(path.size());
    if (rest.empty() || rest.front() == '.' || rest.front() == '[') it = origins.erase(it);
    else ++it;
  }
}

// Every value a file writes names that file, down to each kernel's fields: the
// granularity at which an extending spec replaces values.
FieldOrigins own_origins(const std::string& file, const json& doc) {
  FieldOrigins origins;
  for (const auto& [key, value] : doc.items()) {
    origins[key] = {file, key};
    if (key != "kernels" || !value.is_object()) continue;
    for (const auto& [name, block] : value.items()) {
      const std::string k = "kernels." + name;
      origins[k] = {file, k};
      if (!block.is_object()) continue;
      for (const auto& [field, _] : block.items()) origins[k + "." + field] = {file, k + "." + field};
    }
  }
  return origins;
}

json parse_file(const fs::path& path, std::string& sha256) {
  const std::string file = path.string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw SpecError(file, "", ec ? "spec file not found: " + ec.message() : "spec file not found");
  const std::string text = read_text_file(path);
  sha256 = sha256_hex(text);
  try {
    return parse_json_text<json>(text, file);
  } catch (const JsonTextError& e) {  // "FILE: message": a SpecError names the file itself
    const std::string what = e.what();
    throw SpecError(file, "", what.starts_with(file + ": ") ? what.substr(file.size() + 2) : what);
  }
}

struct Resolved {
  json doc;
  FieldOrigins origins;
  std::vector<SpecFile> files;
};

// The kernels of OVERRIDE laid over BASE's: a named block replaces the base's fields it writes,
// null removes a base kernel, "extends": "other" starts from another base kernel, and a new name adds one.
// The kernels OVERRIDE names come first, in its order, then the base's others.
void merge_kernels(const JsonField& kernels, const json& base_doc, const FieldOrigins& base_origins, Resolved& out) {
  const json empty = json::object();
  const json& base = base_doc.contains("kernels") && base_doc["kernels"].is_object() ? base_doc["kernels"] : empty;
  json& merged = out.doc["kernels"];
  if (!merged.is_object()) merged = json::object();
  out.origins["kernels"] = {kernels.file(), "kernels"};

  for (const auto& [name, block] : kernels.members()) {
    const std::string at = "kernels." + name;
    if (block.value().is_null()) {
      if (!base.contains(name)) block.fail("no kernel of this name in the extended file to remove");
      merged.erase(name);
      erase_under(out.origins, at);
      continue;
    }
    if (!block.value().is_object()) block.fail("expected a kernel (an object), or null to remove the extended file's");
    std::string from = base.contains(name) ? name : "";
    if (auto ext = block.optional_member("extends")) {
      from = ext->string();
      if (!base.contains(from)) ext->fail(fmt::format("no kernel named '{}' in the extended file", from));
    }
    json kernel = from.empty() ? json::object() : base[from];
    erase_under(out.origins, at);
    if (!from.empty()) {
      const std::string base_at = "kernels." + from;
      for (auto it = base_origins.lower_bound(base_at + ".");
           it != base_origins.end() && it->first.starts_with(base_at + "."); ++it)
        out.origins[at + it->first.substr(base_at.size())] = it->second;
    }
    for (const auto& [field, value] : block.members()) {
      if (field == "extends") continue;
      kernel[field] = value.value();
      erase_under(out.origins, at + "." + field);
      out.origins[at + "." + field] = {block.file(), at + "." + field};
    }
    out.origins[at] = {block.file(), at};
    merged[name] = std::move(kernel);
  }
  json ordered = json::object();
  for (const auto& [name, block] : kernels.members())
    if (merged.contains(name)) ordered[name] = merged[name];
  for (const auto& [name, kernel] : merged.items())
    if (!ordered.contains(name)) ordered[name] = kernel;
  merged = std::move(ordered);
}

Resolved resolve(const fs::path& path, std::vector<fs::path>& chain) {
  const std::string file = path.string();
  Resolved out;
  std::string sha256;
  json doc = parse_file(path, sha256);
  out.files.push_back({path, sha256});
  const JsonField root(file, "", doc);
  if (!doc.is_object() || !doc.contains("extends")) {
    out.origins = own_origins(file, doc);
    out.doc = std::move(doc);
    return out;
  }

  const JsonField ext = root.member("extends");
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const fs::path base_path = (dir / ext.string()).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(base_path, ec))
    ext.fail(fmt::format("file not found: {} (resolved to {}){}", ext.string(), base_path.string(),
                         ec ? ": " + ec.message() : ""));
  chain.push_back(fs::weakly_canonical(path, ec));
  if (std::find(chain.begin(), chain.end(), fs::weakly_canonical(base_path, ec)) != chain.end())
    ext.fail(fmt::format("{} extends this file again: a spec cannot extend itself", base_path.string()));
  Resolved base = resolve(base_path, chain);

  out.doc = base.doc;
  out.origins = base.origins;
  out.files.insert(out.files.end(), base.files.begin(), base.files.end());
  for (const auto& [key, value] : root.members()) {
    if (key == "extends") continue;
    if (key == "kernels") {
      merge_kernels(value, base.doc, base.origins, out);
      continue;
    }
    out.doc[key] = value.value();
    erase_under(out.origins, key);
    out.origins[key] = {file, key};
  }
  return out;
}

}  // namespace

std::string SpecDocument::sha256() const {
  if (files.size() == 1) return files.front().sha256;
  std::string all;
  for (const auto& f : files) all += f.sha256 + "\n";
  return sha256_hex(all);
}

SpecDocument read_spec_document(const fs::path& path) {
  std::vector<fs::path> chain;
  Resolved r = resolve(path, chain);
  SpecDocument d;
  d.json = std::make_unique<json>(std::move(r.doc));
  d.origins = std::make_shared<const FieldOrigins>(std::move(r.origins));
  d.files = std::move(r.files);
  return d;
}

}  // namespace attn

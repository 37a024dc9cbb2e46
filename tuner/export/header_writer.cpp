#include "tuner/export/header_writer.hpp"

#include <algorithm>
#include <climits>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/core/version.hpp"
#include "tuner/export/c_source.hpp"
#include "tuner/export/provenance.hpp"

namespace attn {
namespace {

const char* kCommon = R"(#if defined(__CUDACC__)
#define ATTN_TUNED_HD __host__ __device__
#else
#define ATTN_TUNED_HD
#endif

namespace attn_tuned {

// What a lookup is asked for: the device's name, architecture and vendor.
struct device {
  const char* name;
  const char* arch;
  const char* vendor;
};

// The fallback chain, most specific first; after by_vendor comes the default.
enum device_level { by_name = 0, by_arch = 1, by_vendor = 2 };

namespace detail {

ATTN_TUNED_HD constexpr bool same(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return false;
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// k with 2^k <= v < 2^(k+1); -1 for v < 1.
ATTN_TUNED_HD constexpr int log2_floor(long long v) {
  int k = -1;
  while (v > 0) {
    v /= 2;
    ++k;
  }
  return k;
}

// How many powers of two V is away from the range that starts at LO.
ATTN_TUNED_HD constexpr int pow2_distance(long long v, long long lo) {
  const int d = log2_floor(v) - log2_floor(lo);
  return d < 0 ? -d : d;
}

}  // namespace detail
)";

const char* c_type(FieldType type) {
  switch (type) {
    case FieldType::integer: return "long long";
    case FieldType::number: return "double";
    case FieldType::text: return "const char*";
  }
  return "";
}

std::string exact_literal(const BucketField& field, const nlohmann::json& value) {
  if (field.type == FieldType::text) return c_string_literal(value.get<std::string>());
  if (field.type == FieldType::number) return fmt::format("{}", value.get<double>());
  return fmt::format("{}", value.get<long long>());
}

// A parameter's C type and literals: int, double ("1.0"), bool, or an identifier as a string ("float").
const char* param_c_type(const TunedKernel& kernel, const std::string& name) {
  switch (kernel.param_values.at(name).begin()->kind()) {
    case ParamValue::Kind::integer: return "int";
    case ParamValue::Kind::real: return "double";
    case ParamValue::Kind::boolean: return "bool";
    case ParamValue::Kind::identifier: return "const char*";
  }
  return "int";
}

std::string param_literal(const TunedKernel& kernel, const std::string& name, const ParamValue& value) {
  if (value.kind() == ParamValue::Kind::identifier) return c_string_literal(value.name());
  if (value.kind() == ParamValue::Kind::integer && (value.integer() < INT_MIN || value.integer() > INT_MAX))
    throw UsageError(fmt::format("{} / {}: {}={} does not fit an int", kernel.spec_name, kernel.kernel, name, value));
  return value.text();
}

// "p.BLOCK_M == 64"; identifiers compare as strings.
std::string param_equals(const TunedKernel& kernel, const std::string& name, const ParamValue& value) {
  if (value.kind() == ParamValue::Kind::identifier)
    return fmt::format("detail::same(p.{}, {})", name, param_literal(kernel, name, value));
  return fmt::format("p.{} == {}", name, param_literal(kernel, name, value));
}

std::string params_initializer(const TunedKernel& kernel, const Config& config) {
  std::vector<std::string> values;
  for (const auto& [name, value] : config) values.push_back(param_literal(kernel, name, value));
  return fmt::format("{{{}}}", fmt::join(values, ", "));
}

// The shape struct each kernel's lookup takes: "<operation>_shape", shared by
// the kernels of an operation, unless a kernel's fields differ from the first's.
std::map<const TunedKernel*, std::string> shape_struct_names(const TuningTables& tables) {
  std::map<std::string, const std::vector<BucketField>*> first_scheme;
  std::map<const TunedKernel*, std::string> names;
  for (const auto& k : tables.kernels) {
    const std::string shared = c_identifier(k.operation + "_shape");
    auto [it, fresh] = first_scheme.emplace(shared, &k.scheme);
    const bool same_fields = fresh || [&] {
      if (it->second->size() != k.scheme.size()) return false;
      for (std::size_t i = 0; i < k.scheme.size(); ++i)
        if ((*it->second)[i].name != k.scheme[i].name || (*it->second)[i].type != k.scheme[i].type) return false;
      return true;
    }();
    names[&k] = same_fields ? shared : c_identifier(k.spec_name + "_" + k.kernel + "_shape");
  }
  return names;
}

std::string shape_struct(const std::string& name, const TunedKernel& kernel) {
  std::string s = fmt::format("// A problem shape, as the lookups of {} take it.\nstruct {} {{\n", kernel.operation, name);
  for (const auto& f : kernel.scheme) s += fmt::format("  {} {};\n", c_type(f.type), c_identifier(f.name));
  return s + "};\n";
}

std::string field_list(const std::vector<BucketField>& scheme, BucketRule rule) {
  std::vector<std::string> names;
  for (const auto& f : scheme)
    if (f.rule == rule) names.push_back(f.name);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

std::string row_comment(const TableRow& row) {
  std::string from = fmt::format("{}", fmt::join(row.chosen_over, "; "));
  if (from.size() > 110) from.replace(107, std::string::npos, "...");
  if (row.choice.groups > 1)
    from += fmt::format(" ({:.2f}x their best, ranked in {} of {})", row.choice.geomean_relative, row.choice.ranked_in,
                        row.choice.groups);
  return "// " + from;
}

std::string kernel_block(const TunedKernel& k, const std::string& shape_name) {
  const std::string id = c_identifier(k.spec_name + "_" + k.kernel);
  std::string s;
  s += "\n// " + std::string(76, '-') + "\n";
  s += fmt::format(
      "// {} / {}: {} rows. Default {}: ranked in {} of the {} device-and-shape results,\n"
      "// with a geometric-mean time {:.3f}x the best of each.\n",
      k.spec_name, k.kernel, k.rows.size(), k.fallback.key, k.fallback.ranked_in, k.fallback.groups,
      k.fallback.geomean_relative);
  s += fmt::format("// Shapes match rows on {} exactly, and on the power-of-two ranges of {}.\n",
                   field_list(k.scheme, BucketRule::exact), field_list(k.scheme, BucketRule::pow2_range));

  s += fmt::format("struct {}_params {{\n", id);
  for (const auto& name : k.param_names) s += fmt::format("  {} {};\n", param_c_type(k, name), name);
  s += "};\n\n";

  s += fmt::format("struct {}_row {{\n  device_level level;\n  const char* key;  // device name, architecture or vendor\n",
                   id);
  for (const auto& f : k.scheme) {
    const std::string name = c_identifier(f.name);
    if (f.rule == BucketRule::exact) s += fmt::format("  {} {};\n", c_type(f.type), name);
    else s += fmt::format("  long long {0}_lo, {0}_hi;  // {0} in [{0}_lo, {0}_hi)\n", name);
  }
  s += fmt::format("  {}_params params;\n}};\n\n", id);

  s += fmt::format("constexpr int {}_row_count = {};\n\n", id, k.rows.size());
  s += fmt::format("ATTN_TUNED_HD constexpr {0}_row {0}_rows(int i) {{\n  constexpr {0}_row rows[{0}_row_count] = {{\n", id);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header = {"// level", "key"};
  for (const auto& f : k.scheme) header.push_back(f.rule == BucketRule::exact ? f.name : f.name + " range");
  header.push_back(fmt::format("{{{}}}", fmt::join(k.param_names, ", ")));
  cells.push_back(header);
  for (const auto& row : k.rows) {
    std::vector<std::string> c = {fmt::format("{{by_{}", level_name(row.level)), c_string_literal(row.key)};
    for (std::size_t i = 0; i < k.scheme.size(); ++i) {
      const BucketValue& v = row.bucket.values[i];
      c.push_back(k.scheme[i].rule == BucketRule::exact ? exact_literal(k.scheme[i], v.exact)
                                                        : fmt::format("{}, {}", v.lo, v.hi));
    }
    c.push_back(params_initializer(k, row.choice.config) + "},");
    cells.push_back(std::move(c));
  }
  const auto lines = aligned_columns(cells, ", ");
  s += "      " + lines[0] + "\n";
  for (std::size_t i = 1; i < lines.size(); ++i) s += "      " + lines[i] + "  " + row_comment(k.rows[i - 1]) + "\n";
  s += "  };\n  return rows[i];\n}\n\n";

  s += fmt::format("ATTN_TUNED_HD constexpr {0}_params {0}_default() {{ return {1}; }}\n\n", id,
                   params_initializer(k, k.fallback.config));

  s += fmt::format("ATTN_TUNED_HD constexpr {0}_params {0}_lookup(device dev, {1} shape) {{\n", id, shape_name);
  s += "  const char* const keys[3] = {dev.name, dev.arch, dev.vendor};\n"
       "  for (int level = by_name; level <= by_vendor; ++level) {\n"
       "    int best = -1, best_distance = 0;\n";
  s += fmt::format("    for (int i = 0; i < {}_row_count; ++i) {{\n      const {}_row r = {}_rows(i);\n", id, id, id);
  s += "      if (r.level != level || !detail::same(r.key, keys[level])) continue;\n";
  std::vector<std::string> mismatches, distances;
  for (const auto& f : k.scheme) {
    const std::string n = c_identifier(f.name);
    if (f.rule == BucketRule::pow2_range) distances.push_back(fmt::format("detail::pow2_distance(shape.{0}, r.{0}_lo)", n));
    else if (f.type == FieldType::text) mismatches.push_back(fmt::format("!detail::same(r.{0}, shape.{0})", n));
    else mismatches.push_back(fmt::format("r.{0} != shape.{0}", n));
  }
  if (!mismatches.empty()) s += fmt::format("      if ({}) continue;\n", fmt::join(mismatches, " || "));
  s += fmt::format("      const int distance = {};\n",
                   distances.empty() ? "0" : fmt::format("{}", fmt::join(distances, " + ")));
  s += "      if (best < 0 || distance < best_distance) {\n        best = i;\n        best_distance = distance;\n      }\n"
       "    }\n";
  s += fmt::format("    if (best >= 0) return {}_rows(best).params;\n  }}\n  return {}_default();\n}}\n\n", id, id);

  std::vector<std::string> allowed;
  for (const auto& name : k.param_names) {
    std::vector<std::string> alternatives;
    for (const ParamValue& v : k.param_values.at(name)) alternatives.push_back(param_equals(k, name, v));
    allowed.push_back(fmt::format("({})", fmt::join(alternatives, " || ")));
  }
  s += "// Whether every parameter holds a value the sweeps tried.\n";
  s += fmt::format("ATTN_TUNED_HD constexpr bool {0}_allowed({0}_params p) {{\n  return {1};\n}}\n\n", id,
                   fmt::join(allowed, " &&\n         "));
  s += fmt::format(
      "ATTN_TUNED_HD constexpr bool {0}_table_is_valid() {{\n"
      "  for (int i = 0; i < {0}_row_count; ++i)\n"
      "    if (!{0}_allowed({0}_rows(i).params)) return false;\n"
      "  return {0}_allowed({0}_default());\n}}\n",
      id);
  s += fmt::format("static_assert({0}_row_count > 0, \"{1} / {2}: an empty table\");\n", id, k.spec_name, k.kernel);
  s += fmt::format(
      "static_assert({0}_table_is_valid(), \"{1} / {2}: a value the sweeps never tried: was this file edited?\");\n", id,
      k.spec_name, k.kernel);
  return s;
}

std::string usage_example(const TunedKernel& k) {
  if (k.rows.empty()) return "";
  const TableRow& row = k.rows.front();
  std::vector<std::string> shape;
  for (std::size_t i = 0; i < k.scheme.size(); ++i) {
    const BucketValue& v = row.bucket.values[i];
    shape.push_back(k.scheme[i].rule == BucketRule::exact ? exact_literal(k.scheme[i], v.exact) : fmt::format("{}", v.lo));
  }
  return fmt::format(
      "//   constexpr auto p = attn_tuned::{}_lookup({{\"<device name>\", \"<arch>\", \"<vendor>\"}}, {{{}}});\n",
      c_identifier(k.spec_name + "_" + k.kernel), fmt::join(shape, ", "));
}

}  // namespace

std::string write_tuned_header(const TuningTables& tables, const std::vector<Leaderboard>& leaderboards,
                               const HeaderOptions& options) {
  std::string s;
  s += "// Generated by attn-tune export: do not edit. Regenerate it with\n";
  s += fmt::format("//   {}\n", options.command);
  s += fmt::format("// (attn-tune {}, commit {}) from these leaderboards:\n", kVersion, kGitCommit);
  for (const auto& lb : leaderboards)
    for (const auto& line : provenance_lines(lb)) s += "//   " + line + "\n";
  s += "//\n"
       "// Per kernel K of spec S (C name S_K): struct S_K_params, the tuned parameters, and\n"
       "// S_K_lookup(device, shape), which takes the table's rows for the device's name, else\n"
       "// for its architecture, else for its vendor, else S_K_default(); within a level, the rows\n"
       "// whose exact shape fields equal the shape's, and of those the one whose power-of-two\n"
       "// ranges hold it, else the nearest in powers of two. Only ranked (status ok) results\n"
       "// count. The default ranked on the most (device, shape) results, and of those has the\n"
       "// best geometric mean of (its time / the best time) over them.\n"
       "// device.arch: \"sm_90\" for NVIDIA GPUs (CUDA or OpenCL), the CPU for PoCL\n"
       "// (\"skylake-avx512\"), else CL_DEVICE_VERSION; device.vendor: the driver's vendor string.\n"
       "// Plain C++17 without standard headers: NVRTC compiles it, and under CUDA the functions\n"
       "// are __host__ __device__. Example:\n";
  if (!tables.kernels.empty()) s += usage_example(tables.kernels.front());
  for (const auto& note : tables.notes) s += "// Note: " + note + "\n";
  s += fmt::format("\n#ifndef {0}\n#define {0}\n\n", options.guard);
  s += kCommon;

  const auto shape_names = shape_struct_names(tables);
  std::vector<std::string> declared;
  for (const auto& k : tables.kernels) {
    const std::string& name = shape_names.at(&k);
    if (std::find(declared.begin(), declared.end(), name) != declared.end()) continue;
    declared.push_back(name);
    s += "\n" + shape_struct(name, k);
  }
  for (const auto& k : tables.kernels) s += kernel_block(k, shape_names.at(&k));
  s += fmt::format("\n}}  // namespace attn_tuned\n\n#endif  // {}\n", options.guard);
  return s;
}

}  // namespace attn

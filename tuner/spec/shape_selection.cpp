#include "tuner/spec/shape_selection.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {
namespace {

// KEY=TEXT for a numeric field: integers as 64-bit without wrapping, then within what kernels take.
nlohmann::json parse_shape_value(const ShapeField& f, const std::string& text) {
  const char* end = text.data() + text.size();
  if (f.type == ShapeField::Type::Integer) {
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec == std::errc::result_out_of_range)
      throw UsageError(fmt::format("--shape: {}={} is out of range (at most {})", f.name, text, kMaxShapeInteger));
    if (ec != std::errc() || ptr != end) throw UsageError(fmt::format("--shape: {}={}: expected an integer", f.name, text));
    if (const std::string problem = shape_integer_problem(value); !problem.empty())
      throw UsageError(fmt::format("--shape: {}={}: {}", f.name, text, problem));
    return value;
  }
  if (f.type == ShapeField::Type::IntegerList) {  // "1:17:300": commas separate the fields
    nlohmann::json list = nlohmann::json::array();
    std::stringstream in(text);
    ShapeField element = f;
    element.type = ShapeField::Type::Integer;
    for (std::string item; std::getline(in, item, ':');) list.push_back(parse_shape_value(element, item));
    return list;
  }
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value))
    throw UsageError(fmt::format("--shape: {}={}: expected a number", f.name, text));
  return value;
}

}  // namespace

std::string shape_integer_problem(long long value) {
  if (value < kMinShapeInteger || value > kMaxShapeInteger)
    return fmt::format("out of range: shape integers reach kernels as 32-bit int ({} to {})", kMinShapeInteger,
                       kMaxShapeInteger);
  return {};
}

void select_shapes(Spec& spec, const std::string& selection) {
  if (selection.empty()) return;
  const Operation& op = spec_operation(spec);
  std::vector<std::string> names;
  std::vector<std::pair<std::string, std::string>> overrides;
  std::stringstream in(selection);
  for (std::string token; std::getline(in, token, ',');) {
    if (token.empty()) continue;
    const auto eq = token.find('=');
    if (eq == std::string::npos) names.push_back(token);
    else overrides.emplace_back(token.substr(0, eq), token.substr(eq + 1));
  }

  std::vector<Shape> kept;
  for (const auto& name : names) kept.push_back(spec.shape(name));  // throws for an unknown name
  if (names.empty()) kept = spec.shapes;

  if (!overrides.empty()) {
    const auto fields = op.shape_fields();
    std::string suffix;
    for (const auto& [k, v] : overrides) suffix += fmt::format("{}{}={}", suffix.empty() ? "" : ",", k, v);
    for (auto& shape : kept) {
      for (const auto& [key, text] : overrides) {
        const auto f = std::find_if(fields.begin(), fields.end(), [&](const ShapeField& x) { return x.name == key; });
        if (f == fields.end()) {
          std::vector<std::string> known;
          for (const auto& x : fields) known.push_back(x.name);
          throw UsageError(fmt::format("--shape: '{}' is not a field of operation '{}' (fields: {})", key, op.name(),
                                       fmt::join(known, ", ")));
        }
        if (f->type == ShapeField::Type::Choice) {
          if (std::find(f->choices.begin(), f->choices.end(), text) == f->choices.end())
            throw UsageError(fmt::format("--shape: {}={} is not one of: {}", key, text, fmt::join(f->choices, ", ")));
          shape.fields[key] = text;
        } else {
          shape.fields[key] = parse_shape_value(*f, text);
        }
      }
      if (const std::string problem = op.check_shape(shape.fields); !problem.empty())
        throw UsageError(fmt::format("--shape: shape '{}' with {}: {}", shape.name, suffix, problem));
      shape.name = fmt::format("{}[{}]", shape.name, suffix);
    }
  }

  for (auto& kernel : spec.kernels) {
    std::vector<std::string> shapes;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const std::string original = names.empty() ? spec.shapes[i].name : names[i];
      if (std::find(kernel.shapes.begin(), kernel.shapes.end(), original) != kernel.shapes.end())
        shapes.push_back(kept[i].name);
    }
    kernel.shapes = std::move(shapes);
  }
  spec.shapes = std::move(kept);
}

}  // namespace attn

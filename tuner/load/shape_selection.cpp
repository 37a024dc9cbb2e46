#include "tuner/load/shape_selection.hpp"

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

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

// Splits at the commas outside brackets: "a[B=3,Nq=9],b,Nq=5" -> "a[B=3,Nq=9]", "b", "Nq=5".
std::vector<std::string> selection_tokens(const std::string& selection) {
  std::vector<std::string> tokens(1);
  int depth = 0;
  for (char c : selection) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ',' && depth == 0) tokens.emplace_back();
    else tokens.back() += c;
  }
  if (depth != 0) throw UsageError(fmt::format("--shape: '{}' opens a '[' it does not close", selection));
  std::erase_if(tokens, [](const std::string& t) { return t.empty(); });
  return tokens;
}

Overrides parse_overrides(const std::string& list) {
  Overrides out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(fmt::format("--shape: '{}' is no FIELD=VALUE", item));
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

// SHAPE with OVERRIDES applied and checked, named "name[K=V,...]" (the label a leaderboard then holds).
void apply_overrides(const Operation& op, Shape& shape, const Overrides& overrides) {
  if (overrides.empty()) return;
  const auto fields = op.shape_fields();
  std::string suffix;
  for (const auto& [k, v] : overrides) suffix += fmt::format("{}{}={}", suffix.empty() ? "" : ",", k, v);
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
  // A left-out field that copies an overridden one follows it (Hq=4 on a shape without Hkv: Hkv=4 too), in
  // field order, so that a copy of a copy follows as well.
  const auto overridden = [&](const std::string& name) {
    return std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == name; });
  };
  std::vector<std::string> moved;
  for (const auto& f : fields) {
    const auto from = shape.copied_from.find(f.name);
    if (from == shape.copied_from.end() || overridden(f.name)) continue;
    if (overridden(from->second) || std::find(moved.begin(), moved.end(), from->second) != moved.end()) {
      shape.fields[f.name] = shape.fields.at(from->second);
      moved.push_back(f.name);
    }
  }
  if (const std::string problem = op.check_shape(shape.fields); !problem.empty())
    throw UsageError(fmt::format("--shape: shape '{}' with {}: {}", shape.name, suffix, problem));
  shape.name = fmt::format("{}[{}]", shape.name, suffix);
}

}  // namespace

void select_shapes(Spec& spec, const std::string& selection) {
  if (selection.empty()) return;
  const Operation& op = spec_operation(spec);
  // Each kept shape: the spec's shape it starts from and its own overrides ("name[K=V,...]", a leaderboard's label).
  std::vector<std::pair<std::string, Overrides>> picked;
  Overrides global;  // K=V outside brackets: for every kept shape
  for (const std::string& token : selection_tokens(selection)) {
    const auto open = token.find('[');
    if (open != std::string::npos) {
      if (token.back() != ']' || open == 0)
        throw UsageError(fmt::format("--shape: '{}' is neither a shape name, NAME[K=V,...] nor K=V", token));
      picked.emplace_back(token.substr(0, open), parse_overrides(token.substr(open + 1, token.size() - open - 2)));
    } else if (token.find('=') != std::string::npos) {
      for (auto& o : parse_overrides(token)) global.push_back(std::move(o));
    } else {
      picked.emplace_back(token, Overrides{});
    }
  }
  if (picked.empty())
    for (const auto& shape : spec.shapes) picked.emplace_back(shape.name, Overrides{});

  std::vector<Shape> kept;
  for (auto& [name, own] : picked) {
    Shape shape = spec.shape(name);  // throws for an unknown name
    Overrides all = own;
    all.insert(all.end(), global.begin(), global.end());
    apply_overrides(op, shape, all);
    kept.push_back(std::move(shape));
  }

  for (auto& kernel : spec.kernels) {
    std::vector<std::string> shapes;
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (std::find(kernel.shapes.begin(), kernel.shapes.end(), picked[i].first) != kernel.shapes.end())
        shapes.push_back(kept[i].name);
    kernel.shapes = std::move(shapes);
  }
  spec.shapes = std::move(kept);
}

}  // namespace attn

#include "tuner/spec/json_field.hpp"

#include <climits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/core/error.hpp"
#include "tuner/core/identifier.hpp"

namespace attn {
namespace {

std::string type_name(const JsonField::json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  return std::string(v.type_name() == std::string("object") ? "an object" : (v.is_array() ? "an array" : v.type_name()));
}

}  // namespace

void JsonField::fail(const std::string& message) const { throw SpecError(file_, path_, message); }

JsonField JsonField::child(std::string_view key, const json& value) const {
  const bool index = !key.empty() && key.front() == '[';
  auto join = [&](const std::string& path) {
    return index ? path + std::string(key) : path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  };
  std::string merged = join(merged_path_);
  if (origins_) {
    if (const auto it = origins_->find(merged); it != origins_->end())
      return JsonField(it->second.file, it->second.path, std::move(merged), value, origins_);
  }
  return JsonField(file_, join(path_), std::move(merged), value, origins_);
}

void JsonField::expect_object(std::initializer_list<std::string_view> allowed) const {
  if (!value_->is_object()) fail(fmt::format("expected an object, got {}", type_name(*value_)));
  for (const auto& [key, _] : value_->items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) child(key, *value_).fail(fmt::format("unknown key (allowed: {})", fmt::join(allowed, ", ")));
  }
}

bool JsonField::has(std::string_view key) const { return value_->is_object() && value_->contains(key); }

JsonField JsonField::member(std::string_view key) const {
  if (!has(key)) child(key, *value_).fail("missing required field");
  return child(key, value_->at(std::string(key)));
}

std::optional<JsonField> JsonField::optional_member(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return member(key);
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  if (!value_->is_object()) fail(fmt::format("expected an object, got {}", type_name(*value_)));
  std::vector<std::pair<std::string, JsonField>> out;
  for (const auto& [key, v] : value_->items()) out.emplace_back(key, child(key, v));
  return out;
}

std::vector<JsonField> JsonField::elements() const {
  if (!value_->is_array()) fail(fmt::format("expected an array, got {}", type_name(*value_)));
  std::vector<JsonField> out;
  for (std::size_t i = 0; i < value_->size(); ++i) out.push_back(child(fmt::format("[{}]", i), (*value_)[i]));
  return out;
}

long long JsonField::integer() const {
  if (!value_->is_number_integer()) fail(fmt::format("expected an integer, got {}", type_name(*value_)));
  if (value_->is_number_unsigned() && value_->get<unsigned long long>() > static_cast<unsigned long long>(LLONG_MAX))
    fail("integer out of range (more than 64 bits)");
  return value_->get<long long>();
}

double JsonField::number() const {
  if (!value_->is_number()) fail(fmt::format("expected a number, got {}", type_name(*value_)));
  return value_->get<double>();
}

std::string JsonField::string() const {
  if (!value_->is_string()) fail(fmt::format("expected a string, got {}", type_name(*value_)));
  return value_->get<std::string>();
}

std::string JsonField::identifier(std::string_view what) const {
  std::string s = string();
  if (!is_identifier(s))
    fail(fmt::format("'{}' is not a valid {} (letters, digits and '_', not starting with a digit)", s, what));
  return s;
}

std::string JsonField::expression_text() const {
  if (value_->is_number_integer()) return std::to_string(value_->get<long long>());
  if (!value_->is_string()) fail(fmt::format("expected an expression (a string or an integer), got {}", type_name(*value_)));
  return value_->get<std::string>();
}

}  // namespace attn

#include "tuner/spec/param_value.hpp"

#include <cmath>
#include <stdexcept>

#include "tuner/core/identifier.hpp"

namespace attn {

ParamValue ParamValue::real(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("a real parameter value must be finite");
  ParamValue v;
  v.kind_ = Kind::real;
  v.real_ = value;
  return v;
}

ParamValue ParamValue::boolean(bool value) {
  ParamValue v;
  v.kind_ = Kind::boolean;
  v.integer_ = value ? 1 : 0;
  return v;
}

ParamValue ParamValue::identifier(std::string name) {
  if (!is_identifier(name)) throw std::invalid_argument(fmt::format("'{}' is not an identifier", name));
  ParamValue v;
  v.kind_ = Kind::identifier;
  v.name_ = std::move(name);
  return v;
}

ParamValue ParamValue::from_json(const nlohmann::json& value) {
  // 2^63 and above parse as unsigned: taken as long long they would wrap to negative values.
  if (value.is_number_unsigned() && value.get<unsigned long long>() > 9223372036854775807ULL)
    throw std::invalid_argument(fmt::format("{} is out of the 64-bit integer range", value.dump()));
  if (value.is_number_integer()) return ParamValue(value.get<long long>());
  if (value.is_number_float()) return real(value.get<double>());
  if (value.is_boolean()) return boolean(value.get<bool>());
  if (value.is_string()) return identifier(value.get<std::string>());
  throw std::invalid_argument("expected an integer, a real, true/false or an identifier");
}

nlohmann::json ParamValue::to_json() const {
  switch (kind_) {
    case Kind::integer: return integer_;
    case Kind::real: return real_;
    case Kind::boolean: return integer_ != 0;
    case Kind::identifier: return name_;
  }
  return nullptr;
}

ParamValue ParamValue::parse(Kind kind, const std::string& text) {
  std::size_t used = 0;
  switch (kind) {
    case Kind::integer: {
      const long long v = std::stoll(text, &used);
      if (used != text.size()) break;
      return ParamValue(v);
    }
    case Kind::real: {
      const double v = std::stod(text, &used);
      if (used != text.size()) break;
      return real(v);
    }
    case Kind::boolean:
      if (text == "true" || text == "1") return boolean(true);
      if (text == "false" || text == "0") return boolean(false);
      break;
    case Kind::identifier: return identifier(text);
  }
  throw std::invalid_argument(fmt::format("'{}' is not a {} value", text, kind_name(kind)));
}

std::string ParamValue::text() const {
  switch (kind_) {
    case Kind::integer: return fmt::format("{}", integer_);
    case Kind::real: {
      // The shortest text that reads back to the same double, always with a
      // point or an exponent so that it stays a real ("1.0", not "1").
      std::string s = fmt::format("{}", real_);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::boolean: return integer_ ? "true" : "false";
    case Kind::identifier: return name_;
  }
  return {};
}

std::string ParamValue::define_text() const { return kind_ == Kind::boolean ? (integer_ ? "1" : "0") : text(); }

std::partial_ordering operator<=>(const ParamValue& a, const ParamValue& b) {
  if (a.kind_ != b.kind_) return a.kind_ <=> b.kind_;
  switch (a.kind_) {
    case ParamValue::Kind::integer:
    case ParamValue::Kind::boolean: return a.integer_ <=> b.integer_;
    case ParamValue::Kind::real: return a.real_ <=> b.real_;
    case ParamValue::Kind::identifier: return a.name_ <=> b.name_;
  }
  return std::partial_ordering::equivalent;
}

const char* kind_name(ParamValue::Kind kind) {
  switch (kind) {
    case ParamValue::Kind::integer: return "integer";
    case ParamValue::Kind::real: return "real";
    case ParamValue::Kind::boolean: return "boolean";
    case ParamValue::Kind::identifier: return "identifier";
  }
  return "";
}

}  // namespace attn

// One value of a tuning parameter: an integer (most parameters), a real, a
// boolean or an identifier (a type or a name passed verbatim: "float", "half").
// Integers convert implicitly, so integer-only configurations read and print
// exactly as before.
#pragma once

#include <compare>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace attn {

class ParamValue {
 public:
  enum class Kind { integer, real, boolean, identifier };

  ParamValue() = default;
  ParamValue(long long value) : integer_(value) {}  // NOLINT: implicit on purpose
  ParamValue(int value) : integer_(value) {}        // NOLINT
  static ParamValue real(double value);
  static ParamValue boolean(bool value);
  static ParamValue identifier(std::string name);
  // A JSON integer, real, boolean or string, as a spec, a journal or a leaderboard holds it.
  // Throws std::invalid_argument for anything else (the spec loader names the field).
  static ParamValue from_json(const nlohmann::json& value);
  nlohmann::json to_json() const;
  // TEXT read as a value of KIND ("0.5", "true", "half"); throws std::invalid_argument.
  static ParamValue parse(Kind kind, const std::string& text);

  Kind kind() const { return kind_; }
  // Whether expressions (constraints, launch geometry) can bind it: integers, and booleans as 0/1.
  bool is_bindable() const { return kind_ == Kind::integer || kind_ == Kind::boolean; }
  long long integer() const { return integer_; }  // integers; booleans as 0/1; 0 otherwise
  double real_value() const { return real_; }
  const std::string& name() const { return name_; }

  // How keys, logs and template arguments write it: "64", "0.5", "1.0", "true", "float".
  std::string text() const;
  // The value of a -D option: as text(), booleans as 1/0 (for #if).
  std::string define_text() const;

  friend bool operator==(const ParamValue&, const ParamValue&) = default;
  friend std::partial_ordering operator<=>(const ParamValue& a, const ParamValue& b);

 private:
  Kind kind_ = Kind::integer;
  long long integer_ = 0;
  double real_ = 0;
  std::string name_;
};

const char* kind_name(ParamValue::Kind kind);  // "integer", "real", "boolean", "identifier"

// nlohmann::json conversions (found by ADL): a config converts as its values' JSON. Hand-written: a value is one
// of four JSON kinds, not an object a macro could describe.
inline void to_json(nlohmann::json& j, const ParamValue& v) { j = v.to_json(); }
inline void from_json(const nlohmann::json& j, ParamValue& v) { v = ParamValue::from_json(j); }

}  // namespace attn

template <>
struct fmt::formatter<attn::ParamValue> : fmt::formatter<std::string> {
  auto format(const attn::ParamValue& v, format_context& ctx) const {
    return fmt::formatter<std::string>::format(v.text(), ctx);
  }
};

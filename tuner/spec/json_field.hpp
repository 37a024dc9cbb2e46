// A JSON value that knows where it came from, so that every validation error
// names the file and the field: "configs/x.json: params.BLOCK_M[2]: expected an integer".
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

class JsonField {
 public:
  using json = nlohmann::ordered_json;

  JsonField(std::string file, std::string path, const json& value)
      : file_(std::move(file)), path_(std::move(path)), value_(&value) {}

  const json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& message) const;

  // Object access. member() fails when KEY is missing.
  void expect_object(std::initializer_list<std::string_view> allowed_keys) const;
  bool has(std::string_view key) const;
  JsonField member(std::string_view key) const;
  std::optional<JsonField> optional_member(std::string_view key) const;
  std::vector<std::pair<std::string, JsonField>> members() const;  // file order

  std::vector<JsonField> elements() const;  // fails unless an array
  long long integer() const;
  double number() const;
  std::string string() const;
  std::string identifier(std::string_view what) const;  // a string that is a C identifier
  // An expression: a string, or an integer taken as its text.
  std::string expression_text() const;

 private:
  std::string child_path(std::string_view key) const;
  std::string file_, path_;
  const json* value_;
};

}  // namespace attn

// A JSON value that knows where it came from, so that every validation error
// names the file and the field: "configs/x.json: params.BLOCK_M[2]: expected an integer".
// In a spec that extends another file, each value names the file it is written in.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

// Where a value of a merged document is written: its file and its field path there.
struct FieldOrigin {
  std::string file;
  std::string path;
};
// Field path in the merged document -> where that value (and everything under it) is written.
using FieldOrigins = std::map<std::string, FieldOrigin, std::less<>>;

class JsonField {
 public:
  using json = nlohmann::ordered_json;

  JsonField(std::string file, std::string path, const json& value)
      : file_(std::move(file)), path_(std::move(path)), merged_path_(path_), value_(&value) {}
  // The root of a merged document: ORIGINS say which file each part comes from.
  JsonField(std::string file, const json& value, std::shared_ptr<const FieldOrigins> origins)
      : file_(std::move(file)), value_(&value), origins_(std::move(origins)) {}

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
  JsonField(std::string file, std::string path, std::string merged_path, const json& value,
            std::shared_ptr<const FieldOrigins> origins)
      : file_(std::move(file)),
        path_(std::move(path)),
        merged_path_(std::move(merged_path)),
        value_(&value),
        origins_(std::move(origins)) {}
  // The member KEY (or element "[i]") of this value, in the file it is written in.
  JsonField child(std::string_view key, const json& value) const;
  std::string file_, path_;
  std::string merged_path_;  // the path in the merged document, which origins_ are keyed by
  const json* value_;
  std::shared_ptr<const FieldOrigins> origins_;
};

}  // namespace attn

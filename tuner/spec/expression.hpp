// Integer expressions of a spec (constraints, launch geometry, defines,
// workspace sizes), evaluated by muparser's integer parser.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attn {

using Bindings = std::map<std::string, long long, std::less<>>;

// Thrown for a syntax error, an unknown name, or a division by zero; the
// message names the expression. The spec loader prefixes the file and field.
class ExpressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Expression {
 public:
  // Parses TEXT over NAMES. Throws ExpressionError on a syntax error or a name not in NAMES.
  Expression(std::string text, const std::vector<std::string>& names);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  ~Expression();

  // Evaluates with VALUES, which must bind every name the expression uses.
  long long eval(const Bindings& values) const;

  const std::string& text() const { return text_; }
  const std::vector<std::string>& used_names() const { return used_; }

 private:
  struct Impl;
  std::string text_;
  std::vector<std::string> used_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attn

// Expressions of a spec. Integer ones (constraints, launch geometry, defines,
// workspace sizes, integer kernel arguments) use muparser's integer parser;
// float kernel arguments (a softmax scale) use its double parser.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

using Bindings = std::map<std::string, long long, std::less<>>;
using NumberBindings = std::map<std::string, double, std::less<>>;

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

// A real-valued expression (sqrt, exp, log, pow via ^, min, max, ...): integer
// names bind their values exactly, as doubles; '/' divides without truncation.
class FloatExpression {
 public:
  // Parses TEXT over NAMES. Throws ExpressionError as Expression does.
  FloatExpression(std::string text, const std::vector<std::string>& names);
  FloatExpression(FloatExpression&&) noexcept;
  FloatExpression& operator=(FloatExpression&&) noexcept;
  ~FloatExpression();

  // Evaluates with VALUES (looked up first in NUMBERS, then in INTEGERS). Throws
  // ExpressionError for a missing name or a result that is not finite.
  double eval(const Bindings& integers, const NumberBindings& numbers) const;

  const std::string& text() const { return text_; }

 private:
  struct Impl;
  std::string text_;
  std::vector<std::string> used_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attn

#include "tuner/spec/expression.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <muParserInt.h>


namespace attn {
namespace {

long long to_int(mu::value_type v) { return std::llround(v); }

// ParserInt's own '/' and '%' divide by zero with a SIGFPE; these throw instead.
mu::value_type safe_div(mu::value_type a, mu::value_type b) {
  if (to_int(b) == 0) throw mu::ParserError("division by zero");
  return static_cast<mu::value_type>(to_int(a) / to_int(b));
}
mu::value_type safe_mod(mu::value_type a, mu::value_type b) {
  if (to_int(b) == 0) throw mu::ParserError("modulo by zero");
  return static_cast<mu::value_type>(to_int(a) % to_int(b));
}
mu::value_type ceil_div(mu::value_type a, mu::value_type b) {
  const long long x = to_int(a), y = to_int(b);
  if (y <= 0) throw mu::ParserError("ceil_div by a divisor <= 0");
  return static_cast<mu::value_type>((x + y - 1) / y);
}

class IntegerParser : public mu::ParserInt {
 public:
  IntegerParser() {
    DefineOprt("/", safe_div, mu::prMUL_DIV);
    DefineOprt("%", safe_mod, mu::prMUL_DIV);
    DefineFun("ceil_div", ceil_div);
  }
};

}  // namespace

struct Expression::Impl {
  IntegerParser parser;
  std::map<std::string, double, std::less<>> slots;  // node-stable addresses for DefineVar
};

Expression::Expression(std::string text, const std::vector<std::string>& names)
    : text_(std::move(text)), impl_(std::make_unique<Impl>()) {
  for (const auto& name : names) impl_->parser.DefineVar(name, &impl_->slots[name]);
  try {
    impl_->parser.SetExpr(text_);
    // Parses with undefined names allowed and lists every name used: syntax errors throw here.
    for (const auto& [name, _] : impl_->parser.GetUsedVar()) used_.push_back(name);
  } catch (const mu::ParserError& e) {
    throw ExpressionError(fmt::format("cannot parse \"{}\": {}", text_, e.GetMsg()));
  }
  for (const auto& name : used_)
    if (!impl_->slots.contains(name))
      throw ExpressionError(fmt::format("unknown name '{}' in \"{}\" (known: {})", name, text_, fmt::join(names, ", ")));
}

Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

long long Expression::eval(const Bindings& values) const {
  for (const auto& name : used_) {
    auto it = values.find(name);
    if (it == values.end()) throw ExpressionError(fmt::format("\"{}\": no value for '{}'", text_, name));
    impl_->slots.find(name)->second = static_cast<double>(it->second);
  }
  try {
    return to_int(impl_->parser.Eval());
  } catch (const mu::ParserError& e) {
    throw ExpressionError(fmt::format("cannot evaluate \"{}\": {}", text_, e.GetMsg()));
  }
}

}  // namespace attn

#include "tuner/spec/expression.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <muParser.h>
#include <muParserInt.h>

namespace attn {
namespace {

// Operands and results are 64-bit integers carried in muparser's doubles. A value past that range (an overflow,
// pow's infinity, a NaN) is an error of the expression, never a wrapped value or SIGFPE.
long long to_int(mu::value_type v) {
  constexpr double limit = 9223372036854775808.0;  // 2^63
  if (!std::isfinite(v) || v >= limit || v < -limit)
    throw mu::ParserError(fmt::format("a value outside the 64-bit integer range ({})", v));
  return std::llround(v);
}
mu::value_type as_value(long long v) { return static_cast<mu::value_type>(v); }
[[noreturn]] void overflow(const char* op, long long a, long long b) {
  throw mu::ParserError(fmt::format("{} {} {} overflows a 64-bit integer", a, op, b));
}

// ParserInt rounds operands to a 32-bit int, so sizes past 2 GiB overflowed
// and '/' or '%' by zero raised SIGFPE: every arithmetic and comparison
// operator is redefined here on 64-bit integers, checked for overflow, and division by zero throws.
mu::value_type add(mu::value_type a, mu::value_type b) {
  long long r;
  if (__builtin_add_overflow(to_int(a), to_int(b), &r)) overflow("+", to_int(a), to_int(b));
  return as_value(r);
}
mu::value_type sub(mu::value_type a, mu::value_type b) {
  long long r;
  if (__builtin_sub_overflow(to_int(a), to_int(b), &r)) overflow("-", to_int(a), to_int(b));
  return as_value(r);
}
mu::value_type mul(mu::value_type a, mu::value_type b) {
  long long r;
  if (__builtin_mul_overflow(to_int(a), to_int(b), &r)) overflow("*", to_int(a), to_int(b));
  return as_value(r);
}
mu::value_type safe_div(mu::value_type a, mu::value_type b) {
  const long long x = to_int(a), y = to_int(b);
  if (y == 0) throw mu::ParserError("division by zero");
  if (y == -1 && x == std::numeric_limits<long long>::min()) overflow("/", x, y);
  return as_value(x / y);
}
mu::value_type safe_mod(mu::value_type a, mu::value_type b) {
  const long long x = to_int(a), y = to_int(b);
  if (y == 0) throw mu::ParserError("modulo by zero (note: && and || evaluate both sides; guard with `c ? a : b`)");
  if (y == -1) return 0;  // INT64_MIN % -1 traps on x86
  return as_value(x % y);
}
mu::value_type less(mu::value_type a, mu::value_type b) { return to_int(a) < to_int(b); }
mu::value_type greater(mu::value_type a, mu::value_type b) { return to_int(a) > to_int(b); }
mu::value_type less_eq(mu::value_type a, mu::value_type b) { return to_int(a) <= to_int(b); }
mu::value_type greater_eq(mu::value_type a, mu::value_type b) { return to_int(a) >= to_int(b); }
mu::value_type equal(mu::value_type a, mu::value_type b) { return to_int(a) == to_int(b); }
mu::value_type not_equal(mu::value_type a, mu::value_type b) { return to_int(a) != to_int(b); }
mu::value_type minimum(const mu::value_type* args, int n) {
  if (n < 1) throw mu::ParserError("min() needs arguments");
  long long m = to_int(args[0]);
  for (int i = 1; i < n; ++i) m = std::min(m, to_int(args[i]));
  return as_value(m);
}
mu::value_type maximum(const mu::value_type* args, int n) {
  if (n < 1) throw mu::ParserError("max() needs arguments");
  long long m = to_int(args[0]);
  for (int i = 1; i < n; ++i) m = std::max(m, to_int(args[i]));
  return as_value(m);
}
mu::value_type ceil_div(mu::value_type a, mu::value_type b) {
  const long long x = to_int(a), y = to_int(b);
  if (y <= 0) throw mu::ParserError("ceil_div by a divisor <= 0");
  return as_value(x / y + (x % y > 0 ? 1 : 0));
}

class IntegerParser : public mu::ParserInt {
 public:
  IntegerParser() {
    DefineOprt("+", add, mu::prADD_SUB);
    DefineOprt("-", sub, mu::prADD_SUB);
    DefineOprt("*", mul, mu::prMUL_DIV);
    DefineOprt("/", safe_div, mu::prMUL_DIV);
    DefineOprt("%", safe_mod, mu::prMUL_DIV);
    DefineOprt("<", less, mu::prCMP);
    DefineOprt(">", greater, mu::prCMP);
    DefineOprt("<=", less_eq, mu::prCMP);
    DefineOprt(">=", greater_eq, mu::prCMP);
    DefineOprt("==", equal, mu::prCMP);
    DefineOprt("!=", not_equal, mu::prCMP);
    DefineFun("min", minimum);
    DefineFun("max", maximum);
    DefineFun("ceil_div", ceil_div);
  }
};

using Slots = std::map<std::string, double, std::less<>>;  // node-stable addresses for DefineVar

// What both expression kinds do with their parser: binds NAMES to SLOTS,
// parses TEXT and returns the names it uses. Throws ExpressionError on a
// syntax error or a name not in NAMES.
std::vector<std::string> parse(mu::ParserBase& parser, Slots& slots, const std::string& text,
                               const std::vector<std::string>& names) {
  for (const auto& name : names) parser.DefineVar(name, &slots[name]);
  std::vector<std::string> used;
  try {
    parser.SetExpr(text);
    // Parses with undefined names allowed and lists every name used: syntax errors throw here.
    for (const auto& [name, _] : parser.GetUsedVar()) used.push_back(name);
  } catch (const mu::ParserError& e) {
    throw ExpressionError(fmt::format("cannot parse \"{}\": {}", text, e.GetMsg()));
  }
  for (const auto& name : used)
    if (!slots.contains(name))
      throw ExpressionError(fmt::format("unknown name '{}' in \"{}\" (known: {})", name, text, fmt::join(names, ", ")));
  return used;
}

ExpressionError no_value(const std::string& text, const std::string& name) {
  return ExpressionError(fmt::format("\"{}\": no value for '{}'", text, name));
}

double evaluate(const mu::ParserBase& parser, const std::string& text) {
  try {
    return parser.Eval();
  } catch (const mu::ParserError& e) {
    throw ExpressionError(fmt::format("cannot evaluate \"{}\": {}", text, e.GetMsg()));
  }
}

}  // namespace

struct Expression::Impl {
  IntegerParser parser;
  Slots slots;
};

Expression::Expression(std::string text, const std::vector<std::string>& names)
    : text_(std::move(text)), impl_(std::make_unique<Impl>()) {
  used_ = parse(impl_->parser, impl_->slots, text_, names);
}

Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

long long Expression::eval(const Bindings& values) const {
  for (const auto& name : used_) {
    auto it = values.find(name);
    if (it == values.end()) throw no_value(text_, name);
    impl_->slots.find(name)->second = static_cast<double>(it->second);
  }
  const double v = evaluate(impl_->parser, text_);
  try {
    return to_int(v);
  } catch (const mu::ParserError& e) {
    throw ExpressionError(fmt::format("cannot evaluate \"{}\": {}", text_, e.GetMsg()));
  }
}

struct FloatExpression::Impl {
  mu::Parser parser;
  Slots slots;
};

FloatExpression::FloatExpression(std::string text, const std::vector<std::string>& names)
    : text_(std::move(text)), impl_(std::make_unique<Impl>()) {
  used_ = parse(impl_->parser, impl_->slots, text_, names);
}

FloatExpression::FloatExpression(FloatExpression&&) noexcept = default;
FloatExpression& FloatExpression::operator=(FloatExpression&&) noexcept = default;
FloatExpression::~FloatExpression() = default;

double FloatExpression::eval(const Bindings& integers, const NumberBindings& numbers) const {
  for (const auto& name : used_) {
    double value;
    if (auto n = numbers.find(name); n != numbers.end()) {
      value = n->second;
    } else if (auto i = integers.find(name); i != integers.end()) {
      value = static_cast<double>(i->second);
    } else {
      throw no_value(text_, name);
    }
    impl_->slots.find(name)->second = value;
  }
  const double v = evaluate(impl_->parser, text_);
  if (!std::isfinite(v)) throw ExpressionError(fmt::format("\"{}\" is not finite ({})", text_, v));
  return v;
}

}  // namespace attn

#include <gtest/gtest.h>

#include "tuner/spec/expression.hpp"

namespace attn {
namespace {

const std::vector<std::string> kNames = {"D", "DV_TILE", "BLOCK_M", "Nq"};

TEST(Expression, IntegerArithmeticAndComparisons) {
  const Bindings b = {{"D", 128}, {"DV_TILE", 48}, {"BLOCK_M", 32}, {"Nq", 100}};
  EXPECT_EQ(Expression("D % DV_TILE == 0", kNames).eval(b), 0);
  EXPECT_EQ(Expression("D % 32 == 0", kNames).eval(b), 1);
  EXPECT_EQ(Expression("D / DV_TILE", kNames).eval(b), 2);  // integer division
  EXPECT_EQ(Expression("ceil_div(Nq, BLOCK_M)", kNames).eval(b), 4);
  EXPECT_EQ(Expression("min(BLOCK_M, 16) * 2", kNames).eval(b), 32);
  EXPECT_EQ(Expression("BLOCK_M <= 64 && D >= 64", kNames).eval(b), 1);
  EXPECT_EQ(Expression("Nq > 64 ? 2 : 1", kNames).eval(b), 2);
  EXPECT_EQ(Expression("256", kNames).eval(b), 256);
}

TEST(Expression, ReportsTheNamesItUses) {
  const Expression e("ceil_div(Nq, BLOCK_M) * 2", kNames);
  EXPECT_EQ(e.used_names().size(), 2u);
}

TEST(Expression, UnknownNameIsNamedInTheError) {
  try {
    Expression("BLOCK_K * 2", kNames);
    FAIL() << "expected ExpressionError";
  } catch (const ExpressionError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown name 'BLOCK_K'"), std::string::npos) << e.what();
  }
}

TEST(Expression, SyntaxErrorsAndDivisionByZeroThrowInsteadOfCrashing) {
  EXPECT_THROW(Expression("D +* 2", kNames), ExpressionError);
  const Expression div("D / (BLOCK_M - 32)", kNames);
  EXPECT_THROW(div.eval({{"D", 1}, {"BLOCK_M", 32}}), ExpressionError);
  const Expression mod("D % (BLOCK_M - 32)", kNames);
  EXPECT_THROW(mod.eval({{"D", 1}, {"BLOCK_M", 32}}), ExpressionError);
}

TEST(Expression, SizesPast32BitsDoNotOverflow) {
  const Bindings b = {{"D", 8192}, {"DV_TILE", 12}, {"BLOCK_M", 8192}, {"Nq", 4}};
  EXPECT_EQ(Expression("D * BLOCK_M * DV_TILE * Nq", kNames).eval(b), 8192LL * 8192 * 12 * 4);
  EXPECT_EQ(Expression("D * BLOCK_M * DV_TILE * Nq / 3", kNames).eval(b), 8192LL * 8192 * 12 * 4 / 3);
  EXPECT_EQ(Expression("max(D * BLOCK_M * Nq * DV_TILE, 1) > 2147483647", kNames).eval(b), 1);
  EXPECT_EQ(Expression("-D + 1", kNames).eval(b), -8191);
}

TEST(Expression, MissingBindingIsAnError) {
  const Expression e("D + Nq", kNames);
  EXPECT_THROW(e.eval({{"D", 1}}), ExpressionError);
}

}  // namespace
}  // namespace attn

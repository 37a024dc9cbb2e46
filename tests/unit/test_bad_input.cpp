// What spec fuzzing and fault injection turned up, held at the library's level: each bad input is an error
// that names what is wrong, never a signal, a wrapped value or a replaced file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <functional>

#include "tests/support/test_support.hpp"
#include "tuner/core/json_text.hpp"
#include "tuner/core/text_file.hpp"
#include "tuner/load/shape_selection.hpp"
#include "tuner/load/spec_loader.hpp"
#include "tuner/record/journal.hpp"
#include "tuner/spec/expression.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BadInput, JsonNestedPastTheLimitIsAnErrorNamingTheInputNotAStackOverflow) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string err = error_of([&] { parse_json_text(deep, "deep.json"); });
  EXPECT_TRUE(contains(err, "deep.json: nested deeper than 256 levels")) << err;
  // At the limit it parses.
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(parse_json_text(ok, "ok.json"));
}

TEST(BadInput, ANumberPastADoubleNamesTheKeyItIsUnder) {
  const std::string err =
      error_of([] { parse_json_text(R"({"kernels": {"k": {"params": {"BLOCK_M": [1e400]}}}})", "x.json"); });
  EXPECT_TRUE(contains(err, "x.json")) << err;
  EXPECT_TRUE(contains(err, "kernels.k.params.BLOCK_M")) << err;
  EXPECT_TRUE(contains(err, "out of range")) << err;
  EXPECT_THROW(parse_json_text("{\"a\": -1e999}", "y.json"), JsonTextError);
}

TEST(BadInput, IntegerOverflowInAnExpressionIsAnErrorOfThatExpression) {
  const Bindings b{{"x", -4611686018427387904LL}, {"m", -1}, {"big", 3037000500LL}};
  for (const std::string text : {"x * 2 / m", "big * big", "x + x - 1", "(2^1000) / m", "x - x * 4"}) {
    const Expression e(text, {"x", "m", "big"});
    const std::string err = error_of([&] { e.eval(b); });
    EXPECT_TRUE(contains(err, text)) << text << ": " << err;
    EXPECT_TRUE(contains(err, "64-bit")) << text << ": " << err;
  }
  // x % -1 is 0, not SIGFPE, for the most negative x too.
  const Expression mod("(x * 2) % m", {"x", "m"});
  EXPECT_EQ(mod.eval(b), 0);
  const Expression ceil("ceil_div(x, 3)", {"x"});
  EXPECT_EQ(ceil.eval({{"x", 7}}), 3);
  EXPECT_EQ(ceil.eval({{"x", -7}}), -2);
}

// The testbed spec with the kernel's field at PATH_IN_KERNEL replaced by VALUE (raw JSON text: numbers past what
// a JSON library writes), beside the testbed so that its relative paths hold; removed when destroyed.
class TestbedWith {
 public:
  TestbedWith(const std::string& name, const std::string& path_in_kernel, const std::string& value)
      : path_(test::data(name + ".tmp.json")) {
    nlohmann::json spec = nlohmann::json::parse(read_text_file(test::data("testbed.json")));
    spec[nlohmann::json::json_pointer("/kernels/" + spec.at("kernels").begin().key() + path_in_kernel)] = "@@";
    std::string text = spec.dump();
    text.replace(text.find("\"@@\""), 4, value);
    write_file_atomically(path_, text);
  }
  ~TestbedWith() { fs::remove(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(BadInput, AParameterValueOf2To63IsRefusedNamingTheFieldNotWrapped) {
  const TestbedWith spec("param_2_63", "/params/WG", "[9223372036854775808]");
  const std::string err = error_of([&] { load_spec(spec.path()); });
  EXPECT_TRUE(contains(err, "params.WG[0]")) << err;
  EXPECT_TRUE(contains(err, "64-bit")) << err;
  EXPECT_FALSE(contains(err, "-9223372036854775808")) << err;
}

TEST(BadInput, VerifyMaxRowsBelowOneIsRefused) {
  nlohmann::json spec = nlohmann::json::parse(read_text_file(test::data("testbed.json")));
  for (const int rows : {0, -5}) {
    spec["verify"]["max_rows"] = rows;
    const fs::path path = test::data("bad_max_rows.tmp.json");
    write_file_atomically(path, spec.dump());
    const std::string err = error_of([&] { load_spec(path); });
    fs::remove(path);
    EXPECT_TRUE(contains(err, "verify.max_rows")) << rows << ": " << err;
  }
}

TEST(BadInput, AJournalHeaderWithAFieldOfTheWrongTypeIsDamagedNotAnException) {
  test::TempDir dir;
  const fs::path journal = dir.write("x.journal.jsonl", R"({"type": 7, "format": "two"})"
                                                        "\n");
  Journal::Contents c;
  ASSERT_NO_THROW(c = Journal::read(journal, Journal::Header{}));
  EXPECT_FALSE(c.damaged.empty());
  const fs::path journal2 = dir.write("y.journal.jsonl", R"({"type": "header", "format": "two"})"
                                                         "\n");
  ASSERT_NO_THROW(c = Journal::read(journal2, Journal::Header{}));
  EXPECT_TRUE(contains(c.damaged, "wrong type")) << c.damaged;
}

TEST(BadInput, AnOutputIsNeverRenamedOverASymlinkOrADevice) {
  test::TempDir dir;
  const fs::path target = dir.write("target.txt", "kept");
  const fs::path link = dir / "link.json";
  fs::create_symlink(target, link);
  EXPECT_THROW(write_file_atomically(link, "new"), UsageError);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text_file(target), "kept");
  EXPECT_THROW(write_file_atomically("/dev/null", "new"), UsageError);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_THROW(write_file_atomically(dir.path(), "new"), UsageError);  // a folder
  // A parent that cannot be made names the folder instead of a raw filesystem error.
  const std::string err = error_of([&] { write_file_atomically(target / "below" / "x.json", "x"); });
  EXPECT_TRUE(contains(err, "cannot create the folder")) << err;
}

TEST(BadInput, NamesBecomeOnePathComponentThatStaysShortAndDistinct) {
  EXPECT_EQ(file_name_part("../../../evil"), ".._.._.._evil");
  EXPECT_EQ(file_name_part(".."), "_..");
  EXPECT_EQ(file_name_part("a/b c"), "a_b_c");
  const std::string a = file_name_part(std::string(5000, 'x') + "1"), b = file_name_part(std::string(5000, 'x') + "2");
  EXPECT_LE(a.size(), 96u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find('/'), std::string::npos);
}

TEST(BadInput, ALeaderboardsShapeLabelSelectsThatShapeAgainUnderTheSameName) {
  Spec overridden = load_spec(test::data("testbed.json"));
  const std::string first = overridden.shapes.front().name;
  select_shapes(overridden, first + ",B=3,Nq=40");
  ASSERT_EQ(overridden.shapes.size(), 1u);
  const Shape& made = overridden.shapes.front();
  EXPECT_EQ(made.name, first + "[B=3,Nq=40]");

  Spec again = load_spec(test::data("testbed.json"));
  select_shapes(again, made.name);
  ASSERT_EQ(again.shapes.size(), 1u);
  EXPECT_EQ(again.shapes.front().name, made.name);
  EXPECT_EQ(again.shapes.front().fields, made.fields);
  // The kernels that ran the spec's shape run the label.
  for (const auto& k : again.kernels) EXPECT_EQ(k.shapes, std::vector<std::string>{made.name}) << k.name;

  Spec bad = load_spec(test::data("testbed.json"));
  EXPECT_THROW(select_shapes(bad, first + "[B=3"), UsageError);
  EXPECT_THROW(select_shapes(bad, first + "[Nope=3]"), UsageError);
}

// A user's first override: Hq=4 on a shape that leaves Hkv out (Hkv defaults to Hq) means 4 heads without GQA,
// not 4 query heads over the shape's 32 KV heads; a field the spec gave stays as given.
TEST(BadInput, AnOverrideCarriesTheFieldsThatDefaultToIt) {
  const fs::path spec_path = test::source_dir() / "configs/flash_attn_fwd_wgmma.json";
  Spec plain = load_spec(spec_path);
  select_shapes(plain, "fp16-d64-n1024[B=1,Hq=4,Nq=300]");
  const auto& f = plain.shapes.at(0).fields;
  EXPECT_EQ(f.at("Hq"), 4);
  EXPECT_EQ(f.at("Hkv"), 4);
  EXPECT_EQ(f.at("Nq"), 300);
  EXPECT_EQ(f.at("Nkv"), 300);

  Spec gqa = load_spec(spec_path);
  select_shapes(gqa, "fp16-d128-gqa4-mask-alibi-sinks[Hq=8,Nq=150]");
  const auto& g = gqa.shapes.at(0).fields;
  EXPECT_EQ(g.at("Hkv"), 4);     // given by the spec
  EXPECT_EQ(g.at("Nkv"), 1500);  // given by the spec

  Spec both = load_spec(spec_path);
  select_shapes(both, "fp16-d64-n1024[Hq=8,Hkv=2]");
  EXPECT_EQ(both.shapes.at(0).fields.at("Hkv"), 2);  // overridden itself: the override wins
}

}  // namespace
}  // namespace attn

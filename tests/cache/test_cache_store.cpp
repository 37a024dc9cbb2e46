// The on-disk compile cache without a compiler: entries round-trip, a damaged
// entry is refused, keys follow included files, and eviction keeps the bound.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "tests/support/test_support.hpp"
#include "tuner/cache/cache_entry.hpp"
#include "tuner/cache/cache_key.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/included_files.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

CacheEntry entry_with(std::size_t image_bytes, char fill = 'x') {
  CacheEntry e;
  e.log = "ptxas info    : Used 40 registers";
  e.details = {{"arch", "sm_90"}, {"compile_ms", 12.5}};
  e.image.assign(image_bytes, fill);
  return e;
}

std::string key_named(char c) { return std::string(64, c); }

TEST(CacheEntry, ASavedEntryReadsBackWithItsLogDetailsAndImage) {
  const CacheEntry e = entry_with(300, '\0');
  std::string why;
  const auto back = parse_entry(serialize_entry(e), why);
  ASSERT_TRUE(back) << why;
  EXPECT_TRUE(back->ok);
  EXPECT_EQ(back->log, e.log);
  EXPECT_EQ(back->details, e.details);
  EXPECT_EQ(back->image, e.image);
}

TEST(CacheEntry, AFailureKeepsItsMessageAndLog) {
  CacheEntry e;
  e.ok = false;
  e.message = "clBuildProgram failed";
  e.log = "error: planted";
  std::string why;
  const auto back = parse_entry(serialize_entry(e), why);
  ASSERT_TRUE(back) << why;
  EXPECT_FALSE(back->ok);
  EXPECT_EQ(back->message, e.message);
  EXPECT_EQ(back->log, e.log);
}

TEST(CacheEntry, AnyFlippedOrMissingByteIsDetected) {
  const std::string bytes = serialize_entry(entry_with(200));
  for (std::size_t at : {std::size_t{3}, std::size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    std::string why;
    EXPECT_FALSE(parse_entry(damaged, why)) << "byte " << at;
    EXPECT_FALSE(why.empty());
  }
  std::string why;
  EXPECT_FALSE(parse_entry(bytes.substr(0, bytes.size() - 10), why));
}

TEST(CacheKey, EveryPartChangesTheKey) {
  CacheKeyParts base{"opencl", "PoCL 6", "cpu", "aa", {{"h.h", "11"}}, {"-D A=1"}, {"k"}};
  const std::string k = cache_key(base);
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(cache_key(base), k);
  auto changed = [&](auto edit) {
    CacheKeyParts p = base;
    edit(p);
    return cache_key(p);
  };
  EXPECT_NE(changed([](CacheKeyParts& p) { p.compiler = "PoCL 7"; }), k);
  EXPECT_NE(changed([](CacheKeyParts& p) { p.target = "gpu"; }), k);
  EXPECT_NE(changed([](CacheKeyParts& p) { p.source_sha256 = "ab"; }), k);
  EXPECT_NE(changed([](CacheKeyParts& p) { p.included[0].second = "12"; }), k);
  EXPECT_NE(changed([](CacheKeyParts& p) { p.options = {"-D A=2"}; }), k);
  EXPECT_NE(changed([](CacheKeyParts& p) { p.entries = {"k2"}; }), k);
  // Field boundaries count: moving text from one option to the next is another key.
  EXPECT_NE(changed([](CacheKeyParts& p) { p.options = {"-D A=1", ""}; }), k);
}

TEST(CacheKeySource, NestedQuotedAndAngledIncludesAreHashedOnceAndAMissingOneIsNotCached) {
  test::TempDir dir;
  fs::create_directories(dir / "inc" / "sub");
  dir.write("inc/a.h", "#include \"sub/b.h\"\n#include <c.h>\n");
  dir.write("inc/sub/b.h", "#include \"d.h\"\n");  // found beside b.h
  dir.write("inc/sub/d.h", "// d\n");
  dir.write("inc/c.h", "#include \"a.h\"  // a cycle, followed once\n");
  const std::string source = "  #  include \"a.h\"\n#include <cuda_fp16.h>\nkernel void k() {}\n";
  CacheKeyParts parts;
  EXPECT_TRUE(key_source(parts, source, dir / "k.cl", {dir / "inc"}));  // <cuda_fp16.h> is the compiler's own
  std::vector<std::string> names;
  for (const auto& [path, sha] : parts.included) names.push_back(fs::path(path).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"a.h", "b.h", "d.h", "c.h"}));

  const auto before = parts.included;
  dir.write("inc/sub/d.h", "// d, edited\n");
  key_source(parts, source, dir / "k.cl", {dir / "inc"});
  EXPECT_NE(parts.included, before);

  CacheKeyParts missing;
  EXPECT_FALSE(key_source(missing, "#include \"missing.h\"\n", dir / "k.cl", {dir / "inc"}));
  EXPECT_EQ(included_files("#include \"missing.h\"\n", dir / "k.cl", {dir / "inc"}).missing,
            std::vector<std::string>{"missing.h"});
}

TEST(CacheStore, AnEntrySavedIsLoadedAndACorruptedOneIsRemoved) {
  test::TempDir dir;
  CacheStore store(dir.path(), 1 << 20);
  EXPECT_FALSE(store.load(key_named('a')));
  store.save(key_named('a'), entry_with(100));
  const auto hit = store.load(key_named('a'));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->image.size(), 100u);

  const fs::path path = store.entry_path(key_named('a'));
  std::string bytes = read_text_file(path);
  bytes[bytes.size() - 5] ^= 1;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_FALSE(store.load(key_named('a')));
  EXPECT_FALSE(fs::exists(path)) << "a corrupted entry is removed, to be rebuilt";
}

TEST(CacheStore, EvictionRemovesTheLeastRecentlyUsedAndKeepsTheBound) {
  test::TempDir dir;
  const std::size_t one = serialize_entry(entry_with(1000)).size();
  CacheStore store(dir.path(), 3 * one + one / 2);  // room for three
  auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  for (char c : {'a', 'b', 'c'}) {
    store.save(key_named(c), entry_with(1000, c));
    pause();
  }
  ASSERT_TRUE(store.load(key_named('a')));  // a is now the most recently used
  pause();
  store.save(key_named('d'), entry_with(1000, 'd'));
  EXPECT_TRUE(fs::exists(store.entry_path(key_named('a'))));
  EXPECT_FALSE(fs::exists(store.entry_path(key_named('b')))) << "b was used longest ago";
  EXPECT_TRUE(fs::exists(store.entry_path(key_named('c'))));
  EXPECT_TRUE(fs::exists(store.entry_path(key_named('d'))));

  std::uintmax_t total = 0;
  for (const auto& f : fs::recursive_directory_iterator(dir.path()))
    if (f.is_regular_file()) total += f.file_size();
  EXPECT_LE(total, 3 * one + one / 2);
}

}  // namespace
}  // namespace attn

#include "tuner/backend/cuda/cuda_compile_cache.hpp"

#include <chrono>
#include <map>
#include <utility>

#include "tuner/cache/cache_entry.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/error.hpp"

namespace attn {
namespace {

CacheEntry entry_of(const NvrtcResult& r) {
  CacheEntry e;
  e.log = r.log;
  e.details = {{"arch", r.arch},
               {"is_cubin", r.is_cubin},
               {"options", r.options},
               {"compile_ms", r.compile_ms},
               {"lowered_names", r.lowered_names}};
  e.image = r.image;
  return e;
}

NvrtcResult result_of(const CacheEntry& e, NvrtcResult planned) {
  planned.is_cubin = e.details.value("is_cubin", planned.is_cubin);
  planned.image = e.image;
  planned.log = e.log;
  planned.ptxas = parse_ptxas_log(planned.log);
  planned.lowered_names = e.details.value("lowered_names", std::map<std::string, std::string>{});
  planned.from_cache = true;
  return planned;
}

}  // namespace

NvrtcResult compile_through_cache(const std::string& key, bool cache_failures, NvrtcResult planned,
                                  const std::function<NvrtcResult(NvrtcResult)>& compile) {
  CacheStore* store = compile_cache_store();
  if (!store) return compile(std::move(planned));
  const auto start = std::chrono::steady_clock::now();
  if (auto hit = store->load(key)) {
    if (!hit->ok) throw CachedCompileError(hit->message, hit->log);
    NvrtcResult cached = result_of(*hit, std::move(planned));
    cached.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return cached;
  }
  try {
    NvrtcResult fresh = compile(std::move(planned));
    store->save(key, entry_of(fresh));
    return fresh;
  } catch (const CompileError& e) {
    if (cache_failures) {
      CacheEntry failed;
      failed.ok = false;
      failed.message = e.what();
      failed.log = e.log();
      store->save(key, failed);
    }
    throw;
  }
}

}  // namespace attn

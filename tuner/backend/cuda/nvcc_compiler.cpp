#include "tuner/backend/cuda/nvcc_compiler.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <regex>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "tuner/backend/cuda/captured_process.hpp"
#include "tuner/backend/cuda/cuda_compile_cache.hpp"
#include "tuner/backend/cuda/define_options.hpp"
#include "tuner/backend/cuda/entry_symbols.hpp"
#include "tuner/cache/cache_key.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/identifier.hpp"
#include "tuner/core/text_file.hpp"

#ifndef ATTN_TUNE_CUDA_BIN_DIR
#define ATTN_TUNE_CUDA_BIN_DIR ""
#endif

namespace attn {
namespace fs = std::filesystem;
namespace {

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// A folder that lives as long as one compilation: the cubin, and the source when it is text.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "attn-tune-nvcc-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw BackendError(fmt::format("nvcc: cannot create a folder like {}", pattern));
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);  // never throws: a leftover folder in /tmp is harmless
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The file nvcc compiles: the source itself while it holds SOURCE (its messages then name
// it), else SOURCE written into SCRATCH under the source's name.
fs::path source_file_for(const CompileRequest& request, const std::string& source, const ScratchDir& scratch) {
  std::error_code ec;
  if (!request.source_path.empty() && fs::is_regular_file(request.source_path, ec) &&
      read_text_file(request.source_path) == source)
    return request.source_path;
  const fs::path file =
      scratch.path() / (request.source_path.empty() ? fs::path("kernel.cu") : request.source_path.filename());
  write_file_atomically(file, source);
  return file;
}

void resolve_entries(const CompileRequest& request, const std::string& name, NvrtcResult& out) {
  for (const std::string& entry : request.entries) {
    const std::vector<std::string> symbols = entry_symbols_named(out.ptxas, entry);
    if (symbols.size() == 1) {
      if (symbols.front() != entry) out.lowered_names[entry] = symbols.front();
      continue;
    }
    std::string kernels;
    for (const PtxasFunction& f : out.ptxas.functions)
      if (f.is_entry) {
        const std::string demangled = demangled_function_name(f.name);
        kernels +=
            fmt::format("{}{}{}", kernels.empty() ? "" : ", ", f.name, demangled.empty() ? "" : " (" + demangled + ")");
      }
    throw CompileError(fmt::format("nvcc: {} {} '{}' (its kernels: {})", name,
                                   symbols.empty() ? "has no kernel" : "has more than one kernel named", entry,
                                   kernels.empty() ? "none" : kernels),
                       out.log);
  }
}

NvrtcResult compile_with_nvcc(const CompileRequest& request, const fs::path& nvcc, const std::string& source,
                              const std::string& name, NvrtcResult out) {
  const ScratchDir scratch;
  const fs::path cubin = scratch.path() / "image.cubin";
  const fs::path file = source_file_for(request, source, scratch);
  std::vector<std::string> args = out.options;
  // A source compiled from the scratch folder still finds its "quoted" includes beside the original.
  if (file != request.source_path && !request.source_path.parent_path().empty())
    args.push_back("-I" + request.source_path.parent_path().string());
  args.insert(args.end(), {"-o", cubin.string(), file.string()});

  const auto t0 = std::chrono::steady_clock::now();
  const CapturedProcess run = run_captured(nvcc, args);
  out.log = run.output;
  while (!out.log.empty() && (out.log.back() == '\n' || out.log.back() == ' ')) out.log.pop_back();
  if (run.exit_code != 0)
    throw CompileError(fmt::format("nvcc: {} did not compile for {} (nvcc exited with {})", name, out.arch, run.exit_code),
                       out.log);
  out.image = read_bytes(cubin);
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (out.image.empty())
    throw CompileError(fmt::format("nvcc: {} compiled for {} to an empty cubin", name, out.arch), out.log);
  out.ptxas = parse_ptxas_log(out.log);
  resolve_entries(request, name, out);
  return out;
}

std::string nvcc_cache_key(const CompileRequest& request, const std::string& source, const NvrtcResult& planned,
                           bool& cache_failures) {
  CacheKeyParts parts;
  parts.backend = "nvcc";
  parts.compiler = planned.compiler_version;
  parts.target = planned.arch;
  parts.options.push_back("name=" + request.source_path.string());
  std::vector<fs::path> dirs = request.include_dirs;
  if (!request.source_path.empty()) dirs.push_back(request.source_path.parent_path());
  cache_failures = key_source(parts, source, request.source_path, dirs);
  for (const auto& o : planned.options) parts.options.push_back(o);
  parts.entries = request.entries;
  return cache_key(parts);
}

}  // namespace

std::optional<fs::path> find_nvcc() {
  if (const char* env = std::getenv("ATTN_TUNE_NVCC"); env && *env) {
    if (is_executable(env)) return fs::path(env);
    return std::nullopt;
  }
  std::vector<fs::path> candidates;
  if (const std::string bin = ATTN_TUNE_CUDA_BIN_DIR; !bin.empty()) candidates.push_back(fs::path(bin) / "nvcc");
  if (const char* path = std::getenv("PATH")) {
    const std::string list = path;
    std::size_t pos = 0;
    while (pos <= list.size()) {
      std::size_t sep = list.find(':', pos);
      if (sep == std::string::npos) sep = list.size();
      if (sep > pos) candidates.push_back(fs::path(list.substr(pos, sep - pos)) / "nvcc");
      pos = sep + 1;
    }
  }
  candidates.emplace_back("/usr/local/cuda/bin/nvcc");
  for (const auto& c : candidates)
    if (is_executable(c)) return c;
  return std::nullopt;
}

std::string nvcc_version(const fs::path& nvcc) {
  static std::mutex mutex;
  static std::map<fs::path, std::string> versions;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = versions.find(nvcc); it != versions.end()) return it->second;
  const CapturedProcess run = run_captured(nvcc, {"--version"});
  std::smatch m;
  const std::regex release("release ([^\\n]+)");
  const std::string version = std::regex_search(run.output, m, release) ? m[1].str() : "unknown";
  versions.emplace(nvcc, version);
  return version;
}

std::vector<std::string> nvcc_options(const CompileRequest& request, std::string_view arch) {
  std::vector<std::string> opts = {"-cubin", "-arch=" + std::string(arch), "-std=c++17", "-Xptxas", "-v"};
  for (std::string& d : define_options(request.defines, "nvcc")) opts.push_back(std::move(d));
  for (const auto& dir : request.include_dirs) opts.push_back("-I" + dir.string());
  for (const auto& o : request.extra_options) opts.push_back(o);
  return opts;
}

NvrtcResult nvcc_compile(const CompileRequest& request, std::string_view arch) {
  NvrtcResult out;
  out.arch = std::string(arch.empty() ? std::string_view(request.arch) : arch);
  if (out.arch.empty()) throw UsageError("cuda: no target architecture to compile for (give --arch, e.g. sm_90)");
  const std::string name = request.source_path.empty() ? std::string("kernel.cu") : request.source_path.string();
  if (!std::regex_match(out.arch, std::regex("sm_[0-9]+a?")))
    throw CompileError(fmt::format("nvcc: {} compiles to a cubin, for an sm_XX architecture, not {}", name, out.arch), "");
  const std::optional<fs::path> nvcc = find_nvcc();
  if (!nvcc)
    throw CompileError(fmt::format("nvcc: {} asks for \"cuda_compiler\": \"nvcc\", and there is no nvcc ({})", name,
                                   std::getenv("ATTN_TUNE_NVCC") && *std::getenv("ATTN_TUNE_NVCC")
                                       ? fmt::format("$ATTN_TUNE_NVCC is {}", std::getenv("ATTN_TUNE_NVCC"))
                                       : "not beside the CUDA toolkit, on PATH or in /usr/local/cuda/bin"),
                       "");

  const std::string source = request.source_text.empty() ? read_text_file(request.source_path) : request.source_text;
  out.options = nvcc_options(request, out.arch);
  out.compiler_version = "nvcc " + nvcc_version(*nvcc);
  const auto compile = [&](NvrtcResult planned) {
    return compile_with_nvcc(request, *nvcc, source, name, std::move(planned));
  };
  if (!compile_cache_store()) return compile(std::move(out));
  bool cache_failures = true;
  const std::string key = nvcc_cache_key(request, source, out, cache_failures);
  return compile_through_cache(key, cache_failures, std::move(out), compile);
}

}  // namespace attn

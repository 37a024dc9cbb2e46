#include "tuner/backend/cuda/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <cctype>
#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tuner/backend/cuda/cuda_compile_cache.hpp"
#include "tuner/backend/cuda/define_options.hpp"
#include "tuner/cache/cache_key.hpp"
#include "tuner/cache/cache_store.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/identifier.hpp"
#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

#ifndef ATTN_TUNE_CUDA_INCLUDE_DIRS
#define ATTN_TUNE_CUDA_INCLUDE_DIRS ""
#endif

namespace attn {
namespace {

// ---- NVRTC call checking ---------------------------------------------------

[[noreturn]] void throw_nvrtc(nvrtcResult r, const char* call, const char* file, int line) {
  throw BackendError(fmt::format("nvrtc: {} failed: {} at {}:{}", call, nvrtcGetErrorString(r), file, line));
}

#define ATTN_NVRTC(call)                                                                                 \
  do {                                                                                                   \
    const nvrtcResult attn_nvrtc_result_ = (call);                                                       \
    if (attn_nvrtc_result_ != NVRTC_SUCCESS) throw_nvrtc(attn_nvrtc_result_, #call, __FILE__, __LINE__); \
  } while (0)

class NvrtcProgram {
 public:
  NvrtcProgram(const std::string& source, const std::string& name) {
    ATTN_NVRTC(nvrtcCreateProgram(&p_, source.c_str(), name.c_str(), 0, nullptr, nullptr));
  }
  ~NvrtcProgram() {
    if (p_) {
      const nvrtcResult r = nvrtcDestroyProgram(&p_);
      if (r != NVRTC_SUCCESS) {
        try {
          spdlog::warn("nvrtc: nvrtcDestroyProgram failed: {} (ignored)", nvrtcGetErrorString(r));
        } catch (...) {
        }
      }
    }
  }
  NvrtcProgram(const NvrtcProgram&) = delete;
  NvrtcProgram& operator=(const NvrtcProgram&) = delete;
  nvrtcProgram get() const { return p_; }

  std::string log() const {
    std::size_t n = 0;
    ATTN_NVRTC(nvrtcGetProgramLogSize(p_, &n));
    std::string s(n, '\0');
    if (n) ATTN_NVRTC(nvrtcGetProgramLog(p_, s.data()));
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

 private:
  nvrtcProgram p_ = nullptr;
};

// ---- ptxas log parsing -----------------------------------------------------

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The number that ends just before `at` (spaces skipped): "12 registers" -> 12.
// "4096+16 bytes smem" (old ptxas) sums both terms.
std::optional<long long> number_before(std::string_view line, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  long long total = 0;
  bool any = false;
  while (true) {
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
    if (begin == end) break;
    long long v = 0;
    for (std::size_t i = begin; i < end; ++i) v = v * 10 + (line[i] - '0');
    total += v;
    any = true;
    if (begin > 0 && line[begin - 1] == '+') {
      end = begin - 1;
      continue;
    }
    break;
  }
  if (!any) return std::nullopt;
  return total;
}

std::optional<long long> number_before(std::string_view line, std::string_view suffix) {
  const std::size_t at = line.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  return number_before(line, at);
}

// Every "N bytes cmem[K]" of a line.
std::map<int, long long> cmem_banks(std::string_view line) {
  std::map<int, long long> banks;
  constexpr std::string_view key = "bytes cmem[";
  std::size_t pos = 0;
  while ((pos = line.find(key, pos)) != std::string_view::npos) {
    const auto bytes = number_before(line, pos);
    std::size_t i = pos + key.size();
    int bank = 0;
    bool digits = false;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) {
      bank = bank * 10 + (line[i] - '0');
      ++i;
      digits = true;
    }
    if (bytes && digits) banks[bank] += *bytes;
    pos = i;
  }
  return banks;
}

// The text between the first pair of single quotes after `from`.
std::string quoted(std::string_view line, std::size_t from = 0) {
  const std::size_t a = line.find('\'', from);
  if (a == std::string_view::npos) return {};
  const std::size_t b = line.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return std::string(line.substr(a + 1, b - a - 1));
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

const PtxasFunction* PtxasReport::find(std::string_view name) const {
  const PtxasFunction* found = nullptr;
  for (const auto& f : functions)
    if (f.name == name) {
      found = &f;
      if (f.is_entry) break;
    }
  return found;
}

PtxasReport parse_ptxas_log(std::string_view log) {
  PtxasReport report;
  // An index, not a pointer: report.functions grows as the log names functions.
  std::optional<std::size_t> current_index;
  auto select = [&](const std::string& name) {
    for (std::size_t i = 0; i < report.functions.size(); ++i)
      if (report.functions[i].name == name) {
        current_index = i;
        return;
      }
    report.functions.push_back(PtxasFunction{});
    report.functions.back().name = name;
    current_index = report.functions.size() - 1;
  };

  std::size_t pos = 0;
  while (pos <= log.size()) {
    std::size_t nl = log.find('\n', pos);
    if (nl == std::string_view::npos) nl = log.size();
    std::string_view raw = log.substr(pos, nl - pos);
    pos = nl + 1;
    std::string_view line = trim(raw);
    // nvcc prints a function's stack line without the "ptxas" prefix.
    if (!starts_with(line, "ptxas") && line.find("bytes stack frame") == std::string_view::npos) continue;

    if (starts_with(line, "ptxas warning") || starts_with(line, "ptxas error") || starts_with(line, "ptxas fatal")) {
      report.warnings.emplace_back(line);
      continue;
    }
    // "ptxas info    : <body>" or "ptxas         .     <body>"
    std::size_t colon = line.find(':');
    std::string_view body;
    if (starts_with(line, "ptxas info") && colon != std::string_view::npos) {
      body = trim(line.substr(colon + 1));
    } else if (!starts_with(line, "ptxas")) {
      body = line;
    } else {
      body = trim(line.substr(5));
      while (!body.empty() && (body.front() == '.' || body.front() == ' ')) body.remove_prefix(1);
    }

    PtxasFunction* current = current_index ? &report.functions[*current_index] : nullptr;
    if (body.find("Potential Performance Loss") != std::string_view::npos) {
      // Printed before the function's own report; attached by the name it ends with.
      const std::size_t at = body.rfind("in the function '");
      if (at == std::string_view::npos) continue;
      const std::string name = quoted(body, at);
      const std::optional<std::size_t> keep = current_index;
      select(name);
      report.functions[*current_index].performance_notes.emplace_back(body);
      current_index = keep;
    } else if (starts_with(body, "Compiling entry function")) {
      const std::size_t name_end = body.find('\'', body.find('\'') + 1);
      select(quoted(body));
      PtxasFunction& f = report.functions[*current_index];
      f.is_entry = true;
      if (name_end != std::string_view::npos) f.arch = quoted(body, name_end + 1);
    } else if (starts_with(body, "Function properties for")) {
      select(std::string(trim(body.substr(23))));
    } else if (body.find("bytes stack frame") != std::string_view::npos) {
      if (!current) continue;
      current->stack_frame_bytes = number_before(body, "bytes stack frame");
      current->spill_store_bytes = number_before(body, "bytes spill stores");
      current->spill_load_bytes = number_before(body, "bytes spill loads");
    } else if (starts_with(body, "Used ")) {
      if (!current) continue;
      current->registers = number_before(body, " registers");
      current->barriers = number_before(body, " barriers");
      current->smem_bytes = number_before(body, " bytes smem").value_or(0);
      current->cumulative_stack_bytes = number_before(body, " bytes cumulative stack size");
      for (const auto& [bank, bytes] : cmem_banks(body)) current->cmem_bytes[bank] += bytes;
    } else if (body.find("bytes gmem") != std::string_view::npos) {
      report.gmem_bytes = number_before(body, " bytes gmem");
      for (const auto& [bank, bytes] : cmem_banks(body)) report.cmem_bytes[bank] += bytes;
    } else if (body.find("bytes cmem[") != std::string_view::npos && !starts_with(body, "Compile time")) {
      for (const auto& [bank, bytes] : cmem_banks(body)) report.cmem_bytes[bank] += bytes;
    }
  }
  return report;
}

KernelResources resources_from_ptxas(const PtxasReport& report, std::string_view entry) {
  KernelResources r;
  const PtxasFunction* f = report.find(entry);
  if (!f) return r;
  r.registers = f->registers;
  r.private_mem_bytes = f->stack_frame_bytes;
  r.spill_store_bytes = f->spill_store_bytes;
  r.spill_load_bytes = f->spill_load_bytes;
  r.static_local_bytes = f->smem_bytes;
  r.compiler_notes = f->performance_notes;
  return r;
}

// ---- options ---------------------------------------------------------------

std::vector<std::filesystem::path> cuda_toolkit_include_dirs() {
  std::string list;
  if (const char* env = std::getenv("ATTN_TUNE_CUDA_INCLUDE"); env && *env) list = env;
  else list = ATTN_TUNE_CUDA_INCLUDE_DIRS;
  std::vector<std::filesystem::path> dirs;
  auto add = [&](const std::filesystem::path& p) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) return;
    for (const auto& d : dirs)
      if (d == p) return;
    dirs.push_back(p);
  };
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t sep = list.find(':', pos);
    if (sep == std::string::npos) sep = list.size();
    const std::string item = list.substr(pos, sep - pos);
    pos = sep + 1;
    if (item.empty()) continue;
    const std::filesystem::path dir(item);
    add(dir);
    add(dir / "cccl");  // CUDA 13: <cuda/std/...>, <cuda/pipeline> live there
  }
  return dirs;
}

std::vector<std::string> nvrtc_options(const CompileRequest& request, std::string_view arch,
                                       const std::vector<std::filesystem::path>& toolkit_dirs, bool no_cache) {
  std::vector<std::string> opts;
  opts.push_back("--gpu-architecture=" + std::string(arch));
  opts.push_back("-std=c++17");
  opts.push_back("--ptxas-options=-v");
  if (no_cache) opts.push_back("--no-cache");
  for (std::string& d : define_options(request.defines, "nvrtc")) opts.push_back(std::move(d));
  for (const auto& dir : request.include_dirs) opts.push_back("-I" + dir.string());
  for (const auto& dir : toolkit_dirs) opts.push_back("-I" + dir.string());
  for (const auto& o : request.extra_options) opts.push_back(o);
  return opts;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

std::vector<std::string> nvrtc_supported_archs() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  std::vector<std::string> names;
  for (int a : archs) names.push_back(fmt::format("sm_{}", a));
  return names;
}

bool nvrtc_has_cache() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return false;
  return major > 12 || (major == 12 && minor >= 9);
}

namespace {

// The target the options finally select: NVRTC takes the last one given.
std::string effective_arch(const std::vector<std::string>& opts) {
  std::string arch;
  for (std::size_t i = 0; i < opts.size(); ++i) {
    const std::string& o = opts[i];
    for (std::string_view p : {"--gpu-architecture=", "-arch=", "--gpu-architecture ", "-arch "})
      if (starts_with(o, p)) arch = o.substr(p.size());
    if ((o == "-arch" || o == "--gpu-architecture") && i + 1 < opts.size()) arch = opts[i + 1];
  }
  return arch;
}

bool ptx_has_entry(std::string_view ptx, std::string_view entry) {
  const std::string key = ".entry " + std::string(entry);
  std::size_t pos = 0;
  while ((pos = ptx.find(key, pos)) != std::string_view::npos) {
    const std::size_t after = pos + key.size();
    if (after >= ptx.size() || ptx[after] == '(' || std::isspace(static_cast<unsigned char>(ptx[after]))) return true;
    pos = after;
  }
  return false;
}

// NVRTC reports a name expression that names nothing, an overloaded function or an
// instance it cannot make in its generated "__nv_name_map", quoting the pragma
// `nv_mangled_name ENTRY` under each such error.
bool names_no_function(std::string_view log, const std::string& entry) {
  return log.find("__nv_name_map") != std::string_view::npos &&
         log.find("nv_mangled_name " + entry + "\n") != std::string_view::npos;
}

constexpr const char* kHostCodeHint =
    " (the source has host code, which NVRTC cannot compile: give the spec \"cuda_compiler\": \"nvcc\")";

bool has_host_code(std::string_view log) {
  return log.find("host functions are not allowed in JIT mode") != std::string_view::npos ||
         log.find("open source file") != std::string_view::npos;  // a system header: "cannot" / "could not"
}

NvrtcResult compile_with_nvrtc(const CompileRequest& request, const std::string& source, const std::string& name,
                               NvrtcResult out) {
  NvrtcProgram program(source, name);
  std::vector<const char*> argv;
  argv.reserve(out.options.size());
  for (const auto& o : out.options) argv.push_back(o.c_str());

  // Every entry is a name expression: a template instance, a plain C++ function (mangled) or an
  // extern "C" one (lowered to itself) alike.
  for (const std::string& entry : request.entries) ATTN_NVRTC(nvrtcAddNameExpression(program.get(), entry.c_str()));
  const auto t0 = std::chrono::steady_clock::now();
  const nvrtcResult r = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  out.log = program.log();
  if (r != NVRTC_SUCCESS) {
    for (const std::string& entry : request.entries)
      if (names_no_function(out.log, entry))
        throw CompileError(fmt::format("nvrtc: {} has no kernel '{}' (an entry names one extern \"C\" or C++ "
                                       "__global__ function, not overloaded, or a template instance)",
                                       name, entry),
                           out.log);
    throw CompileError(fmt::format("nvrtc: {} did not compile for {}: {}{}", name, out.arch, nvrtcGetErrorString(r),
                                   has_host_code(out.log) ? kHostCodeHint : ""),
                       out.log);
  }
  std::size_t size = 0;
  if (out.is_cubin) {
    ATTN_NVRTC(nvrtcGetCUBINSize(program.get(), &size));
    out.image.resize(size);
    if (size) ATTN_NVRTC(nvrtcGetCUBIN(program.get(), out.image.data()));
  } else {
    ATTN_NVRTC(nvrtcGetPTXSize(program.get(), &size));
    out.image.resize(size);
    if (size) ATTN_NVRTC(nvrtcGetPTX(program.get(), out.image.data()));
  }
  const auto t1 = std::chrono::steady_clock::now();
  out.compile_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (out.image.empty())
    throw CompileError(fmt::format("nvrtc: {} compiled for {} to an empty image", name, out.arch), out.log);
  for (const std::string& entry : request.entries) {
    const char* lowered = nullptr;
    ATTN_NVRTC(nvrtcGetLoweredName(program.get(), entry.c_str(), &lowered));
    if (lowered && entry != lowered) out.lowered_names[entry] = lowered;
  }

  out.ptxas = parse_ptxas_log(out.log);
  // Without ptxas' report (none for PTX; none if a cache answered) a CUBIN's
  // entries are checked when the driver loads it.
  const bool can_check = !out.is_cubin || !out.ptxas.functions.empty();
  for (const std::string& entry : request.entries) {
    if (!can_check) break;
    bool found = false;
    if (out.is_cubin) {
      const PtxasFunction* f = out.ptxas.find(out.symbol(entry));
      found = f && f->is_entry;
    } else {
      found = ptx_has_entry(std::string_view(out.image.data(), out.image.size()), out.symbol(entry));
    }
    if (!found)
      throw CompileError(fmt::format("nvrtc: {} has no kernel '{}' (its symbol {} is not a __global__ function)", name,
                                     entry, out.symbol(entry)),
                         out.log);
  }
  return out;
}

// ---- the on-disk compile cache ------------------------------------------------
// A CUBIN depends on the source, its headers, the options, NVRTC's version (its
// ptxas included) and the target; not on the driver, which only loads it (PTX is
// JIT-compiled by the driver at load time, after the cache).

std::string nvrtc_cache_key(const CompileRequest& request, const std::string& source, const NvrtcResult& planned,
                            bool& cache_failures) {
  CacheKeyParts parts;
  parts.backend = "nvrtc";
  parts.compiler = "nvrtc " + nvrtc_version();
  parts.target = planned.arch;
  // The source's name matters: NVRTC resolves quoted includes from its folder and prints it in the log.
  parts.options.push_back("name=" + request.source_path.string());
  std::vector<std::filesystem::path> dirs = request.include_dirs;
  for (const auto& d : cuda_toolkit_include_dirs()) dirs.push_back(d);
  cache_failures = key_source(parts, source, request.source_path, dirs);
  for (const auto& o : planned.options) parts.options.push_back(o);
  parts.entries = request.entries;
  // Entries became name expressions all (plain C++ ones resolve): failures cached before must not answer.
  parts.options.push_back("entries=name-expressions");
  return cache_key(parts);
}

}  // namespace

bool is_name_expression(std::string_view entry) { return entry.find('<') != std::string_view::npos; }

std::string NvrtcResult::symbol(const std::string& entry) const {
  const auto it = lowered_names.find(entry);
  return it == lowered_names.end() ? entry : it->second;
}

NvrtcResult nvrtc_compile(const CompileRequest& request, std::string_view arch) {
  NvrtcResult out;
  std::string target(arch.empty() ? std::string_view(request.arch) : arch);
  if (target.empty()) throw UsageError("cuda: no target architecture to compile for (give --arch, e.g. sm_90)");

  const std::string source = request.source_text.empty() ? read_text_file(request.source_path) : request.source_text;
  // NVRTC resolves "quoted" includes relative to this name's directory, as nvcc
  // does relative to the file, and names it in its messages.
  const std::string name = request.source_path.empty() ? std::string("kernel.cu") : request.source_path.string();

  out.options = nvrtc_options(request, target, cuda_toolkit_include_dirs(), nvrtc_has_cache());
  out.arch = effective_arch(out.options);
  out.is_cubin = !starts_with(out.arch, "compute_");

  out.compiler_version = "nvrtc " + nvrtc_version();
  if (!compile_cache_store()) return compile_with_nvrtc(request, source, name, std::move(out));
  bool cache_failures = true;
  const std::string key = nvrtc_cache_key(request, source, out, cache_failures);
  return compile_through_cache(key, cache_failures, std::move(out), [&](NvrtcResult planned) {
    return compile_with_nvrtc(request, source, name, std::move(planned));
  });
}

}  // namespace attn

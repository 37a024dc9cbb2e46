// CUDA sources with host code compiled by the toolkit's nvcc to a cubin
// (spec field "cuda_compiler": "nvcc"). NVRTC refuses a host main, a host
// launcher or a system header; nvcc -cubin compiles the device code beside them.
//
// Options, in this order (nvcc_options):
//   -cubin -arch=<arch>    the image the driver loads (sm_XX, sm_XXa only)
//   -std=c++17
//   -Xptxas -v             ptxas' per-entry report, parsed as NVRTC's (parse_ptxas_log)
//   -DNAME=VALUE           each define; names must be C identifiers
//   -I<dir>                each include dir of the request (nvcc finds the toolkit's own)
//   <extra_options>        the spec's, last
// nvcc gives no lowered names: a C++ entry's mangled symbol is found among
// ptxas' entry functions by its demangled name (entry_symbols.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/backend/cuda/nvrtc_compiler.hpp"

namespace attn {

// The nvcc to run: $ATTN_TUNE_NVCC when set (only that one), else the one beside
// the toolkit CMake found, else nvcc on PATH, else /usr/local/cuda/bin/nvcc.
// None where none of them is an executable file.
std::optional<std::filesystem::path> find_nvcc();

// "13.0, V13.0.88", from `nvcc --version`'s release line (once per nvcc).
std::string nvcc_version(const std::filesystem::path& nvcc);

// The options nvcc gets for REQUEST compiled for ARCH (see the top of this file), before the
// source and the output file. Throws CompileError when a define's name is not an identifier.
std::vector<std::string> nvcc_options(const CompileRequest& request, std::string_view arch);

// Compiles REQUEST (its source_text, or the file source_path) with nvcc for ARCH (request.arch
// when empty). Throws CompileError with nvcc's output when there is no nvcc, it fails, or an
// entry is not one kernel of the cubin; UsageError when no arch is given. Cached like NVRTC's.
NvrtcResult nvcc_compile(const CompileRequest& request, std::string_view arch = {});

}  // namespace attn

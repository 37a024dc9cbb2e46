// Which compiled entry function a spec's entry names, when the compiler gives no
// lowered names (nvcc): ptxas' report lists each entry by its mangled symbol
// ("Compiling entry function '_Z8attn_fwdPKfPf'"), demangled here and matched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tuner/backend/cuda/nvrtc_compiler.hpp"

namespace attn {

// SYMBOL's function name as written in C++: the demangled name without its
// parameter list and, for a template instance, its return type
// ("_ZN2ns4tileILi8ELb1EEEvPf" -> "ns::tile<8, true>"). Empty when SYMBOL is not mangled.
std::string demangled_function_name(const std::string& symbol);

// The symbols of REPORT's entry functions that ENTRY names: the symbol itself
// (extern "C"), or those whose demangled_function_name is ENTRY, spaces ignored
// ("attn_fwd", "ns::attn_fwd", "tile<8, true>"). More than one: an overloaded name.
std::vector<std::string> entry_symbols_named(const PtxasReport& report, std::string_view entry);

}  // namespace attn

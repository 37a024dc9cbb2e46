#include "tuner/backend/cuda/entry_symbols.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace attn {
namespace {

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// "void ns::tile<8, true>(float*)" -> "ns::tile<8, true>": the parameter list is
// the last top-level parentheses; a return type ends at the last space outside them.
std::string function_name_of(std::string_view demangled) {
  std::size_t end = demangled.size();
  if (end > 0 && demangled[end - 1] == ')') {
    int depth = 0;
    for (std::size_t i = end; i-- > 0;) {
      if (demangled[i] == ')') ++depth;
      else if (demangled[i] == '(' && --depth == 0) {
        end = i;
        break;
      }
    }
  }
  std::size_t begin = 0;
  int nesting = 0;  // "<...>" and "(anonymous namespace)" hold spaces of their own
  for (std::size_t i = 0; i < end; ++i) {
    if (demangled[i] == '<' || demangled[i] == '(') ++nesting;
    else if (demangled[i] == '>' || demangled[i] == ')') --nesting;
    else if (demangled[i] == ' ' && nesting == 0) begin = i + 1;
  }
  return std::string(demangled.substr(begin, end - begin));
}

}  // namespace

std::string demangled_function_name(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) != 0) return {};
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                                        &std::free);
  if (status != 0 || !demangled) return {};
  return function_name_of(demangled.get());
}

std::vector<std::string> entry_symbols_named(const PtxasReport& report, std::string_view entry) {
  std::vector<std::string> exact, matched;
  const std::string wanted = without_spaces(entry);
  for (const PtxasFunction& f : report.functions) {
    if (!f.is_entry) continue;
    if (f.name == entry) exact.push_back(f.name);
    else if (const std::string name = demangled_function_name(f.name); !name.empty() && without_spaces(name) == wanted)
      matched.push_back(f.name);
  }
  return exact.empty() ? matched : exact;
}

}  // namespace attn

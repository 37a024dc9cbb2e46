// A shape's CPU reference, computed once and kept (cache/reference_store.hpp) under a key naming all it is
// computed from: the running build, the operation, the shape's fields, the seed, the verified rows and the
// bytes of every input (a shape's inputs may come from an example file, which can change under the same name).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tuner/cache/reference_store.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {

// Empty when the running build cannot be named: nothing is kept under it then.
std::string reference_key(const Problem& problem, const std::string& operation, const nlohmann::json& fields,
                          std::uint64_t seed, const Tolerance& tol);

// PROBLEM's reference for TOL's rows, from STORE when an identical problem's is kept there, else computed (and
// kept, when the problem's reference can be). Returns whether it came from the store.
bool prepare_reference(const Problem& problem, const std::string& operation, const nlohmann::json& fields,
                       std::uint64_t seed, const Tolerance& tol, const ReferenceStore& store);

}  // namespace attn

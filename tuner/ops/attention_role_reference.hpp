// A custom operation verified against the attention operation's own CPU reference (the one every attention
// spec is checked with: GQA, causal, window, masks in every layout, sinks, ALiBi, softcap, any scale), its
// buffers bound to the reference's roles and its shape mapped onto the attention fields:
//   "reference": {"attention": {"roles": {"q": "Q", "k": "K", "v": "V", "o": "O", "mask": "M"},
//                               "shape": {"B": "B", "Hq": "H", "Hkv": "H / G", "Nq": "N", "D": 64,
//                                         "causal": 1, "softcap": 30.0, "mask_layout": "bhqk"}}}
// Buffers are [B][H][N][D]; the mask as mask_layout lays it out; sinks [Hq]. mask and sinks are on exactly
// when a buffer is bound to them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/spec/expression.hpp"

namespace attn {

// The key of custom.reference that binds it.
inline constexpr const char* kAttentionRoleReferenceKey = "attention";

struct AttentionRoleReference {
  std::map<std::string, std::string> roles;  // role (q, k, v, o, mask, sinks) -> buffer
  // Attention shape fields: integer ones as expressions over the custom shape fields, the others as given.
  std::map<std::string, std::shared_ptr<const Expression>> integers;
  std::map<std::string, nlohmann::json> literals;
};

// The roles, the ones a binding must give, and the attention fields a binding may set.
const std::vector<std::string>& attention_roles();
bool attention_role_required(const std::string& role);
// The attention operation's fields: "integer", "number" or "choice" (with CHOICES), or "" when not one.
std::string attention_field_kind(const std::string& name, std::vector<std::string>* choices = nullptr);

// The attention shape's fields on the custom shape VARS: the binding's, then the operation's defaults.
nlohmann::json attention_fields(const AttentionRoleReference& ref, const Bindings& vars);

// Empty, or what is wrong on VARS: the attention shape's own check, then each bound buffer's element count
// (SIZE_OF gives a buffer's) against what its role needs.
std::string attention_role_problem(const AttentionRoleReference& ref, const Bindings& vars,
                                   const std::function<long long(const std::string& buffer)>& size_of);

// The reference output (role o) from the bound buffers' values (VALUES_OF gives a buffer's, as doubles).
std::vector<double> attention_role_output(const AttentionRoleReference& ref, const Bindings& vars,
                                          const std::function<std::vector<double>(const std::string&)>& values_of);

}  // namespace attn

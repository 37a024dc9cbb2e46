// Shape buckets: which problem shapes share one row of a tuned table.
//
// A bucket takes some of a shape's fields exactly (attention: dtype, head dim
// D, causal) and puts the sequence lengths into power-of-two ranges (Nq and
// Nkv in [2^k, 2^(k+1))). Operations without a scheme of their own bucket
// every field: integers by power-of-two range, the rest exactly.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

enum class BucketRule { exact, pow2_range };

// How a field's value is typed in generated code.
enum class FieldType { integer, number, text };

struct BucketField {
  std::string name;
  BucketRule rule = BucketRule::exact;
  FieldType type = FieldType::integer;
};

struct BucketValue {
  nlohmann::json exact;      // BucketRule::exact: the value itself
  long long lo = 0, hi = 0;  // BucketRule::pow2_range: [lo, hi), lo a power of two (or [0, 1))
};

struct ShapeBucket {
  std::vector<BucketValue> values;  // one per field of the scheme, in its order

  // "dtype=f16 D=128 causal=1 Nq=[1024,2048) Nkv=[1024,2048)": a readable
  // label that is also the bucket's identity (equal labels, equal buckets).
  std::string label(const std::vector<BucketField>& fields) const;
};

// The scheme of OPERATION for shapes with SHAPES_FIELDS (each a shape's fields,
// which fill the scheme in for operations without one). Throws UsageError when
// a field the scheme needs is missing.
std::vector<BucketField> bucket_scheme(const std::string& operation, const std::vector<nlohmann::json>& shapes_fields);

// Throws UsageError when FIELDS lacks one the scheme needs or has the wrong type.
ShapeBucket bucket_of(const std::vector<BucketField>& scheme, const nlohmann::json& fields);

// [2^k, 2^(k+1)) holding VALUE; [0, 1) for values below 1.
std::pair<long long, long long> pow2_range(long long value);

}  // namespace attn

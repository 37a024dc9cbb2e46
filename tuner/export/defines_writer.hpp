// `attn-tune export --format defines`: one device's and one shape's tuned
// parameters as `#ifndef NAME / #define NAME VALUE / #endif` blocks, for a
// kernel source to include before its own defaults.
#pragma once

#include <string>
#include <vector>

#include "tuner/record/leaderboard_reader.hpp"

namespace attn {

struct DefinesRequest {
  std::string device;   // a device name, exactly or a unique part of it ("H200")
  std::string shape;    // a shape name of the leaderboards
  std::string kernel;   // "kernel" or "spec/kernel"; may be empty when one kernel ran the shape
  std::string command;  // the command line, to regenerate the file
};

// Throws UsageError, listing what exists, when the device, the shape or the
// kernel match nothing or more than one, or when nothing ranked there.
std::string write_defines(const std::vector<Leaderboard>& leaderboards, const DefinesRequest& request);

}  // namespace attn

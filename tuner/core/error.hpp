// Error types. The library throws; the runner turns each into a configuration's
// status and the CLI turns the rest into a message and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad command-line use or input the user must fix (exit code 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

// A sweep spec that does not validate: "configs/x.json: params.BLOCK_M[2]: expected an integer".
class SpecError : public UsageError {
 public:
  SpecError(const std::string& file, const std::string& field, const std::string& message)
      : UsageError(file + ": " + (field.empty() ? "" : field + ": ") + message),
        file_(file),
        field_(field),
        message_(message) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, field_, message_;
};

// A kernel that did not compile; log() holds the compiler's output.
class CompileError : public Error {
 public:
  CompileError(const std::string& what, std::string log) : Error(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// A launch the backend refused or that failed while running.
class LaunchError : public Error {
 public:
  using Error::Error;
};

// The device context cannot be used any more (illegal address, trap...):
// the worker that owns it must be replaced.
class DeviceLost : public Error {
 public:
  using Error::Error;
};

// A backend API call failed outside compile/launch (allocation, copy, query).
class BackendError : public Error {
 public:
  using Error::Error;
};

}  // namespace attn

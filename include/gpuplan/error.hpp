#pragma once
// Errors gpuplan throws on purpose. The CLI maps InputError to exit code 2 and anything else
// to exit code 3 ("internal error"); a failed check the user asked for is a result, not an error.

#include <stdexcept>

namespace gpuplan {

/// Base of everything gpuplan throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Something the user supplied is wrong: a flag value, a file, a JSON field, a name. Exit code 2.
/// The message names the field (or file and JSON pointer) and the bad value.
class InputError : public Error {
 public:
  using Error::Error;
};

/// An InputError for a name no catalog holds (a model or GPU a measurement file's row names): a
/// catalog file given with --catalog can define it, which the CLI may point to.
class UnknownNameError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace gpuplan

// Errors are values: a stable id that tests assert on, and a message for people.
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace llmsizer {

struct Error {
  std::string id;       // stable, e.g. "config.missing_field"
  std::string message;  // one line, names the field or value at fault
};

template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}          // NOLINT(implicit)
  Result(Error error) : data_(std::move(error)) {}      // NOLINT(implicit)

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const Error& error() const { return std::get<Error>(data_); }

 private:
  std::variant<T, Error> data_;
};

}  // namespace llmsizer

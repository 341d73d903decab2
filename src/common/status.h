// Status and StatusOr<T>: errors as values across module boundaries.
//
// A Status is either OK or carries a code and a message. The codes keep apart
// outcomes that callers treat differently: invalid input (kInvalidArgument),
// a limit that was hit (kResourceExhausted), a missing object (kNotFound) and a
// failure of the system itself (kInternal, kUnavailable, kDataLoss).
#ifndef DRALLOC_COMMON_STATUS_H_
#define DRALLOC_COMMON_STATUS_H_

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace dralloc {

enum class StatusCode {
  kOk = 0,
  kCancelled,
  kInvalidArgument,
  kDeadlineExceeded,
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kAborted,
  kOutOfRange,
  kResourceExhausted,
  kUnimplemented,
  kInternal,
  kUnavailable,
  kDataLoss,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "CODE_NAME: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "prefix: message" (no-op when OK).
  Status WithPrefix(std::string_view prefix) const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFoundError(std::string m) {
  return {StatusCode::kNotFound, std::move(m)};
}
inline Status AlreadyExistsError(std::string m) {
  return {StatusCode::kAlreadyExists, std::move(m)};
}
inline Status FailedPreconditionError(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status OutOfRangeError(std::string m) {
  return {StatusCode::kOutOfRange, std::move(m)};
}
inline Status ResourceExhaustedError(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status UnimplementedError(std::string m) {
  return {StatusCode::kUnimplemented, std::move(m)};
}
inline Status InternalError(std::string m) {
  return {StatusCode::kInternal, std::move(m)};
}
inline Status UnavailableError(std::string m) {
  return {StatusCode::kUnavailable, std::move(m)};
}
inline Status DataLossError(std::string m) {
  return {StatusCode::kDataLoss, std::move(m)};
}

// StatusOr<T> holds either a value or a non-OK Status.
// Accessing value() of an error is a programmer error (checked by assert).
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const T& value) : value_(value) {}
  StatusOr(T&& value) : value_(std::move(value)) {}
  StatusOr(Status status) : status_(std::move(status)) {
    if (status_.ok())
      status_ = InternalError("StatusOr constructed from OK status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace dralloc

#define DRALLOC_CONCAT_INNER_(a, b) a##b
#define DRALLOC_CONCAT_(a, b) DRALLOC_CONCAT_INNER_(a, b)

// Returns the Status of `expr` from the enclosing function if it is not OK.
#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::dralloc::Status dralloc_status_ = (expr);        \
    if (!dralloc_status_.ok()) return dralloc_status_; \
  } while (0)

// Evaluates `expr` (a StatusOr); returns its Status on error, else moves the
// value into `lhs` (which may be a declaration such as `auto x`).
#define ASSIGN_OR_RETURN(lhs, expr)                                         \
  ASSIGN_OR_RETURN_IMPL_(DRALLOC_CONCAT_(dralloc_statusor_, __LINE__), lhs, \
                         expr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

#endif  // DRALLOC_COMMON_STATUS_H_

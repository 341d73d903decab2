// LoadTarget: the API server a load run talks to, and how to reach it.
//
// The load generator is a local benchmark. It accepts only loopback targets
// (http:// or https:// to 127.0.0.1:PORT or localhost:PORT) so that it can
// never be pointed at a real cluster by mistake.
#ifndef DRALLOC_BENCH_LOAD_LOAD_TARGET_H_
#define DRALLOC_BENCH_LOAD_LOAD_TARGET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace dralloc::load {

struct LoadTarget {
  // Always "127.0.0.1": localhost is resolved here, nothing else is allowed.
  std::string host;
  std::uint16_t port = 0;
  // https:// target: every connection is TLS (tls_context must be set).
  bool tls = false;
  // The host as the URL wrote it ("127.0.0.1" or "localhost"): the name the
  // server certificate must carry (an IP SAN or a DNS SAN), and the SNI name
  // when it is not an address.
  std::string server_name = "127.0.0.1";
  // Shared by every connection: CA to verify the server, client certificate
  // and key. Creating streams from one context is thread-safe.
  std::shared_ptr<boost::asio::ssl::context> tls_context;
  // Authorization header value sent on every request ("Bearer TOKEN");
  // empty sends none.
  std::string authorization;

  // Value for the HTTP Host header ("127.0.0.1:PORT").
  std::string HostHeader() const;
};

// Parses "http://HOST:PORT" or "https://HOST:PORT" with HOST 127.0.0.1 or
// localhost, optionally followed by a single "/". Any other scheme, host or
// path is kInvalidArgument. Sets `tls` for https; the caller supplies the
// TLS context and credentials (see TargetFlags).
StatusOr<LoadTarget> ParseLoadTarget(std::string_view url);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_LOAD_TARGET_H_

#include "hub_client.hpp"

#include <curl/curl.h>

#include <memory>

namespace llmsizer::cli {
namespace {

struct Sink {
  std::string body;
  std::size_t limit = 0;  // bytes kept; the transfer stops once they are in
  bool over = false;      // more arrived than the limit
};

std::size_t keep(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t n = size * count;
  const std::size_t room = sink->limit > sink->body.size() ? sink->limit - sink->body.size() : 0;
  sink->body.append(data, std::min(n, room));
  if (n > room) {
    sink->over = true;
    return 0;  // stops the transfer: the rest is not wanted
  }
  return n;
}

std::string host_of(const std::string& url) {
  const std::size_t scheme = url.find("://");
  const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const std::size_t end = url.find_first_of("/?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

Error status_error(long status, const std::string& what) {
  if (status == 401 || status == 403)
    return Error{"hub.gated", what + " is gated or private (HTTP " + std::to_string(status) +
                                  "): accept its licence on the Hub, then set HF_TOKEN, or paste its config.json"};
  if (status == 404) return Error{"hub.not_found", what + " is not on the Hub (HTTP 404): check the name"};
  if (status == 429)
    return Error{"hub.rate_limited", "the Hub is limiting requests (HTTP 429): wait a minute and try again, or set HF_TOKEN"};
  return Error{"hub.http", "the Hub answered HTTP " + std::to_string(status) + " for " + what};
}

}  // namespace

HubClient::HubClient(HubOptions options) : options_(std::move(options)) { curl_global_init(CURL_GLOBAL_DEFAULT); }
HubClient::~HubClient() { curl_global_cleanup(); }

Result<std::string> HubClient::get(const std::string& path, std::int64_t max_bytes, const std::string& what) const {
  return fetch(path, -1, 0, max_bytes, what);
}

Result<std::string> HubClient::get_range(const std::string& path, std::int64_t offset, std::int64_t length,
                                         const std::string& what) const {
  return fetch(path, offset, length, length, what);
}

Result<std::string> HubClient::fetch(const std::string& path, std::int64_t offset, std::int64_t length,
                                     std::int64_t max_bytes, const std::string& what) const {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Error{"hub.network", "cannot start an HTTP client"};
  const std::string url = options_.base_url + path;
  Sink sink;
  // Range answers hold length bytes; a server that ignores the range sends the
  // whole file, whose first bytes are the same when offset is 0.
  sink.limit = static_cast<std::size_t>(max_bytes);
  curl_slist* headers = nullptr;
  if (!options_.token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + options_.token).c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  // The token goes to the Hub's host only, never to the host a redirect names.
  curl_easy_setopt(c, CURLOPT_UNRESTRICTED_AUTH, 0L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "llm-sizer");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  if (header_list) curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  std::string range;
  if (offset >= 0) {
    range = std::to_string(offset) + "-" + std::to_string(offset + length - 1);
    curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  }
  const CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (code == CURLE_WRITE_ERROR && sink.over) {
    if (status != 200 && status != 206) return status_error(status, what);
    if (offset < 0) return Error{"hub.too_large", what + " is larger than " + std::to_string(max_bytes >> 20) + " MiB"};
    if (status == 200 && offset > 0)
      return Error{"hub.http", host_of(url) + " ignored the byte range asked for " + what};
    return std::move(sink.body);  // the range's bytes, the rest of a whole-file answer dropped
  }
  if (code != CURLE_OK)
    return Error{"hub.network", "cannot reach " + host_of(url) + " for " + what + ": " + curl_easy_strerror(code)};
  if (status != 200 && status != 206) return status_error(status, what);
  if (status == 200 && offset > 0) return Error{"hub.http", host_of(url) + " ignored the byte range asked for " + what};
  return std::move(sink.body);
}

}  // namespace llmsizer::cli

// HTTP GETs to the Hugging Face Hub (or a mirror given by --hub-url) with
// libcurl: whole small files, byte ranges of large ones, redirects followed
// (the Hub sends large files to its CDN). Each failure the Hub answers with
// becomes one message that says what to do.
#pragma once
#include <cstdint>
#include <string>

#include "llmsizer/result.hpp"

namespace llmsizer::cli {

struct HubOptions {
  std::string base_url = "https://huggingface.co";  // no trailing slash
  std::string token;                                 // HF_TOKEN: sent to the base host only
};

class HubClient {
 public:
  explicit HubClient(HubOptions options);
  ~HubClient();
  HubClient(const HubClient&) = delete;
  HubClient& operator=(const HubClient&) = delete;

  const HubOptions& options() const { return options_; }

  // The body of base_url + path, at most max_bytes (else "hub.too_large").
  // `what` names the thing asked for in messages ("the repo unsloth/X").
  Result<std::string> get(const std::string& path, std::int64_t max_bytes, const std::string& what) const;

  // length bytes from offset of base_url + path (fewer at the end of the file).
  Result<std::string> get_range(const std::string& path, std::int64_t offset, std::int64_t length,
                                const std::string& what) const;

 private:
  Result<std::string> fetch(const std::string& path, std::int64_t offset, std::int64_t length, std::int64_t max_bytes,
                            const std::string& what) const;
  HubOptions options_;
};

}  // namespace llmsizer::cli

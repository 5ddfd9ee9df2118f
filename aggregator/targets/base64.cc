// Base64 on OpenSSL's EVP block coder (see base64.h).
#include "aggregator/targets/base64.h"

#include <openssl/evp.h>

namespace agt::agg {

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

core::Result<std::string> Base64Decode(std::string_view text) {
  if (text.empty()) return std::string();
  if (text.size() % 4 != 0) return core::MakeError(core::Err::kPayloadInvalid, "base64 of odd length");
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return core::MakeError(core::Err::kPayloadInvalid, "not base64");
  // EVP_DecodeBlock counts the padding as zero bytes.
  const size_t pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : text.back() == '=' ? 1 : 0;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace agt::agg

// Reading a field of a daemon answer (an API item, a hook payload) that may
// be missing or of another type: the CLI's one copy of these getters.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

namespace agt::cli {

/// o[key] as a string (NUL bytes kept), "" when absent or not a string.
inline std::string JsonStr(const rapidjson::Value& o, const char* key) {
  if (!o.IsObject()) return "";
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

/// o[key] as an integer, `fallback` when absent or not an integer.
inline int64_t JsonInt(const rapidjson::Value& o, const char* key, int64_t fallback = 0) {
  if (!o.IsObject()) return fallback;
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsInt64()) return fallback;
  return it->value.GetInt64();
}

/// o[key], or a null value when absent.
inline const rapidjson::Value& JsonObj(const rapidjson::Value& o, const char* key) {
  static const rapidjson::Value null_value;
  if (!o.IsObject()) return null_value;
  auto it = o.FindMember(key);
  return it == o.MemberEnd() ? null_value : it->value;
}

}  // namespace agt::cli

// Small helpers over RapidJSON's Writer, so the API code reads as the shape
// it produces. Every response body the daemon sends is built with these.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "libagtcore/vocabulary.h"

namespace agt::agg {

class JsonOut {
 public:
  JsonOut() : w_(sb_) {}
  JsonOut& Key(std::string_view k) {
    w_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    return *this;
  }
  JsonOut& Str(std::string_view v) {
    w_.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
    return *this;
  }
  JsonOut& Int(int64_t v) {
    w_.Int64(v);
    return *this;
  }
  JsonOut& Bool(bool v) {
    w_.Bool(v);
    return *this;
  }
  JsonOut& Null() {
    w_.Null();
    return *this;
  }
  /// RFC 3339, or null for 0.
  JsonOut& Time(core::TimeNs t);
  /// Inserts already-serialised JSON (an item rendered earlier).
  JsonOut& Raw(std::string_view json) {
    w_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
    return *this;
  }
  /// Inserts one value serialised in pieces (an item cached around the
  /// field computed per read), without joining them first.
  JsonOut& RawPieces(std::string_view first, std::string_view middle, std::string_view last) {
    w_.RawValue(first.data(), first.size(), rapidjson::kObjectType);
    for (std::string_view piece : {middle, last}) std::memcpy(sb_.Push(piece.size()), piece.data(), piece.size());
    return *this;
  }
  JsonOut& BeginObject() {
    w_.StartObject();
    return *this;
  }
  JsonOut& EndObject() {
    w_.EndObject();
    return *this;
  }
  JsonOut& BeginArray() {
    w_.StartArray();
    return *this;
  }
  JsonOut& EndArray() {
    w_.EndArray();
    return *this;
  }
  std::string Take() const { return std::string(sb_.GetString(), sb_.GetSize()); }

 private:
  rapidjson::StringBuffer sb_;
  rapidjson::Writer<rapidjson::StringBuffer> w_;
};

}  // namespace agt::agg

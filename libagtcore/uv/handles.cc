// WriteOwned and CloseAll (see handles.h): one heap record per write or per
// close, freed by its last callback.
#include "libagtcore/uv/handles.h"

#include <utility>

namespace agt::uv {
namespace {

struct OwnedWrite {
  uv_write_t req;
  std::string data;
  std::function<void(int)> done;
};

struct PendingClose {
  int left = 0;
  std::function<void()> done;
};

}  // namespace

int WriteOwned(uv_stream_t* stream, std::string data, std::function<void(int status)> done) {
  auto* w = new OwnedWrite{{}, std::move(data), std::move(done)};
  w->req.data = w;
  uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  const int rc = uv_write(&w->req, stream, &buf, 1, [](uv_write_t* req, int status) {
    auto* self = static_cast<OwnedWrite*>(req->data);
    std::function<void(int)> cb = std::move(self->done);
    delete self;
    if (cb) cb(status);
  });
  if (rc != 0) delete w;
  return rc;
}

void CloseAll(std::initializer_list<uv_handle_t*> handles, std::function<void()> done) {
  auto* pending = new PendingClose{0, std::move(done)};
  for (uv_handle_t* h : handles)
    if (h != nullptr && !uv_is_closing(h)) ++pending->left;
  if (pending->left == 0) {
    std::function<void()> cb = std::move(pending->done);
    delete pending;
    if (cb) cb();
    return;
  }
  for (uv_handle_t* h : handles) {
    if (h == nullptr || uv_is_closing(h)) continue;
    h->data = pending;
    uv_close(h, [](uv_handle_t* closed) {
      auto* p = static_cast<PendingClose*>(closed->data);
      if (--p->left > 0) return;
      std::function<void()> cb = std::move(p->done);
      delete p;
      if (cb) cb();
    });
  }
}

}  // namespace agt::uv

// The two libuv lifetimes agtmux would otherwise hand-write in each loop
// user (the daemon's HTTP server, the wrapper's event emitter, the tmux
// control client): a write whose request owns its bytes until libuv is done
// with them, and the close of an object's handles that frees the object
// only after the last close callback has run.
#pragma once

#include <uv.h>

#include <functional>
#include <initializer_list>
#include <string>

namespace agt::uv {

/// Queues `data` on `stream`; the write request owns the bytes and frees
/// itself in the callback. `done`, when given, gets the status: 0, or a
/// negative libuv error (UV_ECANCELED when the stream was closed first; a
/// cancelled write is called back before the stream's close callback).
/// Returns uv_write's own result: non-zero means nothing was queued and
/// `done` is never called.
int WriteOwned(uv_stream_t* stream, std::string data, std::function<void(int status)> done = {});

/// Closes every handle in `handles` that is not already closing, and calls
/// `done` once, after the last of their close callbacks (at once when none
/// needed closing). The handles' `data` fields belong to this close from
/// the call on; free the memory that holds the handles in `done`.
void CloseAll(std::initializer_list<uv_handle_t*> handles, std::function<void()> done);

/// Closes a handle allocated with `new T` and deletes it in the close
/// callback (a timer an object owns by pointer, for instance).
template <typename T>
void CloseAndDelete(T* handle) {
  if (handle == nullptr) return;
  uv_close(reinterpret_cast<uv_handle_t*>(handle),
           [](uv_handle_t* h) { delete reinterpret_cast<T*>(h); });
}

/// `handle` as the uv_handle_t* the generic calls take.
template <typename T>
uv_handle_t* AsHandle(T* handle) {
  return reinterpret_cast<uv_handle_t*>(handle);
}

}  // namespace agt::uv

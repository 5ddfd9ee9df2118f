// ChildSet (see child_process.h). A child is done when three things have
// happened: it exited (uv's exit callback, which reaps it), its stdout
// reached EOF (when captured: a grandchild may hold the pipe, so the
// timeout closes it too), and its handles are closed; then it is freed.
#include "aggregator/notify/child_process.h"

#include <signal.h>

#include <algorithm>
#include <cstring>

#include "libagtcore/uv/handles.h"

extern char** environ;

namespace agt::agg {

struct ChildSet::Child {
  ChildSet* owner = nullptr;
  uv_process_t process{};
  uv_pipe_t out{};
  uv_timer_t timer{};
  bool capture = false;
  bool exited = false, eof = false, closing = false;
  size_t max_output = 0;
  ChildExit result;
  std::function<void(const ChildExit&)> done;

  void MaybeFinish() {
    if (!exited || (capture && !eof) || closing) return;
    closing = true;
    if (owner != nullptr && done) done(result);
    if (owner != nullptr) owner->Finished(this);
    Close();
  }
  void Close() {
    closing = true;
    if (capture) {
      uv::CloseAll({uv::AsHandle(&process), uv::AsHandle(&out), uv::AsHandle(&timer)}, [this] { delete this; });
    } else {
      uv::CloseAll({uv::AsHandle(&process), uv::AsHandle(&timer)}, [this] { delete this; });
    }
  }
  void KillGroup() {
    if (process.pid > 0) ::kill(-process.pid, SIGKILL);  // its own group (UV_PROCESS_DETACHED)
  }
};

ChildSet::~ChildSet() {
  for (Child* c : children_) {
    c->owner = nullptr;
    c->done = nullptr;
    if (!c->exited) c->KillGroup();
    c->Close();
  }
}

void ChildSet::Finished(Child* c) { children_.erase(std::remove(children_.begin(), children_.end(), c), children_.end()); }

core::Status ChildSet::Spawn(ChildOptions options, std::function<void(const ChildExit&)> done) {
  if (options.argv.empty()) return core::MakeError(core::Err::kInternal, "spawn: empty argv");
  // The environment: the daemon's, with options.env set over it.
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    std::string_view name = kv.substr(0, kv.find('='));
    bool replaced = std::any_of(options.env.begin(), options.env.end(),
                                [&](const auto& p) { return p.first == name; });
    if (!replaced) env.emplace_back(kv);
  }
  for (const auto& [k, v] : options.env) env.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (auto& a : options.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  auto* c = new Child;
  c->capture = options.capture_stdout;
  c->max_output = options.max_output;
  c->done = std::move(done);
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;
  stdio[2].flags = UV_IGNORE;
  if (c->capture) {
    uv_pipe_init(loop_, &c->out, 0);
    c->out.data = c;
    stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&c->out);
  } else {
    stdio[1].flags = UV_IGNORE;
  }
  uv_process_options_t po{};
  po.file = argv[0];
  po.args = argv.data();
  po.env = envp.data();
  po.stdio = stdio;
  po.stdio_count = 3;
  po.flags = UV_PROCESS_DETACHED;
  po.exit_cb = [](uv_process_t* p, int64_t status, int sig) {
    auto* ch = static_cast<Child*>(p->data);
    ch->exited = true;
    if (!ch->result.timed_out) ch->result.exit_status = sig != 0 ? 128 + sig : status;
    uv_timer_stop(&ch->timer);
    ch->MaybeFinish();
  };
  c->process.data = c;
  uv_timer_init(loop_, &c->timer);
  c->timer.data = c;
  if (int rc = uv_spawn(loop_, &c->process, &po); rc != 0) {
    std::string why = std::string("cannot start ") + options.argv[0] + ": " + uv_strerror(rc);
    c->exited = true;  // nothing to wait for; closes the handles (a failed spawn's too)
    c->Close();
    return core::MakeError(core::Err::kIo, why);
  }
  c->owner = this;
  children_.push_back(c);
  if (c->capture) {
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&c->out),
        [](uv_handle_t*, size_t suggested, uv_buf_t* buf) {
          buf->base = new char[suggested];
          buf->len = suggested;
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
          auto* ch = static_cast<Child*>(s->data);
          if (n > 0 && ch->result.out.size() < ch->max_output)
            ch->result.out.append(buf->base, std::min(static_cast<size_t>(n), ch->max_output - ch->result.out.size()));
          delete[] buf->base;
          if (n < 0) {
            uv_read_stop(s);
            ch->eof = true;
            ch->MaybeFinish();
          }
        });
  }
  uv_timer_start(
      &c->timer,
      [](uv_timer_t* t) {
        auto* ch = static_cast<Child*>(t->data);
        ch->result.timed_out = true;
        ch->result.exit_status = 128 + SIGKILL;
        ch->KillGroup();
        if (ch->capture && !ch->eof) {  // a grandchild may still hold the pipe
          uv_read_stop(reinterpret_cast<uv_stream_t*>(&ch->out));
          ch->eof = true;
        }
        ch->MaybeFinish();
      },
      static_cast<uint64_t>(std::max<core::TimeNs>(options.timeout / core::kNsPerMs, 1)), 0);
  return core::Ok();
}

}  // namespace agt::agg

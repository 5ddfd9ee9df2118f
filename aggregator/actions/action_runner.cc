// The action runners (action_runner.h). The worker runner keeps one shared
// block per runner: the job queue its threads take work from, and the
// results they hand back to the loop through a uv_async_t. Threads are
// started as work arrives (up to the bound), then wait for more; they are
// detached and hold the shared block alive, so nothing they touch is freed
// under them, whenever the daemon exits.
#include "aggregator/actions/action_runner.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace agt::agg {
namespace {

class InlineRunner final : public ActionRunner {
 public:
  void Submit(std::function<void()> work, std::function<void()> done) override {
    work();
    done();
  }
  void ToLoop(std::function<void()> fn) override { fn(); }
  void Detach() override {}
};

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> jobs;
  std::deque<std::function<void()>> results;
  uv_async_t async{};
  bool attached = true;  // false once Detach ran: nothing reaches the loop any more
  int threads = 0;
  int idle = 0;
  int max_threads = 1;

  /// From any thread: `fn` will run on the loop (dropped after Detach).
  void Post(std::function<void()> fn) {
    std::lock_guard<std::mutex> l(mu);
    if (!attached) return;
    results.push_back(std::move(fn));
    uv_async_send(&async);
  }
};

void Work(std::shared_ptr<Shared> s) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> l(s->mu);
      ++s->idle;
      s->cv.wait(l, [&] { return !s->jobs.empty(); });
      --s->idle;
      job = std::move(s->jobs.front());
      s->jobs.pop_front();
    }
    job();
  }
}

class WorkerRunner final : public ActionRunner {
 public:
  WorkerRunner(uv_loop_t* loop, int workers) : s_(std::make_shared<Shared>()) {
    s_->max_threads = workers > 0 ? workers : 1;
    uv_async_init(loop, &s_->async, [](uv_async_t* a) {
      Shared* s = static_cast<std::shared_ptr<Shared>*>(a->data)->get();
      std::deque<std::function<void()>> ready;
      {
        std::lock_guard<std::mutex> l(s->mu);
        ready.swap(s->results);
      }
      for (auto& fn : ready) fn();
    });
    // The handle keeps its block alive until its close callback.
    s_->async.data = new std::shared_ptr<Shared>(s_);
  }
  ~WorkerRunner() override { Detach(); }

  void Submit(std::function<void()> work, std::function<void()> done) override {
    std::shared_ptr<Shared> s = s_;
    std::lock_guard<std::mutex> l(s->mu);
    if (!s->attached) return;
    s->jobs.push_back([s, work = std::move(work), done = std::move(done)]() mutable {
      work();
      s->Post(std::move(done));
    });
    if (static_cast<int>(s->jobs.size()) > s->idle && s->threads < s->max_threads) {
      ++s->threads;
      std::thread(Work, s).detach();
    }
    s->cv.notify_one();
  }

  void ToLoop(std::function<void()> fn) override { s_->Post(std::move(fn)); }

  void Detach() override {
    std::deque<std::function<void()>> dropped_jobs, dropped_results;
    {
      std::lock_guard<std::mutex> l(s_->mu);
      if (!s_->attached) return;
      s_->attached = false;
      dropped_jobs.swap(s_->jobs);
      dropped_results.swap(s_->results);
    }
    uv_handle_t* h = reinterpret_cast<uv_handle_t*>(&s_->async);
    if (uv_is_closing(h)) {
      // Closed already by the daemon's final walk over the loop (without a
      // callback), and the loop has run since: the handle is done with.
      delete static_cast<std::shared_ptr<Shared>*>(h->data);
      return;
    }
    uv_close(h, [](uv_handle_t* h) { delete static_cast<std::shared_ptr<Shared>*>(h->data); });
  }

 private:
  std::shared_ptr<Shared> s_;
};

}  // namespace

std::unique_ptr<ActionRunner> MakeInlineRunner() { return std::make_unique<InlineRunner>(); }

std::unique_ptr<ActionRunner> MakeWorkerRunner(uv_loop_t* loop, int workers) {
  return std::make_unique<WorkerRunner>(loop, workers);
}

}  // namespace agt::agg

// Worker (see worker.h): a queue and a thread; results come back through
// a pipe so the UI's poll wakes for them. The thread is detached and owns
// a reference to the shared queue, so the UI can quit while a job waits on
// the daemon.
#include "cli/ui/worker.h"

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "libagtcore/os/unique_fd.h"

namespace agt::cli::ui {

struct Worker::Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Job> jobs;
  std::deque<std::function<void()>> done;
  bool stop = false;
  core::UniqueFd read_end, write_end;
};

Worker::Worker() : shared_(std::make_shared<Shared>()) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    shared_->read_end = core::UniqueFd(fds[0]);
    shared_->write_end = core::UniqueFd(fds[1]);
  }
  std::thread([s = shared_] {
    while (true) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(s->mu);
        s->cv.wait(lock, [&] { return s->stop || !s->jobs.empty(); });
        if (s->stop) return;
        job = std::move(s->jobs.front());
        s->jobs.pop_front();
      }
      std::function<void()> result = job();
      std::lock_guard<std::mutex> lock(s->mu);
      if (s->stop) return;
      s->done.push_back(std::move(result));
      char b = 1;
      (void)!::write(s->write_end.get(), &b, 1);
    }
  }).detach();
}

Worker::~Worker() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->stop = true;
  shared_->cv.notify_all();
}

int Worker::fd() const { return shared_->read_end.get(); }

void Worker::Post(Job job) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->jobs.push_back(std::move(job));
  ++posted_;
  shared_->cv.notify_all();
}

void Worker::Deliver() {
  char buf[64];
  while (::read(shared_->read_end.get(), buf, sizeof buf) > 0) {
  }
  std::deque<std::function<void()>> done;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    done.swap(shared_->done);
  }
  for (auto& f : done) {
    ++delivered_;
    if (f) f();
  }
}

int Worker::pending() const { return posted_ - delivered_; }

}  // namespace agt::cli::ui

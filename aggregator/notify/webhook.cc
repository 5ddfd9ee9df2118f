// WebhookSender (see webhook.h). libcurl's easy interface, one handle per
// request, on a thread-pool thread: no signals (CURLOPT_NOSIGNAL, required
// off the main thread), http and https only, no redirects followed, the
// whole transfer bounded by the timeout, and a progress callback that
// aborts when the daemon is going away.
#include "aggregator/notify/webhook.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace agt::agg {
namespace {

struct Job {
  uv_work_t req{};
  WebhookPost post;
  std::shared_ptr<std::atomic<bool>> cancel;
  std::function<void(const std::string&)> done;
  std::string error;
};

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

int Progress(void* clientp, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<std::atomic<bool>*>(clientp)->load() ? 1 : 0;  // non-zero aborts
}

std::string Send(const WebhookPost& p, std::atomic<bool>* cancel) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return "curl_easy_init failed";
  curl_slist* headers = nullptr;
  for (const std::string& h : {"Title: " + p.title, "Priority: " + p.priority, "Tags: " + p.tags,
                               std::string("Content-Type: text/plain; charset=utf-8")})
    headers = curl_slist_append(headers, h.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> owned(headers, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, p.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, p.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(p.body.size()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(p.timeout / core::kNsPerMs));
  curl_easy_setopt(c, CURLOPT_USERAGENT, "agtmuxd");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Discard);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, Progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, cancel);
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) return curl_easy_strerror(rc);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) return "HTTP " + std::to_string(status);
  return "";
}

}  // namespace

WebhookSender::WebhookSender(uv_loop_t* loop) : loop_(loop) {
  // Not thread-safe, so once, here on the loop thread, before any request.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

WebhookSender::~WebhookSender() { cancel_->store(true); }

void WebhookSender::Post(WebhookPost post, std::function<void(const std::string&)> done) {
  auto* job = new Job;
  job->req.data = job;
  job->post = std::move(post);
  job->cancel = cancel_;
  job->done = std::move(done);
  int rc = uv_queue_work(
      loop_, &job->req,
      [](uv_work_t* r) {
        auto* j = static_cast<Job*>(r->data);
        j->error = Send(j->post, j->cancel.get());
      },
      [](uv_work_t* r, int status) {
        std::unique_ptr<Job> j(static_cast<Job*>(r->data));
        if (j->cancel->load() || !j->done) return;  // the sender is gone
        j->done(status == UV_ECANCELED ? std::string("cancelled") : j->error);
      });
  if (rc != 0) {
    std::string why = std::string("cannot queue the request: ") + uv_strerror(rc);
    auto cb = std::move(job->done);
    delete job;
    if (cb) cb(why);
  }
}

}  // namespace agt::agg

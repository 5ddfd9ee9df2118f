// The SQLite wrappers of sqlite.h. Statements are prepared once per
// connection with SQLITE_PREPARE_PERSISTENT and reused: the ingest path
// binds and steps the same handful of statements thousands of times a
// second, and re-preparing them would cost more than the writes.
#include "state/store/sqlite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace agt::state::sql {

core::Error StoreError(sqlite3* db, std::string_view what) {
  std::string msg(what);
  if (db != nullptr) {
    msg += ": ";
    msg += sqlite3_errmsg(db);
    msg += " (code " + std::to_string(sqlite3_extended_errcode(db)) + ")";
  }
  return core::MakeError(core::Err::kStore, std::move(msg));
}

Stmt::~Stmt() {
  if (s_ != nullptr) {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
}

Stmt& Stmt::Bind(int i, int64_t v) {
  sqlite3_bind_int64(s_, i, v);
  return *this;
}

Stmt& Stmt::Bind(int i, std::string_view v) {
  sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::BindStatic(int i, std::string_view v) {
  sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::BindNull(int i) {
  sqlite3_bind_null(s_, i);
  return *this;
}

Stmt& Stmt::BindOptText(int i, std::string_view v) {
  return v.empty() ? BindNull(i) : Bind(i, v);
}

Stmt& Stmt::BindOpt(int i, const std::optional<int64_t>& v) {
  return v ? Bind(i, *v) : BindNull(i);
}

Stmt& Stmt::BindOpt(int i, const std::optional<std::string>& v) {
  return v ? Bind(i, std::string_view(*v)) : BindNull(i);
}

Result<bool> Stmt::Step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return StoreError(db_, std::string("step `") + sqlite3_sql(s_) + "`");
}

Status Stmt::Run() {
  for (;;) {
    auto r = Step();
    if (!r.ok()) return r.error();
    if (!*r) return core::Ok();
  }
}

std::string Stmt::Text(int col) const {
  const auto* p = sqlite3_column_text(s_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(s_, col)));
}

std::optional<int64_t> Stmt::OptInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}

std::optional<std::string> Stmt::OptText(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Text(col);
}

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, Options options) {
  int flags = SQLITE_OPEN_NOMUTEX;
  if (options.read_only) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE;
    if (options.create) flags |= SQLITE_OPEN_CREATE;
  }
  // The store holds what agents asked and ran: 0600 whatever the umask.
  // SQLite gives the -wal and -shm files the database file's mode, so the
  // file is made (or narrowed) before SQLite opens it.
  if (!options.read_only && path != ":memory:" && !path.empty()) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | (options.create ? O_CREAT : 0), 0600);
    if (fd >= 0) {
      (void)::fchmod(fd, 0600);
      ::close(fd);
    }
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) {
    return StoreError(raw, "open " + path);
  }
  sqlite3_extended_result_codes(raw, 1);
  return std::unique_ptr<Db>(new Db(std::move(db)));
}

Status Db::Exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  if (sqlite3_exec(db_.get(), s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    return core::MakeError(core::Err::kStore,
                           "exec `" + s.substr(0, 80) + "`: " + msg);
  }
  return core::Ok();
}

Result<Stmt> Db::Prepare(std::string_view sql) {
  auto it = cache_.find(sql);  // no allocation on the hot path
  if (it == cache_.end()) {
    std::string key(sql);
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v3(db_.get(), key.data(), static_cast<int>(key.size()),
                                SQLITE_PREPARE_PERSISTENT, &s, nullptr);
    StmtPtr owned(s);
    if (rc != SQLITE_OK) return StoreError(db_.get(), "prepare `" + key + "`");
    it = cache_.emplace(std::move(key), std::move(owned)).first;
  }
  return Stmt(db_.get(), it->second.get());
}

Result<int64_t> Db::QueryInt(std::string_view sql) {
  auto st = Prepare(sql);
  if (!st.ok()) return st.error();
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return StoreError(nullptr, "no row from `" + std::string(sql) + "`");
  return st->Int(0);
}

Result<std::string> Db::QueryText(std::string_view sql) {
  auto st = Prepare(sql);
  if (!st.ok()) return st.error();
  auto row = st->Step();
  if (!row.ok()) return row.error();
  if (!*row) return StoreError(nullptr, "no row from `" + std::string(sql) + "`");
  return st->Text(0);
}

Result<Transaction> Transaction::Begin(Db& db) {
  auto st = db.Exec("BEGIN IMMEDIATE");
  if (!st.ok()) return st.error();
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  AGT_CHECK(db_ != nullptr);
  auto st = db_->Exec("COMMIT");
  if (!st.ok()) return st;  // the destructor rolls back
  db_ = nullptr;
  return core::Ok();
}

}  // namespace agt::state::sql

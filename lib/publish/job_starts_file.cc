// job_starts_file.cc - see job_starts_file.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "job_starts_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "error.h"
#include "history.h"
#include "slurm_values.h"

namespace fairway {
namespace {

using json = nlohmann::ordered_json;
constexpr int64_t kDay = 86400;
// The largest site factor Slurm accepts (scontrol's SiteFactor: +/-(NICE_OFFSET - 3)).
constexpr double kSiteFactorMax = static_cast<double>(kNiceOffset) - 3.0;

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw Error(Errc::kIo, what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string start_record_json(const StartRecord& r) {
  json j;
  j["job"] = r.job.job_id;
  j["user"] = r.job.user;
  j["account"] = r.job.account;
  j["partition"] = r.job.partition;
  j["submit"] = r.job.submit_time;
  j["start"] = r.job.start_time;
  j["priority"] = r.job.priority;
  if (r.job.has_factors) {
    json& f = j["factors"] = json::object();
    for (Factor k : kFactors)
      if (k != Factor::kTres) f[factor_name(k)] = r.job.factors[k];
  } else {
    j["factors"] = nullptr;
  }
  j["order_time"] = r.order_time ? json(r.order_time) : json();
  j["order_partition"] = r.order_partition;
  j["place"] = r.place;
  j["of"] = r.of;
  j["passed"] = r.passed;
  j["passed_jobs"] = r.passed_jobs;
  j["earlier_waiting"] = r.earlier_waiting;
  j["seen"] = r.seen_time ? json(r.seen_time) : json();
  j["seen_partition"] = r.seen_partition;
  j["seen_place"] = r.seen_place;
  // Names that are not UTF-8 (Slurm does not insist) are written with U+FFFD, not refused.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<StartRecord> parse_start_record(std::string_view line) {
  try {
    const json j = json::parse(line);
    StartRecord r;
    r.job.job_id = j.at("job").get<uint32_t>();
    r.job.user = j.at("user").get<std::string>();
    r.job.account = j.at("account").get<std::string>();
    r.job.partition = j.at("partition").get<std::string>();
    r.job.submit_time = j.at("submit").get<int64_t>();
    r.job.start_time = j.at("start").get<int64_t>();
    r.job.priority = j.at("priority").get<uint32_t>();
    if (!j.at("factors").is_null()) {
      const json& f = j.at("factors");
      r.job.has_factors = true;
      for (Factor k : kFactors)
        if (k != Factor::kTres) r.job.factors[k] = f.at(factor_name(k)).get<double>();
      // Records of releases that wrote the site factor with Slurm's NICE_OFFSET still on it: a
      // site factor is within +/-(NICE_OFFSET - 3) (scontrol's SiteFactor range), so a larger
      // one is that, and the priority used it without the offset.
      if (r.job.factors[Factor::kSite] > kSiteFactorMax)
        r.job.factors[Factor::kSite] -= static_cast<double>(kNiceOffset);
    }
    r.order_time = j.at("order_time").is_null() ? 0 : j.at("order_time").get<int64_t>();
    r.order_partition = j.at("order_partition").get<std::string>();
    r.place = j.at("place").get<uint32_t>();
    r.of = j.at("of").get<uint32_t>();
    r.passed = j.at("passed").get<uint32_t>();
    r.passed_jobs = j.at("passed_jobs").get<std::vector<uint32_t>>();
    r.earlier_waiting = j.at("earlier_waiting").get<uint32_t>();
    // Records written before the forecast have no seen_* fields.
    if (j.contains("seen") && !j.at("seen").is_null()) {
      r.seen_time = j.at("seen").get<int64_t>();
      r.seen_partition = j.at("seen_partition").get<std::string>();
      r.seen_place = j.at("seen_place").get<uint32_t>();
    }
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::string starts_file_name(int64_t time) { return day_file_name("starts-", ".jsonl", time); }

std::optional<int64_t> starts_file_day(std::string_view name) {
  return day_file_day(name, "starts-", ".jsonl");
}

void append_starts(const std::string& dir, int64_t time, const std::vector<StartRecord>& records,
                   uint32_t days) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) io_error("cannot create", dir);
  if (!records.empty()) {
    const std::string path = dir + "/" + starts_file_name(time);
    // A torn last line (a killed writer) is ended first, so that it swallows no record.
    std::string text;
    if (std::FILE* f = std::fopen(path.c_str(), "re")) {
      if (std::fseek(f, -1, SEEK_END) == 0 && std::fgetc(f) != '\n') text = "\n";
      std::fclose(f);
    }
    for (const StartRecord& r : records) text += start_record_json(r) + "\n";
    append_to_file(path, text);
  }
  for (const std::string& n : list_directory(dir)) {
    const std::optional<int64_t> day = starts_file_day(n);
    if (day && *day + kDay <= time - int64_t{days} * kDay) ::unlink((dir + "/" + n).c_str());
  }
}

namespace {

// Calls `each` with every whole record of the starts file at PATH.
template <class F>
void read_starts_file(const std::string& path, F&& each) {
  FILE* f = std::fopen(path.c_str(), "re");
  if (!f) io_error("cannot open", path);
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = ::getline(&line, &cap, f)) > 0) {
    const std::string_view l(line, static_cast<size_t>(n));
    if (l.back() == '\n') each(l.substr(0, l.size() - 1));
  }
  std::free(line);
  std::fclose(f);
}

std::vector<std::string> starts_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const std::string& n : list_directory(dir))
    if (starts_file_day(n)) files.push_back(n);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<StartRecord> read_starts(const std::string& dir, int64_t since) {
  std::vector<StartRecord> out;
  for (const std::string& name : starts_files(dir)) {
    if (*starts_file_day(name) + kDay <= since) continue;
    read_starts_file(dir + "/" + name, [&](std::string_view l) {
      if (auto r = parse_start_record(l); r && r->job.start_time >= since)
        out.push_back(std::move(*r));
    });
  }
  return out;
}

std::optional<StartRecord> find_start(const std::string& dir, uint32_t job) {
  const std::vector<std::string> files = starts_files(dir);
  const std::string needle = "{\"job\":" + std::to_string(job) + ",";
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    std::optional<StartRecord> found;
    read_starts_file(dir + "/" + *it, [&](std::string_view l) {
      if (l.substr(0, needle.size()) != needle) return;
      if (auto r = parse_start_record(l)) found = std::move(r);
    });
    if (found) return found;
  }
  return std::nullopt;
}

}  // namespace fairway

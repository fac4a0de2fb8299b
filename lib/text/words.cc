// The words Fairway's explanations share (see words.h).
#include "words.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <ctime>

namespace fairway {

std::string ordinal(size_t n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return fmt::format("{}{}", n, suffix);
}

std::string number_words(double v) {
  if (std::isfinite(v) && std::fabs(v) >= kScientificFrom) return fmt::format("{:.3e}", v);
  if (v == std::floor(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.2f}", v);
}

std::string decimal_words(long double v, int precision) {
  if (is_unset(v)) return "";
  const double d = static_cast<double>(v);
  if (std::isfinite(d) && std::fabs(d) >= kScientificFrom)
    return fmt::format("{:.{}e}", d, precision);
  return fmt::format("{:.{}f}", d, precision);
}

const char* algorithm_words(Algorithm a) {
  switch (a) {
    case Algorithm::kFairTree:
      return "Fair Tree";
    case Algorithm::kClassic:
      return "classic fair-share";
    case Algorithm::kDepthOblivious:
      return "depth-oblivious fair-share";
  }
  return "?";
}

std::string factor_words(Factor f) { return factor_info(f).words; }

double row_sum(const FactorRow& r) {
  double sum = 0;
  for (Factor f : kFactors) sum += r.part(f);
  return sum;
}

std::string separated_by(const Separation& s) {
  switch (s.by) {
    case Separation::By::kTier:
      return "tier";
    case Separation::By::kSubmitTime:
      return "submit_time";
    case Separation::By::kJobId:
      return "job_id";
    case Separation::By::kPriority:
      return s.admin ? "admin" : factor_name(s.factor);
  }
  return "?";
}

std::string local_time_text(int64_t t, const char* format) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  localtime_r(&tt, &tm);
  char buf[64];
  return std::strftime(buf, sizeof buf, format, &tm) ? buf : "";
}

std::string duration_words(double seconds) {
  if (seconds < 0) return "never";
  const auto s = static_cast<uint64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min", s / 60);
  if (s < 86400) {
    const uint64_t m = (s % 3600) / 60;
    return m ? fmt::format("{} h {} min", s / 3600, m) : fmt::format("{} h", s / 3600);
  }
  const uint64_t d = s / 86400, h = (s % 86400) / 3600;
  const std::string days = fmt::format("{} day{}", d, d == 1 ? "" : "s");
  return h ? fmt::format("{} {} h", days, h) : days;
}

std::string wrap(const std::string& text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t indent = line.find_first_not_of(' ');
    const std::string pad(indent == std::string::npos ? 0 : indent + 2, ' ');
    while (line.size() > width) {
      size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut <= pad.size()) break;
      out += line.substr(0, cut) + "\n";
      line = pad + line.substr(cut + 1);
    }
    out += line;
    if (end < text.size()) out += "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace fairway

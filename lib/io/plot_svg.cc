// plot_svg.cc - see plot_svg.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "plot_svg.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>
#include <vector>

#ifndef FMT_HEADER_ONLY
#define FMT_HEADER_ONLY
#endif
#include <fmt/format.h>

#include "words.h"

namespace fairway {
namespace {

constexpr double kRow = 34, kTop = 44, kLegend = 70, kCharWidth = 6.6;

std::string xml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control bytes are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') out += '?';
        else out += c;
    }
  }
  return out;
}

std::string percent(double v) { return fmt::format("{:.2f}%", 100 * v); }
std::string tick_percent(double v) { return fmt::format("{:g}%", 100 * v); }

std::string name_of(const AssocTree& t, uint32_t i) {
  return t.is_user(i) ? std::string(t.user(i)) : std::string(t.account(i));
}

std::string full_name(const AssocTree& t, uint32_t i) {
  return t.is_user(i) ? std::string(t.account(i)) + " / " + std::string(t.user(i))
                      : std::string(t.account(i));
}

struct TreePlot {
  const AssocTree& t;
  const FairShareResult& r;
  std::vector<double> delivered, entitled;  // shares of the whole cluster
  std::string svg;

  void names_below(uint32_t i, std::vector<std::string>& out) const {
    out.push_back(full_name(t, i));
    for (uint32_t c : t.children(i)) names_below(c, out);
  }

  double factor(uint32_t i) const {
    if (i == t.root()) return NAN;  // the whole cluster: nothing to compare
    if (t.is_user(i)) return r.fs_factor[i];
    if (entitled[i] <= 0) return NAN;
    return std::exp2(-delivered[i] / entitled[i]);
  }

  void box(uint32_t i, double x, double w, uint32_t depth) {
    const double y = kTop + depth * kRow;
    const double f = factor(i);
    svg += fmt::format(
        "<g><title>{}: entitled {}, delivered {}, fair-share factor {}</title>"
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" "
        "stroke=\"#ffffff\" stroke-width=\"0.6\"/>",
        xml(full_name(t, i)), percent(entitled[i]), percent(delivered[i]),
        std::isnan(f) ? std::string("none") : fmt::format("{:.3f}", f), x, y, w, kRow - 2,
        factor_colour(f));
    // Delivered share, as a bar at the foot of the box on the same scale as the box's width.
    const double bar = delivered[i] * kPlotWidth;
    if (bar > 0) {
      svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"5\" fill=\"#1f2d3d\"/>",
                         x, y + kRow - 8, std::min(bar, w));
      if (bar > 2 * w)
        svg += fmt::format("<path d=\"M{:.2f} {:.1f} l-5 -4 v8 z\" fill=\"#000000\"/>", x + w,
                           y + kRow - 5.5);
    }
    const std::string label = name_of(t, i);
    if (w >= label.size() * kCharWidth + 6)
      svg += fmt::format(
          "<text x=\"{:.2f}\" y=\"{:.1f}\" font-size=\"11\" font-family=\"sans-serif\" "
          "fill=\"#000000\">{}</text>",
          x + 3, y + 13, xml(label));
    svg += "</g>\n";

    // Children: widths in proportion to their entitled shares, widest first; the narrow ones
    // gathered into one grey box.
    std::vector<uint32_t> kids(t.children(i).begin(), t.children(i).end());
    if (kids.empty()) return;
    double sum = 0;
    for (uint32_t c : kids) sum += entitled[c];
    auto width = [&](uint32_t c) {
      return sum > 0 ? w * entitled[c] / sum : w / static_cast<double>(kids.size());
    };
    std::stable_sort(kids.begin(), kids.end(),
                     [&](uint32_t a, uint32_t b) { return width(a) > width(b); });
    double cx = x;
    std::vector<std::string> gathered;
    double gathered_w = 0;
    for (uint32_t c : kids) {
      const double cw = width(c);
      if (cw < kMinBoxWidth) {
        names_below(c, gathered);
        gathered_w += cw;
        continue;
      }
      box(c, cx, cw, depth + 1);
      cx += cw;
    }
    if (!gathered.empty()) {
      std::string list;
      for (const std::string& n : gathered) list += (list.empty() ? "" : ", ") + n;
      const double yy = kTop + (depth + 1) * kRow;
      svg += fmt::format(
          "<g><title>{} more, too small to draw: {}</title><rect x=\"{:.2f}\" y=\"{:.1f}\" "
          "width=\"{:.2f}\" height=\"{:.1f}\" fill=\"#b0b0b0\" stroke=\"#ffffff\" "
          "stroke-width=\"0.6\"/>",
          gathered.size(), xml(list), cx, yy, std::max(gathered_w, 1.0), kRow - 2);
      const std::string label = fmt::format("{} more", gathered.size());
      if (gathered_w >= label.size() * kCharWidth + 6)
        svg += fmt::format(
            "<text x=\"{:.2f}\" y=\"{:.1f}\" font-size=\"11\" font-family=\"sans-serif\" "
            "fill=\"#000000\">{}</text>",
            cx + 3, yy + 13, label);
      svg += "</g>\n";
    }
  }
};

void legend(std::string& svg, double y) {
  svg += fmt::format(
      "<defs><linearGradient id=\"fs\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">"
      "<stop offset=\"0\" stop-color=\"{}\"/><stop offset=\"0.5\" stop-color=\"{}\"/>"
      "<stop offset=\"1\" stop-color=\"{}\"/></linearGradient></defs>\n",
      factor_colour(0), factor_colour(0.5), factor_colour(1));
  svg += fmt::format(
      "<rect x=\"10\" y=\"{0:.1f}\" width=\"200\" height=\"12\" fill=\"url(#fs)\"/>"
      "<text x=\"10\" y=\"{1:.1f}\" font-size=\"11\" font-family=\"sans-serif\">0</text>"
      "<text x=\"200\" y=\"{1:.1f}\" font-size=\"11\" font-family=\"sans-serif\">1</text>"
      "<text x=\"220\" y=\"{2:.1f}\" font-size=\"11\" font-family=\"sans-serif\">fair-share "
      "factor (accounts: 2^-(delivered/entitled))</text>\n"
      "<rect x=\"10\" y=\"{3:.1f}\" width=\"40\" height=\"5\" fill=\"#1f2d3d\"/>"
      "<text x=\"60\" y=\"{4:.1f}\" font-size=\"11\" font-family=\"sans-serif\">box width: "
      "entitled share of the cluster; dark bar: delivered share (usage); grey: associations "
      "too small to draw</text>\n",
      y, y + 26, y + 10, y + 36, y + 42);
}

// The smallest of 1, 2, 2.5, 5 x 10^k that four ticks of it reach v (1 for nothing).
double nice_top(double v) {
  if (!(v > 0)) return 1;
  const double step = v / 4, p = std::pow(10, std::floor(std::log10(step)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= step) return 4 * m * p;
  return 4 * 10 * p;
}


}  // namespace

std::string factor_colour(double f) {
  if (std::isnan(f)) return "#c8c8c8";
  f = std::clamp(f, 0.0, 1.0);
  // red (215, 48, 39) -> yellow (254, 224, 139) -> green (26, 152, 80)
  auto mix = [](double a, double b, double k) { return static_cast<int>(std::lround(a + (b - a) * k)); };
  int r, g, b;
  if (f < 0.5) {
    const double k = f / 0.5;
    r = mix(215, 254, k), g = mix(48, 224, k), b = mix(39, 139, k);
  } else {
    const double k = (f - 0.5) / 0.5;
    r = mix(254, 26, k), g = mix(224, 152, k), b = mix(139, 80, k);
  }
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

std::string plot_tree_svg(const AssocTree& t, const FairShareResult& r, Algorithm algorithm,
                          const std::string& title) {
  if (r.fs_factor.size() != t.size()) throw std::invalid_argument("plot: result does not match the tree");
  TreePlot p{t, r, std::vector<double>(t.size()), std::vector<double>(t.size()), {}};
  const long double root = t.usage_raw(t.root());
  for (uint32_t i = 0; i < t.size(); i++) {
    p.delivered[i] = root > 0 ? static_cast<double>(t.usage_raw(i) / root) : 0.0;
    p.entitled[i] = t.shares_norm_classic(i);
  }
  const double height = kTop + (t.max_depth() + 1) * kRow + kLegend;
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text x=\"10\" y=\"26\" font-size=\"16\" font-family=\"sans-serif\">{2} ({3}, {4} "
      "associations)</text>\n",
      kPlotWidth + 20, height, xml(title), algorithm_name(algorithm), t.size());
  svg += "<g transform=\"translate(10,0)\">\n";
  p.box(t.root(), 0, kPlotWidth, 0);
  svg += p.svg;
  svg += "</g>\n";
  legend(svg, kTop + (t.max_depth() + 1) * kRow + 14);
  svg += "</svg>\n";
  return svg;
}

std::string plot_history_svg(const HistorySeries& s) {
  if (s.times.empty()) throw std::invalid_argument("plot: no periods to draw");
  const double W = 1000, H = 440, left = 70, right = 70, top = 50, bottom = 90;
  const double pw = W - left - right, ph = H - top - bottom;
  const int64_t t0 = s.times.front(), t1 = std::max(s.times.back(), t0 + 1);
  double ymax = 0;
  for (const HistoryRecord& r : s.records) ymax = std::max({ymax, double(r.delivered), double(r.entitled)});
  ymax = nice_top(ymax * 1.05);
  auto X = [&](int64_t t) { return left + pw * static_cast<double>(t - t0) / static_cast<double>(t1 - t0); };
  auto Y = [&](double v) { return top + ph * (1 - v / ymax); };
  auto Yf = [&](double v) { return top + ph * (1 - v); };
  const std::string who = s.user.empty() ? "account " + s.account
                                         : "user " + s.user + " in account " + s.account;
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text x=\"{2:.0f}\" y=\"28\" font-size=\"16\" font-family=\"sans-serif\">Fair-share of {3} "
      "(association {4}): {5} periods</text>\n",
      W, H, left, xml(who), s.id, s.times.size());
  // Axes and ticks.
  svg += fmt::format("<path d=\"M{0} {1} V{2} H{3} V{1}\" fill=\"none\" stroke=\"#000000\"/>\n",
                     left, top, top + ph, left + pw);
  for (int k = 0; k <= 4; k++) {
    const double v = ymax * k / 4, y = Y(v);
    svg += fmt::format(
        "<path d=\"M{0} {1:.1f} H{2}\" stroke=\"#e0e0e0\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "font-size=\"11\" font-family=\"sans-serif\" text-anchor=\"end\">{5}</text>"
        "<text x=\"{6}\" y=\"{4:.1f}\" font-size=\"11\" font-family=\"sans-serif\">{7:.2f}</text>\n",
        left, y, left + pw, left - 6, y + 4, tick_percent(v), left + pw + 6, k / 4.0);
    const int64_t t = t0 + (t1 - t0) * k / 4;
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" font-family=\"sans-serif\" "
        "text-anchor=\"middle\">{}</text>\n",
        X(t), top + ph + 16, local_time_text(t, "%m-%d %H:%M"));
  }
  auto line = [&](auto value, auto y_of, const char* colour, const char* dash, double width) {
    std::string d;
    for (size_t i = 0; i < s.times.size(); i++)
      d += fmt::format("{}{:.1f} {:.1f}", i ? " L" : "M", X(s.times[i]), y_of(value(s.records[i])));
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", d,
                       colour, width, dash);
  };
  line([](const HistoryRecord& r) { return double(r.entitled); }, Y, "#000000",
       " stroke-dasharray=\"6 4\"", 1.5);
  line([](const HistoryRecord& r) { return double(r.delivered); }, Y, "#1f5fbf", "", 2.2);
  line([](const HistoryRecord& r) { return double(r.fs_factor); }, Yf, "#1a9850", "", 1.2);
  const double ly = H - 40;
  svg += fmt::format(
      "<path d=\"M{0} {1} h30\" stroke=\"#1f5fbf\" stroke-width=\"2.2\"/><text x=\"{2}\" y=\"{3}\" "
      "font-size=\"12\" font-family=\"sans-serif\">delivered share (of all usage, left)</text>"
      "<path d=\"M{4} {1} h30\" stroke=\"#000000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
      "<text x=\"{5}\" y=\"{3}\" font-size=\"12\" font-family=\"sans-serif\">entitled share (left)</text>"
      "<path d=\"M{6} {1} h30\" stroke=\"#1a9850\" stroke-width=\"1.2\"/><text x=\"{7}\" y=\"{3}\" "
      "font-size=\"12\" font-family=\"sans-serif\">fair-share factor (right)</text>\n",
      left, ly, left + 36, ly + 4, left + 300, left + 336, left + 500, left + 536);
  svg += "</svg>\n";
  return svg;
}

}  // namespace fairway

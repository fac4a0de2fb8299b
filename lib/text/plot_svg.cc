// plot_svg.cc - see plot_svg.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "plot_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>
#include <vector>

#include "words.h"

namespace fairway {
namespace {

constexpr double kRow = 34, kTop = 62, kLegend = 100, kCharWidth = 6.6;

std::string xml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control bytes are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
          out += '?';
        else
          out += c;
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

  std::vector<std::string> narrow_accounts;  // accounts drawn without their name, left to right

  // The fair-share factor the association's jobs get: a user's own; an account's, the highest
  // of the users below it (NaN for the root and for an account without users).
  double factor(uint32_t i) const {
    if (t.is_user(i)) return r.fs_factor[i];
    if (i == t.root()) return NAN;
    double best = NAN;
    for (uint32_t c : t.children(i)) {
      const double f = factor(c);
      if (!std::isnan(f) && !(f <= best)) best = f;
    }
    return best;
  }

  // NAME as drawn in W pixels: whole, cut with an ellipsis, or "" where not 3 characters fit.
  static std::string label_for(const std::string& name, double w) {
    const double room = (w - 6) / kCharWidth;
    if (room >= static_cast<double>(name.size())) return name;
    if (room < 3) return "";
    return name.substr(0, static_cast<size_t>(room) - 1) + "\u2026";
  }

  void box(uint32_t i, double x, double w, uint32_t depth) {
    const double y = kTop + depth * kRow;
    const double f = factor(i);
    svg += fmt::format(
        "<g><title>{}: entitled {}, delivered {}, {} {}</title>"
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" "
        "stroke=\"#ffffff\" stroke-width=\"0.6\"/>",
        xml(full_name(t, i)), percent(entitled[i]), percent(delivered[i]),
        t.is_user(i) ? "fair-share factor" : "highest fair-share factor of its users",
        std::isnan(f) ? std::string("none") : fmt::format("{:.3f}", f), x, y, w, kRow - 2,
        factor_colour(f));
    // Delivered share, as a bar at the foot of the box on the same scale as the box's width,
    // inside the box (a margin of one pixel each side); more than the box: the bar fills it and
    // a white notch at its end says it is cut.
    const double bar = delivered[i] * kPlotWidth, inner = std::max(w - 2, 0.0);
    if (bar > 0 && inner > 0) {
      svg += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"5\" fill=\"#1f2d3d\"/>", x + 1,
          y + kRow - 9, std::min(bar, inner));
      if (bar > w + 0.5 && inner >= 6)
        svg += fmt::format("<path d=\"M{:.2f} {:.1f} l-4 2.5 l4 2.5 z\" fill=\"#ffffff\"/>",
                           x + 1 + inner, y + kRow - 9);
    }
    const std::string label = label_for(name_of(t, i), w);
    if (!label.empty())
      svg += fmt::format(
          "<text x=\"{:.2f}\" y=\"{:.1f}\" font-size=\"11\" font-family=\"sans-serif\" "
          "fill=\"#000000\">{}</text>",
          x + 3, y + 13, xml(label));
    else if (!t.is_user(i))
      narrow_accounts.push_back(std::string(t.account(i)));
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
          "width=\"{:.2f}\" height=\"{:.1f}\" fill=\"#9e9e9e\" stroke=\"#ffffff\" "
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

void legend(std::string& svg, double y, const std::vector<std::string>& narrow) {
  svg += fmt::format(
      "<defs><linearGradient id=\"fs\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">"
      "<stop offset=\"0\" stop-color=\"{}\"/><stop offset=\"0.5\" stop-color=\"{}\"/>"
      "<stop offset=\"1\" stop-color=\"{}\"/></linearGradient></defs>\n",
      factor_colour(0), factor_colour(0.5), factor_colour(1));
  svg += fmt::format(
      "<rect x=\"10\" y=\"{0:.1f}\" width=\"200\" height=\"12\" fill=\"url(#fs)\"/>"
      "<text x=\"10\" y=\"{1:.1f}\" font-size=\"11\" font-family=\"sans-serif\">0</text>"
      "<text x=\"200\" y=\"{1:.1f}\" font-size=\"11\" font-family=\"sans-serif\">1</text>"
      "<text x=\"220\" y=\"{2:.1f}\" font-size=\"11\" font-family=\"sans-serif\">colour: "
      "fair-share factor of the jobs (a user's own; an account's, the highest of its users)"
      "</text>\n"
      "<rect x=\"10\" y=\"{3:.1f}\" width=\"40\" height=\"5\" fill=\"#1f2d3d\"/>"
      "<text x=\"60\" y=\"{4:.1f}\" font-size=\"11\" font-family=\"sans-serif\">box width: "
      "entitled share of the cluster; dark bar: delivered share (usage), cut at the box's end "
      "with a notch</text>\n"
      "<rect x=\"10\" y=\"{5:.1f}\" width=\"18\" height=\"12\" fill=\"#9e9e9e\"/>"
      "<text x=\"34\" y=\"{6:.1f}\" font-size=\"11\" font-family=\"sans-serif\">associations "
      "too small to draw (their names in the box's tooltip)</text>"
      "<rect x=\"400\" y=\"{5:.1f}\" width=\"18\" height=\"12\" fill=\"{7}\" "
      "stroke=\"#999999\" stroke-width=\"0.6\"/>"
      "<text x=\"424\" y=\"{6:.1f}\" font-size=\"11\" font-family=\"sans-serif\">no factor "
      "(the root; an account without users)</text>\n",
      y, y + 26, y + 10, y + 36, y + 42, y + 50, y + 60, factor_colour(NAN));
  // The accounts whose boxes are too narrow for their name, in the order they are drawn.
  for (size_t k = 0; k < narrow.size(); ++k)
    svg += fmt::format(
        "<text x=\"10\" y=\"{:.1f}\" font-size=\"11\" font-family=\"sans-serif\">{}</text>\n",
        y + 80 + 14.0 * k, xml(narrow[k]));
}

// "Accounts too narrow to label, left to right: a, b, ..." in lines that fit the picture.
std::vector<std::string> narrow_lines(const std::vector<std::string>& names) {
  std::vector<std::string> lines;
  if (names.empty()) return lines;
  const size_t max_chars = static_cast<size_t>(kPlotWidth / kCharWidth);
  std::string line = "Accounts too narrow to label, left to right:";
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string item = " " + names[k] + (k + 1 < names.size() ? "," : "");
    if (line.size() + item.size() > max_chars) {
      lines.push_back(line);
      line = " ";
    }
    line += item;
  }
  lines.push_back(line);
  return lines;
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
  if (std::isnan(f)) return "#ececec";
  f = std::clamp(f, 0.0, 1.0);
  // red (215, 48, 39) -> yellow (254, 224, 139) -> green (26, 152, 80)
  auto mix = [](double a, double b, double k) {
    return static_cast<int>(std::lround(a + (b - a) * k));
  };
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
                          const std::string& title, const std::string& subtitle) {
  if (r.fs_factor.size() != t.size())
    throw std::invalid_argument("plot: result does not match the tree");
  TreePlot p{t, r, std::vector<double>(t.size()), std::vector<double>(t.size()), {}, {}};
  const long double root = t.usage_raw(t.root());
  for (uint32_t i = 0; i < t.size(); i++) {
    p.delivered[i] = root > 0 ? static_cast<double>(t.usage_raw(i) / root) : 0.0;
    p.entitled[i] = t.shares_norm_classic(i);
  }
  p.box(t.root(), 0, kPlotWidth, 0);
  const std::vector<std::string> narrow = narrow_lines(p.narrow_accounts);
  const double height = kTop + (t.max_depth() + 1) * kRow + kLegend + 14.0 * narrow.size();
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text x=\"10\" y=\"26\" font-size=\"16\" font-family=\"sans-serif\">{2} ({3}, {4} "
      "associations)</text>\n<text x=\"10\" y=\"46\" font-size=\"12\" "
      "font-family=\"sans-serif\" fill=\"#333333\">{5}</text>\n",
      kPlotWidth + 20, height, xml(title), algorithm_name(algorithm), t.size(), xml(subtitle));
  svg += "<g transform=\"translate(10,0)\">\n";
  svg += p.svg;
  svg += "</g>\n";
  legend(svg, kTop + (t.max_depth() + 1) * kRow + 14, narrow);
  svg += "</svg>\n";
  return svg;
}

std::string plot_history_svg(const HistorySeries& s) {
  if (s.times.empty()) throw std::invalid_argument("plot: no periods to draw");
  const double W = 1000, H = 440, left = 70, right = 70, top = 50, bottom = 90;
  const double pw = W - left - right, ph = H - top - bottom;
  const int64_t t0 = s.times.front(), t1 = std::max(s.times.back(), t0 + 1);
  double ymax = 0;
  for (const HistoryRecord& r : s.records)
    ymax = std::max({ymax, double(r.delivered), double(r.entitled)});
  ymax = nice_top(ymax * 1.05);
  auto X = [&](int64_t t) {
    return left + pw * static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
  };
  auto Y = [&](double v) { return top + ph * (1 - v / ymax); };
  auto Yf = [&](double v) { return top + ph * (1 - v); };
  const std::string who =
      s.user.empty() ? "account " + s.account : "user " + s.user + " in account " + s.account;
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
  // Time labels as fine as the span needs; a label equal to the previous one is not repeated.
  const int64_t span = t1 - t0;
  const char* tick_format = span < 4 * 3600    ? "%H:%M:%S"
                            : span < 4 * 86400 ? "%m-%d %H:%M"
                                               : "%Y-%m-%d";
  std::string last_tick;
  for (int k = 0; k <= 4; k++) {
    const double v = ymax * k / 4, y = Y(v);
    svg += fmt::format(
        "<path d=\"M{0} {1:.1f} H{2}\" stroke=\"#e0e0e0\"/><text x=\"{3}\" y=\"{4:.1f}\" "
        "font-size=\"11\" font-family=\"sans-serif\" text-anchor=\"end\">{5}</text>"
        "<text x=\"{6}\" y=\"{4:.1f}\" font-size=\"11\" "
        "font-family=\"sans-serif\">{7:.2f}</text>\n",
        left, y, left + pw, left - 6, y + 4, tick_percent(v), left + pw + 6, k / 4.0);
    const int64_t t = t0 + (t1 - t0) * k / 4;
    const std::string tick = local_time_text(t, tick_format);
    if (tick == last_tick) continue;
    last_tick = tick;
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" font-family=\"sans-serif\" "
        "text-anchor=\"middle\">{}</text>\n",
        X(t), top + ph + 16, tick);
  }
  svg += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"11\" font-family=\"sans-serif\" "
      "fill=\"#333333\">{} to {} (local time)</text>\n",
      left, top - 8, local_time_text(s.times.front(), "%Y-%m-%d %H:%M:%S"),
      local_time_text(s.times.back(), "%Y-%m-%d %H:%M:%S"));
  // A line through the periods that hold a value (a gap where one is NaN); a lone point as a dot.
  auto line = [&](auto value, auto y_of, const char* colour, const char* dash, double width) {
    std::string d;
    bool pen = false;
    for (size_t i = 0; i < s.times.size(); i++) {
      const double v = value(s.records[i]);
      if (!std::isfinite(v)) {
        pen = false;
        continue;
      }
      d += fmt::format("{}{:.1f} {:.1f}", pen ? " L" : " M", X(s.times[i]), y_of(v));
      if (!pen && (i + 1 == s.times.size() || !std::isfinite(value(s.records[i + 1]))))
        d += " h0.1";
      pen = true;
    }
    if (d.empty()) return;
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", d,
                       colour, width, dash);
  };
  line([](const HistoryRecord& r) { return double(r.entitled); }, Y, "#000000",
       " stroke-dasharray=\"6 4\"", 1.5);
  line([](const HistoryRecord& r) { return double(r.delivered); }, Y, "#1f5fbf", "", 2.2);
  // An account has no factor of its own: the history holds its users' highest (none where no
  // user had a period), drawn as such.
  bool any_factor = false;
  for (const HistoryRecord& r : s.records)
    any_factor = any_factor || std::isfinite(double(r.fs_factor));
  line([](const HistoryRecord& r) { return double(r.fs_factor); }, Yf, "#1a9850", "", 1.6);
  const std::string factor_words = !any_factor ? "fair-share factor: none recorded (right)"
                                   : s.user.empty()
                                       ? "highest fair-share factor of its users (right)"
                                       : "fair-share factor (right)";
  const double ly = H - 40;
  svg += fmt::format(
      "<path d=\"M{0} {1} h30\" stroke=\"#1f5fbf\" stroke-width=\"2.2\"/><text x=\"{2}\" y=\"{3}\" "
      "font-size=\"12\" font-family=\"sans-serif\">delivered share (of all usage, left)</text>"
      "<path d=\"M{4} {1} h30\" stroke=\"#000000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
      "<text x=\"{5}\" y=\"{3}\" font-size=\"12\" font-family=\"sans-serif\">entitled share "
      "(left)</text>"
      "<path d=\"M{6} {1} h30\" stroke=\"#1a9850\" stroke-width=\"1.6\"/><text x=\"{7}\" y=\"{3}\" "
      "font-size=\"12\" font-family=\"sans-serif\">{8}</text>\n",
      left, ly, left + 36, ly + 4, left + 300, left + 336, left + 500, left + 536, factor_words);
  svg += "</svg>\n";
  return svg;
}

}  // namespace fairway

// plot_svg.h - `fairway plot`: pictures as plain SVG (no script, no external resource), readable
// in a browser or embedded in a page.
//
// The share tree is an icicle: one row per depth, each association a box as wide as the share
// of the cluster its shares entitle it to (the product of its shares' fractions down the path),
// inside its parent's box; a dark bar at the box's foot is as wide as its delivered share (its
// share of all usage; inside the box, cut at its end with a notch when it is more than the box);
// the box's colour is the fair-share factor its jobs get, from red (0) through yellow (0.5) to
// green (1): a user's own, an account's the highest of the users below it (light grey: none,
// the root). Boxes narrower than kMinBoxWidth pixels are gathered, per parent, into one grey
// box "N more". Every association's name is in the SVG's text: drawn where it fits (cut with an
// ellipsis where only part fits), else in the <title> (tooltip) of its box or of the grey box
// that holds it, and an account drawn without its name is listed under the picture. The
// subtitle says which cluster and when (the snapshot's time).
//
// The history is a line chart of one association: delivered and entitled share over time, and
// its fair-share factor on a second axis (an account's: the highest of its users', as the
// history gives it; periods without one are a gap); time labels as fine as the span needs, none
// repeated, and the span's first and last period above the chart.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "assoc_tree.h"
#include "fair_share.h"
#include "history_format.h"

namespace fairway {

inline constexpr double kPlotWidth = 1200;
inline constexpr double kMinBoxWidth = 3;

// Throws std::invalid_argument when result does not match the tree.
std::string plot_tree_svg(const AssocTree& tree, const FairShareResult& result, Algorithm algorithm,
                          const std::string& title, const std::string& subtitle = "");

// Throws std::invalid_argument for a series without periods.
std::string plot_history_svg(const HistorySeries& series);

// Red (0) - yellow (0.5) - green (1) as "#rrggbb"; values outside [0, 1] are clamped, NaN a
// light grey (no factor; associations too small to draw are a darker grey).
std::string factor_colour(double factor);

}  // namespace fairway

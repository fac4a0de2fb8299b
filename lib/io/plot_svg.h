// plot_svg.h - `fairway plot`: pictures as plain SVG (no script, no external resource), readable
// in a browser or embedded in a page.
//
// The share tree is an icicle: one row per depth, each association a box as wide as the share
// of the cluster its shares entitle it to (the product of its shares' fractions down the path),
// inside its parent's box; a dark bar at the box's foot is as wide as its delivered share (its
// share of all usage; cut at the box's edge with a mark when it is more than twice the box); the
// box's colour is its fair-share factor, from red (0) through yellow (0.5) to green (1): a
// user's factor as its jobs get it, an account's 2^(-delivered/entitled) (the classic formula on
// its own usage). Boxes narrower than kMinBoxWidth pixels are gathered, per parent, into one grey
// box "N more". Every association's name is in the SVG's text: drawn where it fits, else in
// the <title> (tooltip) of its box or of the grey box that holds it.
//
// The history is a line chart of one association: delivered and entitled share over time, and
// its fair-share factor on a second axis.
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
std::string plot_tree_svg(const AssocTree& tree, const FairShareResult& result,
                          Algorithm algorithm, const std::string& title);

// Throws std::invalid_argument for a series without periods.
std::string plot_history_svg(const HistorySeries& series);

// Red (0) - yellow (0.5) - green (1) as "#rrggbb"; values outside [0, 1] are clamped, NaN grey.
std::string factor_colour(double factor);

}  // namespace fairway

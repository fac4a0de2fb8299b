// lint_format.h - a finding of fairway lint (lib/queue/settings_lint.h) as the one line the
// command prints: "SETTING: EVIDENCE; CHANGE."
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <string>

#include "settings_lint.h"

namespace fairway {

std::string format_lint_finding(const LintFinding& f);  // ends with '\n'

}  // namespace fairway

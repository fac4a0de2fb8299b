// lint_format.cc - see lint_format.h.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include "lint_format.h"

namespace fairway {

std::string format_lint_finding(const LintFinding& f) {
  return f.setting + ": " + f.evidence + "; " + f.change + ".\n";
}

}  // namespace fairway

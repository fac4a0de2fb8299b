# A deliberately wrong Fair Tree tie rule, applied to a copy of lib/priority/fair_tree.cc for
# test/differential/run-mutant: users with equal Level FS no longer share a rank.
s/const bool tied = (pos == f\.begin && f\.account_tied) ? true : (f\.prev_level_fs == lf\[a\]);/const bool tied = false;/

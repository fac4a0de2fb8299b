// usage_journal.h - inside libfairway, not part of the C API: the steps of restart safety that
// the calls of fairway_usage_state.h compose over a journal's handle (fairway_usage_journal_t):
// the state files' paths, a job end's journal line and its appending, the usage file written
// and read back, the journals read and a restart's replay.  Each step throws fairway::Error
// (or std::bad_alloc) on failure; the C API's calls turn that into a fairway_error_t (guard).
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#pragma once

#include <cstddef>
#include <ctime>
#include <optional>
#include <span>

#include "fairway_usage_files.h"
#include "fairway_usage_state.h"
#include "usage_replay.h"
#include "usage_store.h"

namespace fairway {

// The state files of a StateSaveLocation.
enum class StateFile {
  kDecay,       // priority_last_decay_ran (multifactor's)
  kDecayOld,    // priority_last_decay_ran.old, its previous copy
  kUsage,       // fairway_usage
  kJournal,     // fairway_usage.journal
  kJournalOld,  // fairway_usage.journal.old, the journal of the period before
};

// The path of state file `file` in directory dir (StateSaveLocation), NUL-terminated in buf;
// its length.  0 (buf "" when len > 0) for a NULL dir or buf, an unknown file or a path
// longer than len - 1.
size_t state_path(const char* dir, StateFile file, char* buf, size_t len) noexcept;

// The journal entry of a job end that charged c: the association's decayed amounts, each QOS
// charged its amounts (undecayed for NoDecay), a QOS not charged id 0; epoch 0.
JournalEntry job_end_entry(const fairway_job_charge_t& c, const fairway_job_end_t& end) noexcept;

// Append e with the handle's period as its epoch, in one write(2): a killed process leaves
// whole lines or a torn last one.  Following another controller's usage file and journal as
// fairway_usage_journal_job_end says; e is then the entry of `end` charged from the later
// period when end has a basis.  Nothing is written when no journal is open.  Throws
// Error(kIo) when the write fails (errno is write(2)'s) or the journal at its path cannot be
// opened.
void append_journal(fairway_usage_journal_t& j, JournalEntry e,
                    const fairway_job_end_t* end = nullptr);

// What save_usage writes the usage file from: a piece of its text at a time (about
// kUsagePiece bytes), kept by its caller from one period to the next.
inline constexpr size_t kUsagePiece = 64 * 1024;
struct UsageScratch {
  std::string piece;
};

// Write dir's usage file atomically (.new, fsync, rename; mode 0600) as of `period`: every
// association's usage (their parents are not written) and every QOS's, a piece at a time in
// `scratch`.  The journal is not touched: open it with rotate next.  Throws Error(kIo).
void save_usage(const char* dir, time_t period, std::span<const ReplayAssoc> assocs,
                std::span<const UsageEntry> qos, UsageScratch& scratch);
// The same, building in a scratch of its own.
inline void save_usage(const char* dir, time_t period, std::span<const ReplayAssoc> assocs,
                       std::span<const UsageEntry> qos) {
  UsageScratch scratch;
  save_usage(dir, period, assocs, qos, scratch);
}

// A restart, first step: read dir's usage file, kept in j; its period, or none when there is
// no file.  Throws Error(kIo) or Error(kParse) (naming the line).
std::optional<time_t> read_usage(fairway_usage_journal_t& j, const char* dir);

// Second step: read dir's journals (.journal.old, then .journal), kept in j.  Throws
// Error(kIo) or Error(kParse).
void read_journals(fairway_usage_journal_t& j, const char* dir);

// Last step: replace the usage of every association and QOS given by the usage file's (0 for
// one it does not hold), then add the journal entries of period `epoch` (to the association
// and its ancestors, its QOS, its partition's QOS), each job end at most once; the jobs whose
// end was added are remembered (fairway_usage_journal_ended).  Frees what was read.  Throws
// Error(kInvalid) when no usage file was read.
ReplayCounts replay(fairway_usage_journal_t& j, time_t epoch, std::span<ReplayAssoc> assocs,
                    std::span<UsageEntry> qos);

}  // namespace fairway

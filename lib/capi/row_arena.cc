// row_arena.cc - fairway_rows.h: sprio's rows carved out of kept blocks, and their partition
// and QOS factors.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "api_guard.h"
#include "fairway_rows.h"

// One block: this header, then its rows, each behind a RowHead naming the block.
struct fairway_row_block {
  size_t live;                 // rows of this block not freed yet
  bool big;                    // larger than kBlock: never kept
  fairway_row_block* next;     // among the kept blocks
  fairway_row_arena_t* arena;  // where it goes back to; nullptr: freed
};

struct fairway_row_arena {
  std::mutex lock;  // the fields below
  fairway_row_block* kept = nullptr;
  int n = 0;
};

namespace {

constexpr size_t kBlock = size_t{1} << 20;
constexpr int kKept = 32;

// Every piece of a block is aligned for a double or a pointer.
constexpr size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

constexpr size_t kHead = align8(sizeof(fairway_row_block));

struct RowHead {
  fairway_row_block* block;
};
static_assert(sizeof(RowHead) == align8(sizeof(RowHead)));

// A block for at least `need` bytes of rows: a kept one, or a new one.
fairway_row_block* block_get(fairway_row_arena_t* arena, size_t need) {
  fairway_row_block* b = nullptr;
  const bool big = kHead + need > kBlock;

  if (!big && arena) {
    std::lock_guard<std::mutex> hold(arena->lock);
    if ((b = arena->kept)) {
      arena->kept = b->next;
      arena->n--;
    }
  }
  if (!b && !(b = static_cast<fairway_row_block*>(std::malloc(big ? kHead + need : kBlock))))
    throw std::bad_alloc();
  b->live = 0;
  b->big = big;
  b->next = nullptr;
  b->arena = arena;
  return b;
}

void block_put(fairway_row_block* b) {
  if (fairway_row_arena_t* arena = b->big ? nullptr : b->arena) {
    std::lock_guard<std::mutex> hold(arena->lock);
    if (arena->n < kKept) {
      b->next = arena->kept;
      arena->kept = b;
      arena->n++;
      return;
    }
  }
  std::free(b);
}

}  // namespace

extern "C" fairway_error_t fairway_row_arena_create(fairway_row_arena_t** out) {
  return fairway::guard([&] {
    if (!out) fairway::invalid("fairway_row_arena_create: NULL out");
    *out = new fairway_row_arena_t;
  });
}

extern "C" void fairway_row_arena_destroy(fairway_row_arena_t* arena) {
  if (!arena) return;
  while (fairway_row_block* b = arena->kept) {
    arena->kept = b->next;
    std::free(b);
  }
  delete arena;
}

// Called once per sprio row: no guard() (its cost per call is the thread's error message
// cleared), the errors set where they happen: a NULL argument, and a new block that cannot
// be allocated (the only call that can throw).
extern "C" fairway_error_t fairway_row_alloc(fairway_row_arena_t* arena, fairway_row_fill_t* fill,
                                             size_t size, size_t extra, void** row,
                                             void** extra_at) {
  if (!fill || !row || !extra_at) {
    fairway::set_last_error("fairway_row_alloc: NULL argument");
    return FAIRWAY_EINVAL;
  }
  const size_t at_extra = sizeof(RowHead) + align8(size);
  const size_t need = at_extra + align8(extra);
  if (need > fill->left) {
    fairway_error_t err = fairway::guard([&] { fill->block = block_get(arena, need); });
    if (err != FAIRWAY_OK) return err;
    fill->at = reinterpret_cast<char*>(fill->block) + kHead;
    fill->left = fill->block->big ? need : kBlock - kHead;
  }
  RowHead* h = reinterpret_cast<RowHead*>(fill->at);
  h->block = fill->block;
  fill->block->live++;
  fill->at += need;
  fill->left -= need;
  std::memset(h + 1, 0, size);
  *row = h + 1;
  *extra_at = reinterpret_cast<char*>(h) + at_extra;
  return FAIRWAY_OK;
}

extern "C" void fairway_row_free(void* row) {
  if (!row) return;
  fairway_row_block* b = (static_cast<RowHead*>(row) - 1)->block;
  if (--b->live == 0) block_put(b);
}

extern "C" fairway_error_t fairway_sprio_row_place(const fairway_weights_t* w,
                                                   const fairway_sprio_place_t* place, double* tres,
                                                   size_t tres_count, double* priority_part,
                                                   double* priority_qos) {
  // Once per sprio row and partition: arithmetic that cannot throw, so no guard().
  if (!w || !place || !priority_part || !priority_qos) {
    fairway::set_last_error("fairway_sprio_row_place: NULL argument");
    return FAIRWAY_EINVAL;
  }
  {
    if (place->has_partition) {
      *priority_part = ((w->flags & FAIRWAY_FLAG_NO_NORMAL_PART) ? place->part_job_factor
                                                                 : place->part_norm_priority) *
                       static_cast<double>(w->weight[FAIRWAY_FACTOR_PARTITION]);
      // Over the copy of the job's weighted factors: a TRES this partition does not count
      // keeps the copied value and is weighted again.  Never past the copy's end.
      if (tres) {
        fairway_weights_t fewer = *w;
        if (tres_count < fewer.tres_count) fewer.tres_count = tres_count;
        (void)fairway_sprio_row_tres(&fewer, place->job_tres_alloc, place->job_tres_req,
                                     place->part_tres, tres);
      }
    }
    if (place->has_qos && place->qos_priority != 0 && w->weight[FAIRWAY_FACTOR_QOS])
      *priority_qos = ((w->flags & FAIRWAY_FLAG_NO_NORMAL_QOS) ? place->qos_priority
                                                               : place->qos_norm_priority) *
                      static_cast<double>(w->weight[FAIRWAY_FACTOR_QOS]);
  }
  return FAIRWAY_OK;
}

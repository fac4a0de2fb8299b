// row_arena.cc - fairway_rows.h: sprio's rows carved out of kept blocks, and their partition
// and QOS factors.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "api_guard.h"
#include "fairway_rows.h"
#include "job_factors.h"

struct fairway_row_arena {
  std::mutex lock;  // the fields below
  fairway_row_block* kept = nullptr;
  int n = 0;
};

namespace {

constexpr size_t kBlock = size_t{1} << 20;
constexpr int kKept = 32;

constexpr size_t kHead = FAIRWAY_ROW_ALIGN8(sizeof(fairway_row_block));
// A row's head: the pointer to its block, as fairway_row_alloc() writes it.
static_assert(sizeof(fairway_row_block*) == FAIRWAY_ROW_ALIGN8(sizeof(fairway_row_block*)));

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

// Once per block of sprio's rows: fairway_row_alloc() carves the rows inline.
extern "C" fairway_error_t fairway_row_fill_next(fairway_row_arena_t* arena,
                                                 fairway_row_fill_t* fill, size_t need) {
  return fairway::guard([&] {
    if (!fill) fairway::invalid("fairway_row_alloc: NULL argument");
    fill->block = block_get(arena, need);
    fill->at = reinterpret_cast<char*>(fill->block) + kHead;
    fill->left = fill->block->big ? need : kBlock - kHead;
  });
}

extern "C" void fairway_row_free(void* row) {
  if (!row) return;
  fairway_row_block* b = *(static_cast<fairway_row_block**>(row) - 1);
  if (--b->live == 0) block_put(b);
}

// Once per sprio row of a job with TRES weights: arithmetic that cannot throw, so no guard().
extern "C" fairway_error_t fairway_sprio_row_place_tres(const fairway_weights_t* w,
                                                        const uint64_t* alloc, const uint64_t* req,
                                                        const uint64_t* part_tres, double* tres,
                                                        size_t tres_count) {
  if (!w || !tres) {
    fairway::set_last_error("fairway_sprio_row_place: NULL argument");
    return FAIRWAY_EINVAL;
  }
  // Over the copy of the job's weighted factors: a TRES this partition does not count keeps
  // the copied value and is weighted again.  Never past the copy's end.
  const size_t n = std::min(tres_count, w->tres_count);
  fairway::tres_factors_over(w->flags, n, alloc, req, part_tres, tres);
  (void)fairway::tres_weighted(w->tres, n, tres);
  return FAIRWAY_OK;
}

// Stand-in for FoundationDB's flow/FastAlloc.h for the standalone skip-list comparator. Not FoundationDB's
// code; see README.md beside this folder.
//
// The skip list allocates each node of up to 64 bytes from FastAllocator<64>, up to 128 from
// FastAllocator<128>, larger ones with new[] (ConflictSet.cpp's Node::create), and the arenas take their
// small blocks from it too, so its speed is part of the skip list's. This one behaves like flow's where that
// speed comes from:
//  - one free list of Size-byte blocks per thread and size class: allocate pops, release pushes, a few
//    instructions with no lock, no atomic and no header per block;
//  - blocks carved from 128 KiB magazines aligned to 4 KiB, so that a 64-byte node fills one cache line
//    and a 128-byte node two, as flow's do (the skip list prefetches a node's first two lines);
//  - memory is kept for reuse, never handed back to the system, as flow keeps its magazines.
//  - what flow pays on every call besides the free list is paid here too: allocate and release are calls,
//    not inlined (flow's live in FastAlloc.cpp), and each counts its calls and bytes with relaxed atomic adds,
//    as flow's SimpleCounters do (two locked adds per call on x86: a visible part of a node's cost).
// It leaves out what a single-threaded comparator never exercises: flow moves surplus magazines between
// threads through a global list; here a block released on another thread simply joins that thread's list.
// The size classes are flow's (nextFastAllocatedSize), so a node occupies the bytes it would in fdbserver.
#ifndef FDBRESOLVER_STANDIN_FLOW_FASTALLOC_H
#define FDBRESOLVER_STANDIN_FLOW_FASTALLOC_H
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "flow/Error.h"
#include "flow/Platform.h"

inline constexpr int kFastAllocMagazineBytes = 128 << 10;

template <int Size>
class FastAllocator {
	static_assert(Size >= int(sizeof(void*)) && Size % int(sizeof(void*)) == 0, "a block must hold the free-list link");

public:
	FastAllocator() = delete;

	[[nodiscard]] static __attribute__((noinline)) void* allocate() {
		counters.allocateCalls.fetch_add(1, std::memory_order_relaxed);
		counters.allocateBytes.fetch_add(Size, std::memory_order_relaxed);
		FreeBlock* block = freeList;
		if (block == nullptr) [[unlikely]]
			block = refill();
		freeList = block->next;
		return block;
	}

	static __attribute__((noinline)) void release(void* ptr) {
		counters.releaseCalls.fetch_add(1, std::memory_order_relaxed);
		counters.releaseBytes.fetch_add(Size, std::memory_order_relaxed);
		FreeBlock* block = static_cast<FreeBlock*>(ptr);
		block->next = freeList;
		freeList = block;
	}

private:
	struct Counters {
		std::atomic<int64_t> allocateCalls, allocateBytes, releaseCalls, releaseBytes; // zero: C++20 atomics value-initialize
	};
	static inline Counters counters;

	struct FreeBlock {
		FreeBlock* next;
	};

	// Trivially constructed and destroyed: reading it costs a thread-pointer-relative load, no guard.
	static inline thread_local FreeBlock* freeList = nullptr;

	// Threads a new magazine's blocks into this thread's (empty) free list; returns its head.
	static __attribute__((noinline)) FreeBlock* refill() {
		constexpr int blocks = kFastAllocMagazineBytes / Size;
		char* magazine = static_cast<char*>(std::aligned_alloc(4096, kFastAllocMagazineBytes));
		if (magazine == nullptr)
			throw std::bad_alloc();
		for (int i = 0; i < blocks - 1; i++)
			reinterpret_cast<FreeBlock*>(magazine + i * Size)->next = reinterpret_cast<FreeBlock*>(magazine + (i + 1) * Size);
		reinterpret_cast<FreeBlock*>(magazine + (blocks - 1) * Size)->next = nullptr;
		freeList = reinterpret_cast<FreeBlock*>(magazine);
		return freeList;
	}
};

// flow's size classes: the block a request of x bytes (1..16384) is given.
inline constexpr int nextFastAllocatedSize(int x) {
	return x <= 16     ? 16
	       : x <= 32   ? 32
	       : x <= 64   ? 64
	       : x <= 96   ? 96
	       : x <= 128  ? 128
	       : x <= 256  ? 256
	       : x <= 512  ? 512
	       : x <= 1024 ? 1024
	       : x <= 2048 ? 2048
	       : x <= 4096 ? 4096
	       : x <= 8192 ? 8192
	                   : 16384;
}

#endif

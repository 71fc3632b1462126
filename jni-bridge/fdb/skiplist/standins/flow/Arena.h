// Stand-in for FoundationDB's flow/Arena.h for the standalone skip-list comparator: Arena, StringRef,
// Standalone and VectorRef with the interface fdbserver/resolver/ConflictSet.cpp and the comparator's main
// use, and the same meaning (references into an arena that owns the bytes; copying an Arena shares it).
// Not FoundationDB's code; see README.md beside this folder.
//
// Like flow's arena, this one bump-allocates from a chain of blocks that double in size up to 8 KiB, the
// small blocks from the size-class allocator (FastAlloc.h), and frees them all together when the last Arena
// sharing them goes. The skip list's own nodes do not live in arenas; a batch's bookkeeping does
// (ConflictBatch's transaction infos, the reply's conflicting-read indices), so these costs are per batch.
#ifndef FDBRESOLVER_STANDIN_FLOW_ARENA_H
#define FDBRESOLVER_STANDIN_FLOW_ARENA_H
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "flow/Error.h"
#include "flow/FastAlloc.h"
#include "flow/Platform.h"

class NonCopyable {
protected:
	NonCopyable() = default;
	~NonCopyable() = default;

public:
	NonCopyable(const NonCopyable&) = delete;
	NonCopyable& operator=(const NonCopyable&) = delete;
};

class Arena {
public:
	Arena() noexcept = default;
	Arena(const Arena& other) noexcept : root_(other.root_) {
		if (root_ != nullptr)
			root_->refs++;
	}
	Arena(Arena&& other) noexcept : root_(std::exchange(other.root_, nullptr)) {}
	Arena& operator=(const Arena& other) noexcept {
		Arena copy(other);
		std::swap(root_, copy.root_);
		return *this;
	}
	Arena& operator=(Arena&& other) noexcept {
		std::swap(root_, other.root_);
		return *this;
	}
	~Arena() {
		if (root_ != nullptr && --root_->refs == 0)
			freeBlocks(root_);
	}

	/**
	 * `bytes` bytes aligned to 8, valid as long as an Arena sharing these blocks lives. A call, counted (calls and
	 * bytes, relaxed atomic adds), as flow's ArenaBlock::allocate is: part of what a batch costs in FoundationDB.
	 */
	__attribute__((noinline)) void* allocate(size_t bytes) {
		counters.allocateCalls.fetch_add(1, std::memory_order_relaxed);
		counters.allocateBytes.fetch_add(int64_t(bytes), std::memory_order_relaxed);
		size_t rounded = (bytes + 7) & ~size_t(7);
		Block* block = root_ != nullptr ? root_->current : nullptr;
		if (block == nullptr || block->size - block->used < rounded) [[unlikely]]
			block = addBlock(rounded);
		void* p = reinterpret_cast<char*>(block) + block->used;
		block->used += uint32_t(rounded);
		return p;
	}

private:
	// Each block starts with this header; refs and current are kept in the first (root) block only.
	struct Block {
		Block* current; // root: the block being filled
		Block* previous; // the block filled before this one (nullptr for the root)
		uint32_t refs; // root: how many Arenas share the chain
		uint32_t size; // bytes in the block, header included
		uint32_t used; // bytes handed out, header included
	};
	static constexpr uint32_t kHeader = (sizeof(Block) + 7) & ~size_t(7);
	static constexpr uint32_t kLargestGrownBlock = 8192;

	struct Counters {
		std::atomic<int64_t> allocateCalls, allocateBytes, blocksCreated; // zero: C++20 atomics value-initialize
	};
	static inline Counters counters;

	Block* addBlock(size_t bytes);
	static void freeBlocks(Block* root);

	Block* root_ = nullptr;
};

inline Arena::Block* Arena::addBlock(size_t bytes) {
	if (bytes > std::numeric_limits<uint32_t>::max() - kHeader)
		throw std::bad_alloc();
	counters.blocksCreated.fetch_add(1, std::memory_order_relaxed);
	size_t needed = bytes + kHeader;
	// Each block twice the previous, up to 8 KiB, so that a growing arena takes few blocks; a request
	// larger than that gets a block of its own size.
	size_t previousSize = root_ != nullptr ? root_->current->size : 0;
	size_t size = std::max(needed, std::min<size_t>(previousSize * 2, kLargestGrownBlock));
	Block* block;
	if (size <= 64) {
		size = 64;
		block = static_cast<Block*>(FastAllocator<64>::allocate());
	} else if (size <= 128) {
		size = 128;
		block = static_cast<Block*>(FastAllocator<128>::allocate());
	} else if (size <= 256) {
		size = 256;
		block = static_cast<Block*>(FastAllocator<256>::allocate());
	} else {
		block = static_cast<Block*>(::operator new(size));
	}
	block->size = uint32_t(size);
	block->used = kHeader;
	if (root_ == nullptr) {
		block->previous = nullptr;
		block->refs = 1;
		root_ = block;
	} else {
		block->previous = root_->current;
	}
	root_->current = block;
	return block;
}

inline void Arena::freeBlocks(Block* root) {
	for (Block* block = root->current; block != nullptr;) {
		Block* previous = block->previous;
		switch (block->size) {
		case 64:
			FastAllocator<64>::release(block);
			break;
		case 128:
			FastAllocator<128>::release(block);
			break;
		case 256:
			FastAllocator<256>::release(block);
			break;
		default:
			::operator delete(block);
		}
		block = previous;
	}
}

inline void* operator new(size_t size, Arena& arena) {
	return arena.allocate(size);
}
inline void* operator new[](size_t size, Arena& arena) {
	return arena.allocate(size);
}
// Never called (arena memory is freed with its arena), but a placement new needs a matching delete.
inline void operator delete(void*, Arena&) {}
inline void operator delete[](void*, Arena&) {}

/** Bytes that live elsewhere (usually in an arena): a pointer and a length, compared as unsigned bytes. */
class StringRef {
public:
	constexpr StringRef() : data_(nullptr), length_(0) {}
	constexpr StringRef(const uint8_t* data, int length) : data_(data), length_(length) {}
	/** A copy of `from`'s bytes in `arena`. */
	StringRef(Arena& arena, const StringRef& from) : data_(nullptr), length_(from.length_) {
		if (length_ > 0) {
			uint8_t* copy = new (arena) uint8_t[length_];
			std::memcpy(copy, from.data_, length_);
			data_ = copy;
		}
	}

	const uint8_t* begin() const { return data_; }
	const uint8_t* end() const { return data_ + length_; }
	int size() const { return length_; }
	bool empty() const { return length_ == 0; }
	uint8_t operator[](int i) const { return data_[i]; }
	std::string toString() const { return std::string(reinterpret_cast<const char*>(data_), length_); }

	/** <0, 0, >0 as unsigned bytes, a prefix first. */
	int compare(const StringRef& other) const {
		int n = std::min(length_, other.length_);
		int c = n > 0 ? std::memcmp(data_, other.data_, n) : 0;
		return c != 0 ? c : (length_ > other.length_) - (length_ < other.length_);
	}
	bool operator==(const StringRef& other) const {
		return length_ == other.length_ && (length_ == 0 || std::memcmp(data_, other.data_, length_) == 0);
	}
	bool operator!=(const StringRef& other) const { return !(*this == other); }
	bool operator<(const StringRef& other) const { return compare(other) < 0; }
	bool operator>(const StringRef& other) const { return compare(other) > 0; }
	bool operator<=(const StringRef& other) const { return compare(other) <= 0; }
	bool operator>=(const StringRef& other) const { return compare(other) >= 0; }

private:
	const uint8_t* data_;
	int length_;
};

inline StringRef operator""_sr(const char* text, size_t length) {
	return StringRef(reinterpret_cast<const uint8_t*>(text), int(length));
}

/** A T (a reference type) together with the arena that owns what it refers to. */
template <class T>
class Standalone : private Arena, public T {
public:
	Standalone() = default;
	/** A deep copy of `t` in a new arena. */
	Standalone(const T& t) : Arena(), T(arena(), t) {}
	/** `t` whose bytes `arena` already owns. */
	Standalone(const T& t, const Arena& arena) : Arena(arena), T(t) {}
	Standalone(const Standalone&) = default;
	Standalone(Standalone&&) noexcept = default;
	Standalone& operator=(const Standalone&) = default;
	Standalone& operator=(Standalone&&) noexcept = default;

	Arena& arena() { return *this; }
	const Arena& arena() const { return *this; }
	T& contents() { return *this; }
	const T& contents() const { return *this; }
};

/** A Standalone string of `length` uninitialized bytes. */
inline Standalone<StringRef> makeString(int length) {
	if (length == 0)
		return Standalone<StringRef>();
	Arena arena;
	uint8_t* bytes = new (arena) uint8_t[length];
	return Standalone<StringRef>(StringRef(bytes, length), arena);
}

/** An array in an arena: grows (doubling) only through the arena that is passed in. */
template <class T>
class VectorRef {
public:
	using value_type = T;
	using iterator = T*;
	using const_iterator = const T*;

	VectorRef() : data_(nullptr), size_(0), capacity_(0) {}
	VectorRef(T* data, int size) : data_(data), size_(size), capacity_(size) {}

	int size() const { return size_; }
	bool empty() const { return size_ == 0; }
	int capacity() const { return capacity_; }
	T& operator[](int i) { return data_[i]; }
	const T& operator[](int i) const { return data_[i]; }
	T* begin() { return data_; }
	T* end() { return data_ + size_; }
	const T* begin() const { return data_; }
	const T* end() const { return data_ + size_; }
	T& front() { return data_[0]; }
	T& back() { return data_[size_ - 1]; }
	const T& back() const { return data_[size_ - 1]; }

	void push_back(Arena& arena, const T& value) {
		if (size_ == capacity_)
			reallocate(arena, size_ + 1);
		new (&data_[size_]) T(value);
		size_++;
	}
	template <class... Args>
	T& emplace_back(Arena& arena, Args&&... args) {
		if (size_ == capacity_)
			reallocate(arena, size_ + 1);
		new (&data_[size_]) T(std::forward<Args>(args)...);
		return data_[size_++];
	}
	void resize(Arena& arena, int size) {
		if (size > capacity_)
			reallocate(arena, size);
		for (int i = size_; i < size; i++)
			new (&data_[i]) T();
		size_ = size;
	}
	void reserve(Arena& arena, int size) {
		if (size > capacity_)
			reallocate(arena, size);
	}
	void clear() { size_ = 0; }

private:
	void reallocate(Arena& arena, int required) {
		int capacity = std::max(capacity_ * 2, required);
		T* data = static_cast<T*>(arena.allocate(sizeof(T) * size_t(capacity)));
		for (int i = 0; i < size_; i++)
			new (&data[i]) T(std::move(data_[i]));
		data_ = data;
		capacity_ = capacity;
	}

	T* data_;
	int size_, capacity_;
};

#endif

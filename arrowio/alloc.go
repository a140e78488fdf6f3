package arrowio

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxAlloc is the largest single buffer that a reader asks its allocator
// for. Damaged files can claim absurd sizes (of message bodies, pages,
// uncompressed buffers, thrift lists); a larger request panics with an
// *allocError, which catchPanic turns into ErrCorrupt, instead of
// exhausting memory. No real buffer comes near it: Arrow strings and
// Parquet pages stay below 2 GiB.
const maxAlloc = 2 << 30

// allocError is the panic of a cappedAllocator.
type allocError struct{ n, limit int }

func (e *allocError) Error() string {
	return fmt.Sprintf("a buffer of %d bytes was asked for (limit %d)", e.n, e.limit)
}

// cappedAllocator refuses single requests above limit (at most maxAlloc).
type cappedAllocator struct {
	memory.Allocator
	limit int
}

func newCappedAllocator(mem memory.Allocator, limit int64) cappedAllocator {
	return cappedAllocator{Allocator: mem, limit: int(min(limit, maxAlloc))}
}

func (a cappedAllocator) check(n int) {
	if n < 0 || n > a.limit {
		panic(&allocError{n: n, limit: a.limit})
	}
}

func (a cappedAllocator) Allocate(n int) []byte {
	a.check(n)
	return a.Allocator.Allocate(n)
}

func (a cappedAllocator) Reallocate(n int, b []byte) []byte {
	a.check(n)
	return a.Allocator.Reallocate(n, b)
}

// fileAllocLimit bounds single buffers when one whole file of size bytes
// is decoded at once, as Inspect does: 1024 times the file (zstd packs
// zeros more than 1000-fold), at least 256 MiB, at most maxAlloc. Open
// does not use it: there the batch size, not the file, bounds a buffer.
func fileAllocLimit(size int64) int64 {
	if size >= maxAlloc/1024 {
		return maxAlloc
	}
	return max(1<<28, 1024*size)
}

// sweepAllocator remembers the buffers it hands out, so that sweep can
// free those left allocated: arrow-go's IPC batch loader does not release
// the buffers it has loaded when a later one fails, nor does code that
// panics. Only for callers that hand out no Arrow memory (Inspect).
type sweepAllocator struct {
	mem  memory.Allocator
	mu   sync.Mutex
	live map[*byte][]byte
}

func newSweepAllocator(mem memory.Allocator) *sweepAllocator {
	return &sweepAllocator{mem: mem, live: map[*byte][]byte{}}
}

func (a *sweepAllocator) Allocate(n int) []byte {
	b := a.mem.Allocate(n)
	a.track(nil, b)
	return b
}

func (a *sweepAllocator) Reallocate(n int, old []byte) []byte {
	b := a.mem.Reallocate(n, old)
	a.track(old, b)
	return b
}

func (a *sweepAllocator) Free(b []byte) {
	a.track(b, nil)
	a.mem.Free(b)
}

// track forgets old and remembers b (either may be empty).
func (a *sweepAllocator) track(old, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if cap(old) > 0 {
		delete(a.live, unsafe.SliceData(old))
	}
	if cap(b) > 0 {
		a.live[unsafe.SliceData(b)] = b
	}
}

// sweep frees what is still allocated.
func (a *sweepAllocator) sweep() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for p, b := range a.live {
		a.mem.Free(b)
		delete(a.live, p)
	}
}

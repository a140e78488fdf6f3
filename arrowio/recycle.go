package arrowio

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycleAllocator hands out the buffers that the reader's earlier batches
// released instead of fresh ones. Buffers of at least recycleMin bytes are
// rounded up to a power of two and kept, when freed, on a free list per size
// (at most recycleKeep bytes in all; the rest is left to the garbage
// collector). Every buffer is handed out zeroed, as Go's allocator does:
// arrow-go relies on it (a fixed-size list's offsets read garbage from an
// allocator that filled new buffers with a pattern, which is how we found
// out). What recycling saves is the rest of a fresh large buffer's cost: a
// new span from the runtime, its pages faulted in and cleared cold, and the
// collector's work; a recycled buffer is cleared warm.
//
// A recycled buffer is only safe if nothing reads it after its batch is
// released, and Go code does: String.Value returns a string that aliases
// the batch's bytes, and keeping such strings past Release works with Go's
// allocator (the collector keeps the bytes alive) but reads other rows'
// bytes from a recycled buffer (evaluate --partials did, keying a map by
// them). So Open, on Go's allocator, uses one recycleAllocator per reader
// for the Parquet decoder's own page buffers, which never leave arrow-go,
// and for the batches only when every column read is of a fixed-width type
// (fixedWidthOnly), whose values Go code copies out; TestRecycleAliasing and
// a run of the whole test suite with freed buffers overwritten check it.
type recycleAllocator struct {
	mu   sync.Mutex
	free map[int][][]byte // by capacity
	kept int              // bytes on the free lists
	// fresh and reused count the recycled sizes' requests by outcome.
	fresh, reused int
}

const (
	// recycleMin: smaller buffers are cheap to zero and come from make.
	recycleMin = 4 << 10
	// recycleKeep bounds the bytes kept for reuse: a few batches' worth.
	recycleKeep = 256 << 20
	// recycleAlign is the alignment of every buffer, as memory.GoAllocator's.
	recycleAlign = 64
)

// fixedWidthOnly reports whether every field of schema is of a fixed-width
// type (numbers, booleans, dates and times, decimals), at the top level:
// batches of such a schema hold no bytes that a Go string or byte slice
// handed out by arrow-go (String.Value, Binary.Value) can alias.
func fixedWidthOnly(schema *arrow.Schema) bool {
	for _, f := range schema.Fields() {
		if _, ok := f.Type.(arrow.FixedWidthDataType); !ok || f.Type.ID() == arrow.FIXED_SIZE_BINARY || f.Type.ID() == arrow.DICTIONARY {
			return false
		}
	}
	return true
}

func newRecycleAllocator() *recycleAllocator {
	return &recycleAllocator{free: map[int][][]byte{}}
}

// Allocate returns n zero bytes, aligned to 64.
func (a *recycleAllocator) Allocate(n int) []byte {
	if n < recycleMin {
		return alignedBytes(n, n)
	}
	c := 1 << bits.Len(uint(n-1))
	a.mu.Lock()
	if l := a.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		a.free[c] = l[:len(l)-1]
		a.kept -= c
		a.reused++
		a.mu.Unlock()
		b = b[:n]
		clear(b)
		return b
	}
	a.fresh++
	a.mu.Unlock()
	return alignedBytes(n, c)
}

// Reallocate grows or shrinks b to n bytes, keeping its first min(n, len(b))
// and zeroing the rest.
func (a *recycleAllocator) Reallocate(n int, b []byte) []byte {
	if n <= cap(b) {
		if n > len(b) {
			clear(b[len(b):n])
		}
		return b[:n]
	}
	nb := a.Allocate(n)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free keeps b for reuse if it is a recycled size and there is room.
func (a *recycleAllocator) Free(b []byte) {
	c := cap(b)
	if c < recycleMin || c&(c-1) != 0 {
		return
	}
	a.mu.Lock()
	if a.kept+c <= recycleKeep {
		a.free[c] = append(a.free[c], b[:c])
		a.kept += c
	}
	a.mu.Unlock()
}

// alignedBytes returns n bytes of capacity c starting at a multiple of 64.
func alignedBytes(n, c int) []byte {
	buf := make([]byte, c+recycleAlign)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (recycleAlign - 1))
	return buf[off : off+n : off+c]
}

var _ memory.Allocator = (*recycleAllocator)(nil)

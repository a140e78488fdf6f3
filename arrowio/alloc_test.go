package arrowio

import (
	"errors"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxAllocator records the largest single allocation.
type maxAllocator struct {
	memory.Allocator
	mu  sync.Mutex
	max int
}

func (a *maxAllocator) note(n int) {
	a.mu.Lock()
	a.max = max(a.max, n)
	a.mu.Unlock()
}

func (a *maxAllocator) Allocate(n int) []byte {
	a.note(n)
	return a.Allocator.Allocate(n)
}

func (a *maxAllocator) Reallocate(n int, b []byte) []byte {
	a.note(n)
	return a.Allocator.Reallocate(n, b)
}

// allocPanic calls f and returns the *allocError it panics with, or nil.
func allocPanic(t *testing.T, f func()) (ae *allocError) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			err, _ := v.(error)
			if !errors.As(err, &ae) {
				t.Fatalf("panic %v, want an *allocError", v)
			}
		}
	}()
	f()
	return nil
}

// TestCappedAllocator: requests up to the limit pass through to the
// allocator below, larger ones panic with an *allocError before reaching
// it; the limit never exceeds maxAlloc.
func TestCappedAllocator(t *testing.T) {
	if got := newCappedAllocator(memory.NewGoAllocator(), 1<<40).limit; got != maxAlloc {
		t.Errorf("limit of 2^40 became %d, want maxAlloc", got)
	}
	for _, c := range []struct {
		name    string
		limit   int64
		n       int
		realloc bool
		refused bool
	}{
		{"allocate below", 1000, 999, false, false},
		{"allocate at", 1000, 1000, false, false},
		{"allocate above", 1000, 1001, false, true},
		{"allocate negative", 1000, -1, false, true},
		{"reallocate at", 1000, 1000, true, false},
		{"reallocate above", 1000, 1001, true, true},
		{"above maxAlloc", 1 << 40, maxAlloc + 1, false, true},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		a := newCappedAllocator(mem, c.limit)
		var b []byte
		ae := allocPanic(t, func() {
			if c.realloc {
				b = a.Reallocate(c.n, a.Allocate(10))
			} else {
				b = a.Allocate(c.n)
			}
		})
		if (ae != nil) != c.refused {
			t.Errorf("%s: refused %v, want %v", c.name, ae != nil, c.refused)
		}
		if ae != nil {
			if ae.n != c.n {
				t.Errorf("%s: error names %d bytes, want %d", c.name, ae.n, c.n)
			}
			want := 0
			if c.realloc {
				want = 10 // the first buffer, untouched
			}
			if got := mem.CurrentAlloc(); got != want {
				t.Errorf("%s: %d bytes allocated after the refusal, want %d", c.name, got, want)
			}
			continue
		}
		if len(b) != c.n {
			t.Errorf("%s: got %d bytes, want %d", c.name, len(b), c.n)
		}
		a.Free(b)
		mem.AssertSize(t, 0)
	}
}

func TestFileAllocLimit(t *testing.T) {
	for _, c := range []struct{ size, want int64 }{
		{0, 1 << 28},
		{1 << 18, 1 << 28},
		{1<<18 + 1, 1<<28 + 1024},
		{1 << 20, 1 << 30},
		{maxAlloc/1024 - 1, maxAlloc - 1024},
		{maxAlloc / 1024, maxAlloc},
		{1 << 62, maxAlloc},
	} {
		if got := fileAllocLimit(c.size); got != c.want {
			t.Errorf("file of %d bytes: limit %d, want %d", c.size, got, c.want)
		}
	}
}

// TestSweepAllocator: sweep frees every buffer still allocated, whatever
// happened to it, and only those.
func TestSweepAllocator(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a := newSweepAllocator(mem)
	freed := a.Allocate(100)
	kept := a.Allocate(200)
	grown := a.Reallocate(500, a.Allocate(300))
	a.Free(freed)
	if got := mem.CurrentAlloc(); got != 200+500 {
		t.Fatalf("%d bytes allocated before the sweep, want 700", got)
	}
	if len(kept) != 200 || len(grown) != 500 {
		t.Fatalf("got buffers of %d and %d bytes, want 200 and 500", len(kept), len(grown))
	}
	a.sweep()
	mem.AssertSize(t, 0)
	a.sweep() // nothing left to free twice
	mem.AssertSize(t, 0)
}

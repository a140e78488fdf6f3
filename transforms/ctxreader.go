package transforms

import (
	"context"
	"io"
)

// ctxReader is a reader whose Read returns ctx's error as soon as ctx is
// cancelled, even while the underlying read is blocked: standard input
// from a pipe or terminal that stays silent would otherwise hold a
// cancelled run (a SIGINT or SIGTERM) for as long as nobody writes.
//
// Each Read runs the underlying Read on a goroutine of its own, into a
// buffer of the ctxReader's, and copies what it returns. When ctx is
// cancelled first, that goroutine is left to finish the read it is in
// (it ends with the data or the end of the stream it waits for, or with
// the process); what it reads then is dropped, and every later Read
// returns ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte
	res chan readResult
	err error // sticky: ctx's error once a Read gave up waiting
}

type readResult struct {
	n   int
	err error
}

// maxCtxRead bounds the buffer of one Read (a caller asking for more is
// given at most this much, as io.Reader allows).
const maxCtxRead = 1 << 20

// newCtxReader returns r read under ctx (see ctxReader).
func newCtxReader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r, res: make(chan readResult, 1)}
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := min(len(p), maxCtxRead)
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	buf := c.buf[:n]
	go func() {
		k, err := c.r.Read(buf)
		c.res <- readResult{k, err}
	}()
	select {
	case r := <-c.res:
		copy(p, buf[:r.n])
		return r.n, r.err
	case <-c.ctx.Done():
		// The goroutine keeps buf; it is never used again.
		c.buf = nil
		c.err = c.ctx.Err()
		return 0, c.err
	}
}

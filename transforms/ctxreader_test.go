package transforms

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"time"
)

// TestCtxReaderPassesData: read through ctxReader in pieces of any size,
// a stream arrives whole and unchanged, with its end.
func TestCtxReaderPassesData(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	data := make([]byte, 3*maxCtxRead+12345)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	for _, tc := range []struct{ size, len int }{{1, 5000}, {7, 50000}, {4096, len(data)}, {maxCtxRead, len(data)}, {2 * maxCtxRead, len(data)}} {
		size, data := tc.size, data[:tc.len]
		r := newCtxReader(context.Background(), bytes.NewReader(data))
		var got []byte
		p := make([]byte, size)
		for {
			n, err := r.Read(p)
			got = append(got, p[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("pieces of %d: %v", size, err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Errorf("pieces of %d: %d bytes read, want the %d written", size, len(got), len(data))
		}
	}
}

// TestStdinCancel: a run's stdin that stays silent (a pipe nobody writes)
// does not hold the run once it is cancelled: FileTables' Open of "-"
// returns an error matching context.Canceled, and so does every later read.
func TestStdinCancel(t *testing.T) {
	for _, tc := range []struct {
		name string
		feed []byte // written before the stream goes silent
	}{
		{"silent from the start", nil},
		{"silent after a few bytes", []byte{0xff, 0xff, 0xff, 0xff}},
	} {
		pr, pw := io.Pipe()
		go func() { pw.Write(tc.feed) }()
		ctx, cancel := context.WithCancel(context.Background())
		tables := &FileTables{Paths: map[string]string{"in": "-"}, Stdin: pr}
		done := make(chan error, 1)
		go func() {
			r, err := tables.Open(ctx, "in", nil)
			if err == nil {
				r.Release()
			}
			done <- err
		}()
		time.Sleep(50 * time.Millisecond) // let Open block in its read
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Open = %v, want an error matching context.Canceled", tc.name, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: Open still blocked 10 s after the cancellation", tc.name)
		}
		pw.Close()
	}
	r := newCtxReader(canceled(), bytes.NewReader([]byte("abc")))
	if n, err := r.Read(make([]byte, 3)); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("read under a cancelled context: %d, %v; want 0 and context.Canceled", n, err)
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

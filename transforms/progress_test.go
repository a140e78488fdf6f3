package transforms

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the reporter's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A phase that reports no work for a while still shows that it is alive,
// with its name and total: a long iteration is not silence.
func TestReporterHeartbeat(t *testing.T) {
	var buf syncBuffer
	r := NewReporter(&buf, slog.New(slog.NewTextHandler(&buf, nil)))
	r.SetInterval(10*time.Millisecond, 0)
	r.Start("optimising level 2/5", 300)
	r.Add(7)
	time.Sleep(200 * time.Millisecond) // no Add meanwhile
	r.Finish()
	out := buf.String()
	lines := strings.Count(out, "msg=progress")
	if lines < 2 {
		t.Fatalf("%d progress lines during a silent phase, want several:\n%s", lines, out)
	}
	for _, want := range []string{`phase="optimising level 2/5"`, "done=7", "total=300"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lines lack %q:\n%s", want, out)
		}
	}
	n := strings.Count(buf.String(), "\n")
	time.Sleep(50 * time.Millisecond)
	if m := strings.Count(buf.String(), "\n"); m != n {
		t.Errorf("reporter wrote %d lines after Finish", m-n)
	}
}

// Short phases print nothing; Start ends an open phase.
func TestReporterQuietAndRestart(t *testing.T) {
	var buf syncBuffer
	r := NewReporter(&buf, slog.New(slog.NewTextHandler(&buf, nil)))
	r.SetInterval(10*time.Millisecond, time.Hour)
	r.Start("reading in", 0)
	r.Add(100)
	r.Start("writing out", 10) // ends "reading in"
	time.Sleep(30 * time.Millisecond)
	r.Finish()
	r.Finish() // twice is harmless
	if s := buf.String(); s != "" {
		t.Errorf("quiet phases printed %q", s)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files"} {
		if got := Plural(n, "file"); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestProgressLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		total int64
		add   []int64
		want  []string
	}{
		{"known total", 200, []int64{50, 50}, []string{"task=reading", "done=100", "total=200", "percent=50"}},
		{"unknown total", 0, []int64{7}, []string{"task=reading", "done=7"}},
	} {
		var buf bytes.Buffer
		p := newProgress(&buf, slog.New(slog.NewTextHandler(&buf, nil)))
		p.interval, p.quietFor = 0, 0
		p.Start("reading", tc.total)
		for _, n := range tc.add {
			p.Add(n)
		}
		p.Finish()
		last := strings.TrimSpace(buf.String())
		if i := strings.LastIndex(last, "\n"); i >= 0 {
			last = last[i+1:]
		}
		for _, w := range tc.want {
			if !strings.Contains(last, w) {
				t.Errorf("%s: last progress line %q lacks %q", tc.name, last, w)
			}
		}
	}
	// Short tasks print nothing.
	var buf bytes.Buffer
	p := newProgress(&buf, slog.New(slog.NewTextHandler(&buf, nil)))
	p.Start("quick", 10)
	p.Add(10)
	p.Finish()
	if buf.Len() != 0 {
		t.Errorf("a short task printed %q", buf.String())
	}
}

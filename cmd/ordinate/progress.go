package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// progress reports long-running work on stderr: a redrawn bar when stderr
// is a terminal, otherwise a log line every progressInterval. Short tasks
// print nothing.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	log      *slog.Logger
	tty      bool
	task     string
	total    int64
	done     int64
	start    time.Time
	last     time.Time
	drawn    bool
	interval time.Duration // between reports
	quietFor time.Duration // tasks shorter than this show nothing
}

const (
	progressInterval = 5 * time.Second
	barInterval      = 200 * time.Millisecond
	progressQuiet    = time.Second
)

func newProgress(w io.Writer, log *slog.Logger) *progress {
	p := &progress{w: w, log: log, interval: progressInterval, quietFor: progressQuiet}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
			p.interval = barInterval
		}
	}
	return p
}

func (p *progress) Start(task string, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.task, p.total, p.done = task, total, 0
	p.start = time.Now()
	p.last = p.start
	p.drawn = false
}

func (p *progress) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	now := time.Now()
	if now.Sub(p.start) < p.quietFor || now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	p.report(now)
}

func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn && p.tty {
		p.report(time.Now())
		fmt.Fprintln(p.w)
	}
	p.drawn = false
}

func (p *progress) report(now time.Time) {
	elapsed := now.Sub(p.start).Round(time.Second)
	if !p.tty {
		if p.total > 0 {
			p.log.Info("progress", "task", p.task, "done", p.done, "total", p.total,
				"percent", fmt.Sprintf("%.0f", 100*float64(p.done)/float64(p.total)), "elapsed", elapsed.String())
		} else {
			p.log.Info("progress", "task", p.task, "done", p.done, "elapsed", elapsed.String())
		}
		return
	}
	p.drawn = true
	if p.total > 0 {
		frac := min(1, float64(p.done)/float64(p.total))
		const width = 30
		fill := int(frac * width)
		fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %s", p.task, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, elapsed)
		return
	}
	fmt.Fprintf(p.w, "\r%s: %d done, %s", p.task, p.done, elapsed)
}

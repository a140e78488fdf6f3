package transforms

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress receives the progress of a stage, one phase at a time. Start
// begins a phase; total is its amount of work in the phase's own unit
// (rows, iterations, pairs), or ≤ 0 when not known in advance. Add reports
// work done since the last call, and Finish ends the phase. Add must be safe
// for concurrent use.
//
// Phases are named for what a person watching wants to know, in this
// vocabulary: "reading <role>" (rows), "neighbours" (rows), "widening"
// (rows of a neighbour search widened to reach its recall target), "affinities"
// (rows), "optimising" or "optimising level i/L" (iterations), "placing"
// (rows), "writing <role>" (rows), and a stage's own phases ("pair
// distances", "eigendecomposition") where those take time.
type Progress interface {
	Start(phase string, total int64)
	Add(n int64)
	Finish()
}

// NoProgress discards progress.
type NoProgress struct{}

func (NoProgress) Start(string, int64) {}
func (NoProgress) Add(int64)           {}
func (NoProgress) Finish()             {}

func progressOrNone(p Progress) Progress {
	if p == nil {
		return NoProgress{}
	}
	return p
}

// Reporter is the Progress that hosts show to people: on a terminal a bar
// redrawn every 200 ms; otherwise a log line at least every Interval while
// a phase runs, whether or not work is reported in between (a long
// iteration is not silence). Phases shorter than a second print nothing.
type Reporter struct {
	mu       sync.Mutex
	w        io.Writer
	log      *slog.Logger
	tty      bool
	phase    string
	total    int64
	done     int64
	start    time.Time
	drawn    bool
	stop     chan struct{}
	wg       sync.WaitGroup
	interval time.Duration
	quietFor time.Duration
}

// ReportInterval is the longest a non-terminal Reporter stays silent during
// a phase.
const ReportInterval = 5 * time.Second

// NewReporter returns a Reporter writing to w (a bar when w is a terminal)
// and logging to log otherwise.
func NewReporter(w io.Writer, log *slog.Logger) *Reporter {
	r := &Reporter{w: w, log: log, interval: ReportInterval, quietFor: time.Second}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			r.tty = true
			r.interval = 200 * time.Millisecond
		}
	}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(w, nil))
	}
	return r
}

// SetInterval changes the reporting interval (tests).
func (r *Reporter) SetInterval(interval, quietFor time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.interval, r.quietFor = interval, quietFor
}

// Start begins a phase, ending the previous one if it is still open.
func (r *Reporter) Start(phase string, total int64) {
	r.Finish()
	r.mu.Lock()
	r.phase, r.total, r.done = phase, total, 0
	r.start = time.Now()
	r.drawn = false
	r.stop = make(chan struct{})
	stop, interval := r.stop, r.interval
	r.mu.Unlock()
	r.wg.Add(1)
	go r.tick(stop, interval)
}

func (r *Reporter) tick(stop chan struct{}, interval time.Duration) {
	defer r.wg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			r.mu.Lock()
			if now.Sub(r.start) >= r.quietFor {
				r.report(now)
			}
			r.mu.Unlock()
		}
	}
}

// Add reports n more units of work done.
func (r *Reporter) Add(n int64) {
	r.mu.Lock()
	r.done += n
	r.mu.Unlock()
}

// Finish ends the phase.
func (r *Reporter) Finish() {
	r.mu.Lock()
	stop := r.stop
	r.stop = nil
	r.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drawn && r.tty {
		r.report(time.Now())
		fmt.Fprintln(r.w)
	}
	r.drawn = false
}

func (r *Reporter) report(now time.Time) {
	elapsed := now.Sub(r.start).Round(time.Second)
	if !r.tty {
		args := []any{"phase", r.phase, "done", r.done}
		if r.total > 0 {
			args = append(args, "total", r.total, "percent", fmt.Sprintf("%.0f", 100*float64(r.done)/float64(r.total)))
		}
		r.log.Info("progress", append(args, "elapsed", elapsed.String())...)
		return
	}
	r.drawn = true
	if r.total > 0 {
		frac := min(1, float64(r.done)/float64(r.total))
		const width = 30
		fill := int(frac * width)
		fmt.Fprintf(r.w, "\r%s [%s%s] %3.0f%% %d/%d %s", r.phase, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, r.done, r.total, elapsed)
		return
	}
	fmt.Fprintf(r.w, "\r%s: %d done, %s", r.phase, r.done, elapsed)
}

// Plural returns "1 file" or "n files" (noun plus s), for counts in
// messages and reports.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

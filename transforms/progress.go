package transforms

// Progress receives progress of long-running work. Start begins a task
// (total ≤ 0 when the amount of work is not known in advance), Add reports
// work done since the last call, and Finish ends the task. Implementations
// must be safe for concurrent use of Add.
type Progress interface {
	Start(task string, total int64)
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

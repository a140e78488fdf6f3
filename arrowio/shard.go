package arrowio

import (
	"fmt"
	"strconv"
	"strings"
)

// ErrShard is a shard that cannot be read: a malformed i/N, or an input that
// is not Parquet.
var ErrShard = NewSentinel(ErrInvalidOption, "bad shard")

// Shard selects part of a Parquet input, so that N independent readers
// (the tasks of a Kubernetes Indexed Job, a shell loop) together read every
// row exactly once. The row groups of the input are numbered u = 0, 1, …
// over its files in path order (empty ones included), and shard Index of
// Count reads those with u mod Count = Index. Input row numbers stay those
// of the whole input, so a row's number (and the row id a stage
// synthesises from it) does not depend on the shard that read it. The zero
// Shard reads everything.
type Shard struct {
	Index, Count int
}

// IsZero reports whether s reads everything.
func (s Shard) IsZero() bool { return s.Count == 0 }

// MarshalText writes "i/N", or "" for the zero Shard.
func (s Shard) MarshalText() ([]byte, error) {
	if s.IsZero() {
		return []byte{}, nil
	}
	return []byte(fmt.Sprintf("%d/%d", s.Index, s.Count)), nil
}

// UnmarshalText parses "i/N" with 0 ≤ i < N (0-based, as the
// JOB_COMPLETION_INDEX of a Kubernetes Indexed Job), or "" for none.
func (s *Shard) UnmarshalText(b []byte) error {
	t := strings.TrimSpace(string(b))
	if t == "" {
		*s = Shard{}
		return nil
	}
	is, ns, ok := strings.Cut(t, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return fmt.Errorf("%w: %q: want i/N with 0 ≤ i < N, such as 0/4", ErrShard, t)
	}
	*s = Shard{Index: i, Count: n}
	return nil
}

// String is the text form ("i/N", or "" for everything).
func (s Shard) String() string { b, _ := s.MarshalText(); return string(b) }

// WithShard makes Open read only shard s of a Parquet input (see Shard).
// Any other input gives ErrShard.
func WithShard(s Shard) ReadOption {
	return func(c *readConfig) { c.shard = s }
}

// shardState numbers the row groups of one reader across its files.
type shardState struct {
	Shard
	unit int64 // the number of the next row group
}

// take reports whether the next row group belongs to the shard, and counts
// it.
func (st *shardState) take() bool {
	u := st.unit
	st.unit++
	return st.Count == 0 || u%int64(st.Count) == int64(st.Index)
}

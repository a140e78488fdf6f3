package parallel

import "context"

// Detach runs fn, a computation that cannot be interrupted (a LAPACK call
// such as gonum's symmetric eigendecomposition), on a goroutine of its own
// and returns its result, or ctx.Err() as soon as ctx is done, whichever
// comes first. A ctx that is already done returns at once without running
// fn.
//
// On cancellation the abandoned computation runs on in the background until
// it finishes, and its result is dropped: it still uses its CPU and memory
// for that time. This is what a command-line host wants (it exits right
// after the stage returns, which ends the computation with the process); a
// long-lived host that cancels often should prefer smaller problems. fn must
// therefore write only to memory that it allocates itself or that the
// caller never reads again after a cancellation.
func Detach[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if ctx.Done() == nil { // cannot be cancelled: no goroutine needed
		return fn()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned fn never blocks
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

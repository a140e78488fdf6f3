package parallel

import (
	"context"
	"errors"
	"testing"
)

func TestDetach(t *testing.T) {
	if v, err := Detach(context.Background(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Fatalf("Detach = %v, %v", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	v, err := Detach(ctx, func() (int, error) { close(started); <-release; return 1, nil })
	if v != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Detach = %v, %v", v, err)
	}
}

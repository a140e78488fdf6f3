package tsne

import (
	"context"

	"github.com/ordinate/ordinate/transforms/placement"
)

func init() {
	placement.Register("tsne", "a t-SNE map that places a new row by minimising its own KL divergence against the fixed map (openTSNE's transform)",
		func(o PlaceOptions) placement.Method { return &placeMethod{o: o} })
}

// placeMethod is t-SNE's placement.Method: its settings, and Placer built
// from them.
type placeMethod struct{ o PlaceOptions }

// newPlaceMethod is the method of a map this stage fits: the default
// placement settings.
func newPlaceMethod() *placeMethod { return &placeMethod{o: DefaultPlaceOptions()} }

func (m *placeMethod) Settings() any       { return m.o }
func (m *placeMethod) Perplexity() float64 { return m.o.Perplexity }
func (m *placeMethod) UsesLabels() bool    { return false }

// Tune sets the perplexity and the iteration budget (0 keeps them);
// NewPlacer refuses what it cannot use.
func (m *placeMethod) Tune(perplexity float64, maxIter int) error {
	if perplexity > 0 {
		m.o.Perplexity = perplexity
	}
	if maxIter > 0 {
		m.o.Iterations = maxIter
	}
	return nil
}

func (m *placeMethod) Placer(ctx context.Context, ref placement.Reference, _ []float64, _, threads int) (placement.Placer, error) {
	p, err := NewPlacer(ctx, ref, m.o, threads)
	if err != nil {
		return nil, err
	}
	return placer{p}, nil
}

// placer adapts Placer to placement.Placer.
type placer struct{ *Placer }

func (p placer) NewWorker() placement.Worker { return &placeWorker{p: p.Placer} }

// placeWorker is one goroutine's t-SNE placement: the placer and its
// buffers.
type placeWorker struct {
	p *Placer
	s PlaceScratch
}

func (w *placeWorker) Place(dst []float64, nbr []int32, d2, _ []float64) error {
	_, err := w.p.Place(dst, nbr, d2, &w.s)
	return err
}
